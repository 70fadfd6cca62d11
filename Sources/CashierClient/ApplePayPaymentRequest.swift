public import Foundation

/// The Apple Pay payment request the server built, typed for the app: what Apple Pay JS takes as
/// JSON and what `pkPaymentRequest()` (on Apple platforms) turns into a `PKPaymentRequest`.
/// Amounts stay decimal strings, exactly as the server priced them (never `Double`).
public struct ApplePayPaymentRequest: Sendable, Equatable {
    public struct SummaryItem: Sendable, Equatable {
        public let label: String
        /// A decimal string such as `"12.75"`; `NSDecimalNumber(string:)` reads it exactly.
        public let amount: String
        /// `true` for a `pending` amount (not yet known).
        public let isPending: Bool

        /// `{"label", "amount", "type"}` as the server sends it, each field read if present.
        struct JSON: Decodable {
            let label: String?
            let amount: String?
            let type: String?
        }

        /// `nil` unless it has a label and a plain decimal amount.
        init?(_ item: JSON) {
            guard let label = item.label, let amount = item.amount, ApplePayPaymentRequest.isDecimal(amount) else { return nil }
            self.label = label
            self.amount = amount
            self.isPending = item.type == "pending"
        }
    }

    public struct ShippingMethod: Sendable, Equatable {
        public let identifier: String
        public let label: String
        public let detail: String
        public let amount: String

        /// `{"identifier", "label", "detail", "amount"}` as the server sends it, each field read if present.
        struct JSON: Decodable {
            let identifier: String?
            let label: String?
            let detail: String?
            let amount: String?
        }

        /// `nil` unless it has an identifier, a label and a plain decimal amount.
        init?(_ method: JSON) {
            guard let identifier = method.identifier, let label = method.label, let amount = method.amount,
                ApplePayPaymentRequest.isDecimal(amount)
            else { return nil }
            self.identifier = identifier
            self.label = label
            self.detail = method.detail ?? ""
            self.amount = amount
        }
    }

    public let merchantIdentifier: String
    /// ISO 3166 alpha-2.
    public let countryCode: String
    /// ISO 4217.
    public let currencyCode: String
    /// Apple Pay JS names: `visa`, `masterCard`, `amex`, `chinaUnionPay`, …
    public let supportedNetworks: [String]
    /// `supports3DS`, `supportsEMV`, `supportsCredit`, `supportsDebit`.
    public let merchantCapabilities: [String]
    public let lineItems: [SummaryItem]
    /// The last summary item: labelled with the merchant's name, the sum of the others.
    public let total: SummaryItem
    public let shippingMethods: [ShippingMethod]
    /// `postalAddress`, `email`, `phone`, `name`, `phoneticName`.
    public let requiredBillingContactFields: [String]
    public let requiredShippingContactFields: [String]
    /// Bound into the token's signature; the server checks it (the order's id).
    public let applicationData: Data?
    /// The server takes coupon codes on the sheet (`PKPaymentRequest.supportsCouponCode`).
    public let supportsCouponCode: Bool
    /// A subscription, deferred charge or automatic reload the order asked for.
    public let commitment: ApplePayCommitment?

    /// Apple Pay JS's request as the server writes it, each field read if present.
    struct JSON: Decodable {
        let merchantIdentifier: String?
        let countryCode: String?
        let currencyCode: String?
        let supportedNetworks: [String]?
        let merchantCapabilities: [String]?
        let lineItems: [SummaryItem.JSON]?
        let total: SummaryItem.JSON?
        let shippingMethods: [ShippingMethod.JSON]?
        let requiredBillingContactFields: [String]?
        let requiredShippingContactFields: [String]?
        let supportsCouponCode: Bool?
        let applicationData: String?
        let recurringPaymentRequest: ApplePayCommitment.Recurring?
        let deferredPaymentRequest: ApplePayCommitment.Deferred?
        let automaticReloadPaymentRequest: ApplePayCommitment.AutomaticReload?
    }

    /// Reads the server's JSON (``WalletParameters/applePayRequest(_:)``).
    /// - Throws: ``CashierClientError`` naming the field that is missing.
    public init(json: Data) throws {
        func invalid(_ field: String) -> CashierClientError {
            CashierClientError(code: "invalid_response", message: "the Apple Pay request has no valid \(field)")
        }
        let object: JSON
        do {
            object = try JSONDecoder().decode(JSON.self, from: json)
        } catch {
            throw invalid("JSON object (\(error))")
        }
        func string(_ value: String?, _ key: String) throws -> String {
            guard let value, !value.isEmpty else { throw invalid(key) }
            return value
        }
        func item(_ value: SummaryItem.JSON?, _ field: String) throws -> SummaryItem {
            guard let item = value.flatMap(SummaryItem.init) else { throw invalid(field) }
            return item
        }
        merchantIdentifier = try string(object.merchantIdentifier, "merchantIdentifier")
        countryCode = try string(object.countryCode, "countryCode")
        currencyCode = try string(object.currencyCode, "currencyCode")
        supportedNetworks = object.supportedNetworks ?? []
        merchantCapabilities = object.merchantCapabilities ?? []
        guard !supportedNetworks.isEmpty else { throw invalid("supportedNetworks") }
        guard merchantCapabilities.contains("supports3DS") || merchantCapabilities.contains("supportsEMV") else {
            throw invalid("merchantCapabilities (supports3DS or supportsEMV)")
        }
        lineItems = try (object.lineItems ?? []).enumerated().map { try item($1, "lineItems[\($0)]") }
        total = try item(object.total, "total")
        shippingMethods = try (object.shippingMethods ?? []).enumerated().map { index, method in
            guard let method = ShippingMethod(method) else { throw invalid("shippingMethods[\(index)]") }
            return method
        }
        requiredBillingContactFields = object.requiredBillingContactFields ?? []
        requiredShippingContactFields = object.requiredShippingContactFields ?? []
        supportsCouponCode = object.supportsCouponCode ?? false
        commitment = try ApplePayCommitment(request: object)
        if let encoded = object.applicationData {
            guard let data = Data(base64Encoded: encoded) else { throw invalid("applicationData") }
            applicationData = data
        } else {
            applicationData = nil
        }
    }

    /// `12.75`, `-5.00`, `0`: what Apple Pay and `NSDecimalNumber(string:)` read exactly (no
    /// exponent, no grouping, nothing after the digits).
    static func isDecimal(_ text: String) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        return (1...2).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { ("0"..."9").contains($0) } }
    }

    /// What the sheet lists, in order: the line items, then the total (PassKit's `paymentSummaryItems`).
    public var summaryItems: [SummaryItem] { lineItems + [total] }
}
