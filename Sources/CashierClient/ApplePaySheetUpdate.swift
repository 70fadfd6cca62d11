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

    /// `POST /v1/orders/{id}/payments/applepay/update`'s body: the client secret and the change.
    struct Request: Encodable {
        let client_secret: String
        var shipping_method: String?
        var shipping_contact: ApplePayContact?
        var coupon_code: String?

        init(_ change: Change, clientSecret: String) {
            client_secret = clientSecret
            switch change {
            case .shippingMethod(let identifier): shipping_method = identifier
            case .shippingContact(let contact): shipping_contact = contact
            case .couponCode(let code): coupon_code = code
            }
        }
    }

    /// The answer in Apple Pay JS's update shape (`newLineItems`, `newTotal`, `newShippingMethods`,
    /// `errors`) and the order's total.
    struct Answer: Decodable {
        let newLineItems: [ApplePayPaymentRequest.SummaryItem.JSON]?
        let newTotal: ApplePayPaymentRequest.SummaryItem.JSON?
        let newShippingMethods: [ApplePayPaymentRequest.ShippingMethod.JSON]?
        let errors: [ApplePaySheetError]?
        let order_total: String?
    }

    /// Reads the server's answer, each amount checked to be a plain decimal.
    /// - Throws: ``CashierClientError`` `invalid_response` naming the field.
    init(_ answer: Answer) throws {
        func invalid(_ field: String) -> CashierClientError {
            CashierClientError(code: "invalid_response", message: "the sheet update has no valid \(field)")
        }
        let items = try (answer.newLineItems ?? []).enumerated().map { index, item in
            guard let item = ApplePayPaymentRequest.SummaryItem(item) else { throw invalid("newLineItems[\(index)]") }
            return item
        }
        guard let total = answer.newTotal.flatMap(ApplePayPaymentRequest.SummaryItem.init) else { throw invalid("newTotal") }
        summaryItems = items + [total]
        shippingMethods = try answer.newShippingMethods.map { list in
            try list.enumerated().map { index, method in
                guard let method = ApplePayPaymentRequest.ShippingMethod(method) else { throw invalid("newShippingMethods[\(index)]") }
                return method
            }
        }
        errors = answer.errors ?? []
        orderTotal = answer.order_total ?? total.amount
    }
}
