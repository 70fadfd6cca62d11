extension ApplePay {
    /// What the device shows after authorisation (`ApplePaySession.STATUS_*`,
    /// `PKPaymentAuthorizationStatus`; the numbers are the same on both).
    public enum AuthorizationStatus: Int, Sendable, Codable {
        case success = 0
        case failure = 1
        case invalidBillingPostalAddress = 2
        case invalidShippingPostalAddress = 3
        case invalidShippingContact = 4
        case pinRequired = 5
        case pinIncorrect = 6
        case pinLockout = 7
    }
}
