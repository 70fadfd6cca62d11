/// `POST /v1/orders/{id}/payments/applepay/update`: one event of the payment sheet.
struct SheetUpdateBody: Decodable, Sendable {
    let client_secret: String?
    let shipping_method: String?
    /// Apple Pay JS's redacted `ApplePayPaymentContact` (country, postal code, locality).
    let shipping_contact: RedactedContact?
    /// `""` removes the coupon.
    let coupon_code: String?

    /// What the sheet reveals of an address before authorisation; other fields are ignored.
    struct RedactedContact: Decodable, Sendable {
        let countryCode: String?
        let postalCode: String?
        let locality: String?
        let administrativeArea: String?
    }
}
