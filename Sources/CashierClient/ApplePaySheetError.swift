/// An error the payment sheet shows (Apple Pay JS's `ApplePayError`; PassKit's
/// `PKPaymentRequest.payment…Error`), as the server sent it.
public struct ApplePaySheetError: Sendable, Equatable {
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

    init?(json: Any?) {
        guard let object = json as? [String: Any], let code = object["code"] as? String else { return nil }
        self.init(code: code, contactField: object["contactField"] as? String, message: object["message"] as? String ?? "")
    }
}
