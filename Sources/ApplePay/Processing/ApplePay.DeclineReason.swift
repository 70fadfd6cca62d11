extension ApplePay {
    /// Why a processor declined.
    public enum DeclineReason: String, Sendable, Codable {
        case cardDeclined = "card_declined"
        case insufficientFunds = "insufficient_funds"
        case expiredCard = "expired_card"
        case invalidBillingAddress = "invalid_billing_address"
        case invalidShippingAddress = "invalid_shipping_address"
        case invalidShippingContact = "invalid_shipping_contact"
        case pinRequired = "pin_required"
        /// A merchant-initiated charge the issuer wants the payer present for (Stripe's
        /// `authentication_required`): only the payer, back in the app, can pay it.
        case authenticationRequired = "authentication_required"
        /// A merchant-initiated charge on a stored payment method the processor no longer holds for
        /// the shopper (detached, deleted, or never stored for them).
        case paymentMethodUnavailable = "payment_method_unavailable"

        /// The status the device should show for it.
        public var status: AuthorizationStatus {
            switch self {
            case .cardDeclined, .insufficientFunds, .expiredCard, .authenticationRequired, .paymentMethodUnavailable: .failure
            case .invalidBillingAddress: .invalidBillingPostalAddress
            case .invalidShippingAddress: .invalidShippingPostalAddress
            case .invalidShippingContact: .invalidShippingContact
            case .pinRequired: .pinRequired
            }
        }

        /// Whether a merchant-initiated charge declined for it may pass when tried again later with
        /// the same stored method, the payer absent: funds may arrive, a generic decline may clear.
        /// An expired card, a method the processor no longer holds, or one that needs the payer
        /// present (authentication, a PIN, an address) will not.
        public var isRetryable: Bool {
            switch self {
            case .insufficientFunds, .cardDeclined: true
            case .expiredCard, .authenticationRequired, .paymentMethodUnavailable, .pinRequired, .invalidBillingAddress,
                .invalidShippingAddress, .invalidShippingContact:
                false
            }
        }
    }
}
