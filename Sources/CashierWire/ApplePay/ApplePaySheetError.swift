/// An error the payment sheet shows next to a field (Apple Pay JS's `ApplePayError`; PassKit's
/// `PKPaymentRequest.payment…Error`), as the server sends it.
public struct ApplePaySheetError: Codable, Sendable, Equatable {
    /// `shippingContactInvalid`, `billingContactInvalid`, `addressUnserviceable`,
    /// `couponCodeInvalid`, `couponCodeExpired` or `unknown`.
    public let code: String
    /// `postalAddress`, `postalCode`, `countryCode`, `phoneNumber`, … when the error is about one field.
    public let contactField: String?
    public let message: String

    public init(code: String, contactField: String? = nil, message: String) {
        self.code = code
        self.contactField = contactField
        self.message = message
    }
}
