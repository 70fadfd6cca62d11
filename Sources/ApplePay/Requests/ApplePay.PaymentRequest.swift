public import Cashier
import Foundation

extension ApplePay {
    /// A payment request built and checked on the server, encoded as Apple Pay JS's
    /// `ApplePayPaymentRequest` (plus `merchantIdentifier`, which a PassKit mapping needs).
    ///
    /// The summary's last line is the total, labelled with the company name and equal to the sum
    /// of the other lines (discounts are negative lines); the selected shipping method is one of
    /// those lines. Amounts are `Money`, never floating point, and encoded as decimal strings.
    ///
    /// ```swift
    /// var request = try ApplePay.PaymentRequest(
    ///     merchantIdentifier: "merchant.com.example", countryCode: CountryCode(alpha2: "CN"),
    ///     items: [latte, coupon], totalLabel: "Example Coffee Co.",
    ///     supportedNetworks: [.chinaUnionPay, .visa, .masterCard], merchantCapabilities: [.supports3DS, .supportsEMV],
    ///     shippingMethods: [standard, express])
    /// let json = try request.jsonData()
    /// ```
    public struct PaymentRequest: Sendable, Equatable {
        /// Payment networks, as Apple Pay JS spells them.
        public enum Network: String, Sendable, CaseIterable, Codable {
            case amex, bancomat, bancontact, cartesBancaires, chinaUnionPay, dankort, discover, eftpos, electron, elo, girocard,
                interac, jcb, mada, maestro, masterCard, mir, privateLabel, visa, vPay
        }

        public enum Capability: String, Sendable, CaseIterable, Codable {
            case supports3DS, supportsEMV, supportsCredit, supportsDebit
        }

        public enum ContactField: String, Sendable, CaseIterable, Codable {
            case postalAddress, name, phoneticName, phone, email
        }

        public var merchantIdentifier: String
        public var countryCode: CountryCode
        /// Goods, fees and discounts; the selected shipping method is added after them.
        public private(set) var items: [LineItem]
        public private(set) var totalLabel: String
        public var supportedNetworks: [Network]
        public var merchantCapabilities: [Capability]
        public internal(set) var shippingMethods: [ShippingMethod]
        /// The chosen method (the first offered until the payer picks another).
        public internal(set) var selectedShippingMethod: String?
        public var requiredBillingContactFields: [ContactField]
        public var requiredShippingContactFields: [ContactField]
        /// Bound into the token: its SHA-256 comes back in `header.applicationData`.
        public var applicationData: [UInt8]?
        /// A subscription, a deferred charge or an automatic reload the payer agrees to.
        public private(set) var commitment: Commitment?

        /// Adds (or with `nil` removes) what the payer commits to.
        /// - Throws: `PaymentError.invalidRequest` when its amounts are in another currency than the request's.
        public mutating func commit(to commitment: Commitment?) throws {
            if let commitment, Self.currency(of: commitment) != (try summary().currency) {
                throw Self.invalid(
                    "the \(commitment.field)'s amounts are in \(Self.currency(of: commitment).code), the request in \(try summary().currency.code)"
                )
            }
            self.commitment = commitment
        }

        /// - Throws: `PaymentError.invalidRequest` naming the rule that is broken.
        public init(
            merchantIdentifier: String, countryCode: CountryCode, items: [LineItem], totalLabel: String, supportedNetworks: [Network],
            merchantCapabilities: [Capability] = [.supports3DS], shippingMethods: [ShippingMethod] = [],
            requiredBillingContactFields: [ContactField] = [], requiredShippingContactFields: [ContactField] = [],
            applicationData: [UInt8]? = nil
        ) throws {
            self.merchantIdentifier = merchantIdentifier
            self.countryCode = countryCode
            self.items = items
            self.totalLabel = totalLabel
            self.supportedNetworks = supportedNetworks
            self.merchantCapabilities = merchantCapabilities
            self.shippingMethods = shippingMethods
            self.selectedShippingMethod = shippingMethods.first?.identifier
            self.requiredBillingContactFields = requiredBillingContactFields
            self.requiredShippingContactFields = requiredShippingContactFields
            self.applicationData = applicationData
            try validate()
        }

        /// The summary shown on the sheet: the items, the selected shipping method, and the total.
        public func summary() throws -> PaymentSummary {
            var lines = items
            if let method = shippingMethods.first(where: { $0.identifier == selectedShippingMethod }) {
                lines.append(try method.lineItem())
            }
            do {
                return try PaymentSummary(items: lines, totalLabel: totalLabel)
            } catch let error as MoneyError {
                throw Self.invalid(error.message)
            }
        }

        /// Checks every rule; ``init(merchantIdentifier:countryCode:items:totalLabel:supportedNetworks:merchantCapabilities:shippingMethods:requiredBillingContactFields:requiredShippingContactFields:applicationData:)`` calls it.
        public func validate() throws {
            guard merchantIdentifier.hasPrefix("merchant."), merchantIdentifier.count > 9 else {
                throw Self.invalid("merchantIdentifier '\(merchantIdentifier)' must be the identifier registered with Apple (merchant.…)")
            }
            guard !supportedNetworks.isEmpty else { throw Self.invalid("supportedNetworks is empty: name at least one network") }
            guard merchantCapabilities.contains(.supports3DS) else {
                throw Self.invalid("merchantCapabilities must include supports3DS (Apple Pay requires it)")
            }
            if countryCode.alpha2 == "CN" || supportedNetworks.contains(.chinaUnionPay), !merchantCapabilities.contains(.supportsEMV) {
                throw Self.invalid("merchantCapabilities must include supportsEMV for China UnionPay and merchants in China")
            }
            let summary = try summary()
            for method in shippingMethods where method.amount.currency != summary.currency {
                throw Self.invalid(
                    "shipping method '\(method.identifier)' is in \(method.amount.currency.code), the request in \(summary.currency.code)")
            }
            do {
                try ShippingMethod.validateUnique(shippingMethods)
            } catch let error as MoneyError {
                throw Self.invalid(error.message)
            }
        }

        /// The currency a commitment's amounts are in.
        static func currency(of commitment: Commitment) -> Currency {
            switch commitment {
            case .recurring(let request): request.regularBilling.amount.currency
            case .deferred(let request): request.amount.currency
            case .automaticReload(let request): request.amount.currency
            }
        }

        /// The amount the token must authorise.
        public var total: Money { get throws { try summary().total } }

        static func invalid(_ reason: String) -> PaymentError {
            PaymentError(.invalidRequest, provider: .applePay, "Apple Pay request: \(reason)")
        }
    }
}
