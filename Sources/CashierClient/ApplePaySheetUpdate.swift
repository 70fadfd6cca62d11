/// The server's answer to a change on the payment sheet: the new summary (its last item the
/// total), the shipping methods when they changed, and errors to show.
public struct ApplePaySheetUpdate: Sendable, Equatable {
    /// What the payer changed.
    public enum Change: Sendable, Equatable {
        case shippingMethod(identifier: String)
        /// The redacted address Apple Pay gives before authorisation (country, postal code, locality).
        case shippingContact(ApplePayContact)
        /// `""` removes the coupon.
        case couponCode(String)
    }

    /// The line items then the total (PassKit's `paymentSummaryItems`).
    public let summaryItems: [ApplePayPaymentRequest.SummaryItem]
    /// The methods that reach the new address (`nil` when they did not change).
    public let shippingMethods: [ApplePayPaymentRequest.ShippingMethod]?
    public let errors: [ApplePaySheetError]
    /// The order's total now, as the server priced it.
    public let orderTotal: String

    public init(
        summaryItems: [ApplePayPaymentRequest.SummaryItem], shippingMethods: [ApplePayPaymentRequest.ShippingMethod]?,
        errors: [ApplePaySheetError], orderTotal: String
    ) {
        self.summaryItems = summaryItems
        self.shippingMethods = shippingMethods
        self.errors = errors
        self.orderTotal = orderTotal
    }

    /// Reads Apple Pay JS's update shape (`newLineItems`, `newTotal`, `newShippingMethods`, `errors`).
    init(json object: [String: Any]) throws {
        func invalid(_ field: String) -> CashierClientError {
            CashierClientError(code: "invalid_response", message: "the sheet update has no valid \(field)")
        }
        let items = try (object["newLineItems"] as? [Any] ?? []).enumerated().map { index, item in
            guard let item = ApplePayPaymentRequest.SummaryItem(json: item) else { throw invalid("newLineItems[\(index)]") }
            return item
        }
        guard let total = ApplePayPaymentRequest.SummaryItem(json: object["newTotal"]) else { throw invalid("newTotal") }
        summaryItems = items + [total]
        shippingMethods = try (object["newShippingMethods"] as? [Any]).map { list in
            try list.enumerated().map { index, method in
                guard let method = ApplePayPaymentRequest.ShippingMethod(json: method) else {
                    throw invalid("newShippingMethods[\(index)]")
                }
                return method
            }
        }
        errors = (object["errors"] as? [Any] ?? []).compactMap(ApplePaySheetError.init(json:))
        orderTotal = object["order_total"] as? String ?? total.amount
    }
}
