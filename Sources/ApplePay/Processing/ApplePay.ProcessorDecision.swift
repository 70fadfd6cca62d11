extension ApplePay {
    /// A processor's answer.
    public enum ProcessorDecision: Sendable, Equatable {
        /// The money is authorised; `reference` is the processor's id for it.
        case authorized(reference: String)
        /// Accepted, but not decided yet (a Stripe PaymentIntent `processing`): no money is
        /// authorised until the processor says so — its webhook, or
        /// ``PaymentProcessor/payment(_:)`` asked later. `reference` is its id for the payment.
        /// The sheet completes with success: the payer's part is done, and the app waits for the
        /// order (never for the sheet) to say paid. A processor of your own that answers this must
        /// also answer ``PaymentProcessor/payment(_:)``: Cashier reads only Stripe's and Adyen's
        /// webhooks, so for any other processor asking is the only way the order learns the outcome.
        case pending(reference: String)
        case declined(DeclineReason, message: String)

        public var status: AuthorizationStatus {
            switch self {
            case .authorized, .pending: .success
            case .declined(let reason, _): reason.status
            }
        }

        /// The field the sheet should point at, for a decline about a contact.
        public var sheetErrors: [SheetError] {
            guard case .declined(let reason, let message) = self else { return [] }
            switch reason {
            case .invalidBillingAddress: return [SheetError(code: .billingContactInvalid, contactField: "postalAddress", message: message)]
            case .invalidShippingAddress:
                return [SheetError(code: .shippingContactInvalid, contactField: "postalAddress", message: message)]
            case .invalidShippingContact: return [SheetError(code: .shippingContactInvalid, contactField: "phoneNumber", message: message)]
            default: return []
            }
        }

        /// The body Apple Pay JS's `completePayment` takes (`ApplePayPaymentAuthorizationResult`).
        public func authorizationResultJSON() -> [String: Any] {
            var result: [String: Any] = ["status": status.rawValue]
            if !sheetErrors.isEmpty { result["errors"] = sheetErrors.map(\.jsonObject) }
            return result
        }
    }
}
