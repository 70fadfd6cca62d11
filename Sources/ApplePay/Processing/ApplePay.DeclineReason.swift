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

        /// The status the device should show for it.
        public var status: AuthorizationStatus {
            switch self {
            case .cardDeclined, .insufficientFunds, .expiredCard: .failure
            case .invalidBillingAddress: .invalidBillingPostalAddress
            case .invalidShippingAddress: .invalidShippingPostalAddress
            case .invalidShippingContact: .invalidShippingContact
            case .pinRequired: .pinRequired
            }
        }
    }
}
