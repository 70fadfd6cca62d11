import Cashier
public import Foundation
public import UnionPay

extension MerchantConfiguration {
    /// UnionPay's online gateway (全渠道) for `unionpay.applepay` and `unionpay.app`: the merchant
    /// (`merId`), its signing identity (the `.pfx` UnionPay's CA issued, or its key and
    /// certificate as PEM), the root and middle certificates UnionPay's messages must chain to,
    /// and the environment.
    public struct UnionPaySettings: Sendable {
        /// UnionPay's production environment or its test environment (the plugins' mode `00` / `01`).
        public enum Environment: String, Sendable {
            case production
            case test

            /// The plugins' `mode`.
            public var pluginMode: String { self == .production ? "00" : "01" }
        }

        /// `merId`, 15 characters.
        public var merchantID: String
        public var signingKey: UnionPay.SigningKey
        /// Verifies answers and notifications (its owner check accepts UnionPay's test
        /// environment's certificates only in ``Environment/test``).
        public var verifier: UnionPay.Verifier
        public var environment: Environment
        /// The gateway and the file-download host.
        public var endpoints: UnionPay.Endpoints
        /// A page the hosted checkout sends the payer to with the `tn` (`?tn=…&mode=…`) in place of
        /// the app's plugin: the sandbox's payer page, or a universal link into the merchant's app,
        /// which hands the `tn` to `UPAPayPlugin`. `nil`: the checkout does not offer UnionPay.
        public var checkoutPayURL: URL?

        public init(
            merchantID: String, signingKey: UnionPay.SigningKey, verifier: UnionPay.Verifier, environment: Environment = .production,
            endpoints: UnionPay.Endpoints? = nil, checkoutPayURL: URL? = nil
        ) {
            self.merchantID = merchantID
            self.signingKey = signingKey
            self.verifier = verifier
            self.environment = environment
            self.endpoints = endpoints ?? (environment == .production ? .production : .test)
            self.checkoutPayURL = checkoutPayURL
        }
    }
}
