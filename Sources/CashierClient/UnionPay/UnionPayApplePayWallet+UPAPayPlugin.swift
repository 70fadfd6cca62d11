// Compiled where UnionPay's Apple Pay plugin (libUPAPayPlugin.a, wrapped in a module named
// UPAPayPlugin) is linked, and on Linux by the test-only CashierClientPlatformCheck target
// against a declaration of its surface (Tests/PlatformStubs).
#if (canImport(UPAPayPlugin) && !os(Linux)) || PLATFORM_GLUE_CHECK
    #if PLATFORM_GLUE_CHECK
        public import CashierClient
    #endif
    public import Foundation
    public import UIKit
    public import UPAPayPlugin

    /// Apple Pay through UnionPay's plugin (`unionpay.applepay`): `UPAPayPlugin` builds the
    /// PassKit sheet from the `tn` itself and sends the token to UnionPay; its result comes back
    /// through the delegate and is then confirmed with the server.
    ///
    /// The plugin needs the view controller to present from and the Apple Pay merchant ID whose
    /// certificate UnionPay made the CSR for. Ask ``PayerWallets/applePay(networks:)`` first: the
    /// sheet shows only when Wallet holds a China UnionPay card.
    ///
    /// ```swift
    /// let wallet = UnionPayApplePayWallet(merchantID: "merchant.com.example.shop") { [weak self] in self }
    /// let result = try await cashier.payWithUnionPay(orderID: id, clientSecret: secret, method: .applePay, wallet: wallet)
    /// ```
    public final class UnionPayApplePayWallet: NSObject, UnionPayWallet, UPAPayPluginDelegate, @unchecked Sendable {
        /// The Apple Pay merchant ID (`andAPMechantID:`).
        public let merchantID: String
        private let presenter: @MainActor @Sendable () -> UIViewController?
        private let handoff = WalletHandoff<UnionPayResult>()

        public init(merchantID: String, presenter: @escaping @MainActor @Sendable () -> UIViewController?) {
            self.merchantID = merchantID
            self.presenter = presenter
        }

        public func pay(_ payment: UnionPayPayment) async throws -> UnionPayResult {
            await handoff.wait(supersededWith: UnionPayResult(status: .cancel, errorDescription: "superseded by another payment")) {
                Task { @MainActor in
                    guard let controller = self.presenter() else {
                        self.deliver(UnionPayResult(status: .failure, errorDescription: "no view controller to present Apple Pay from"))
                        return
                    }
                    let started = UPAPayPlugin.startPay(
                        payment.tn, mode: payment.mode.rawValue, viewController: controller, delegate: self, andAPMechantID: self.merchantID
                    )
                    if !started { self.deliver(UnionPayResult(status: .failure, errorDescription: "UPAPayPlugin could not start")) }
                }
            }
        }

        public func UPAPayPluginResult(_ payResult: UPPayResult) {
            deliver(Self.result(payResult))
        }

        /// The plugin's result as Cashier's.
        public static func result(_ payResult: UPPayResult) -> UnionPayResult {
            let status: UnionPayResult.Status =
                switch payResult.paymentResultStatus {
                case .success: .success
                case .cancel: .cancel
                case .unknownCancel: .unknownCancel
                default: .failure
                }
            return UnionPayResult(status: status, errorDescription: payResult.errorDescription, otherInfo: payResult.otherInfo)
        }

        private func deliver(_ result: UnionPayResult) { handoff.deliver(result) }
    }
#endif
