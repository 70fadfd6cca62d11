extension ApplePay {
    /// A processor's answer.
    public enum ProcessorDecision: Sendable, Equatable {
        /// The money is authorised; `reference` is the processor's id for it.
        case authorized(reference: String)
        case declined(DeclineReason, message: String)

        public var status: AuthorizationStatus {
            switch self {
            case .authorized: .success
            case .declined(let reason, _): reason.status
            }
        }

        /// The body Apple Pay JS's `completePayment` takes (`ApplePayPaymentAuthorizationResult`).
        public func authorizationResultJSON() -> [String: Any] {
            guard case .declined(let reason, let message) = self else { return ["status": status.rawValue] }
            let field: (String, String)? =
                switch reason {
                case .invalidBillingAddress: ("billingContactInvalid", "postalAddress")
                case .invalidShippingAddress: ("shippingContactInvalid", "postalAddress")
                case .invalidShippingContact: ("shippingContactInvalid", "phoneNumber")
                default: nil
                }
            var result: [String: Any] = ["status": status.rawValue]
            if let field { result["errors"] = [["code": field.0, "contactField": field.1, "message": message]] }
            return result
        }
    }
}
