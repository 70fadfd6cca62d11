/// `POST /v1/orders/{id}/payments/applepay/authorize`: what the device sends — the token (the
/// `PKPayment`, or its token, as JSON) and, from Apple Pay JS, the contacts beside it.
public struct ApplePayAuthorizeBody: Codable, Sendable, Equatable {
    public let token: JSONObject
    /// The order's client secret: required with the publishable key.
    public let client_secret: String?
    public let billing_contact: JSONObject?
    public let shipping_contact: JSONObject?

    public init(token: JSONObject, client_secret: String?, billing_contact: JSONObject? = nil, shipping_contact: JSONObject? = nil) {
        self.token = token
        self.client_secret = client_secret
        self.billing_contact = billing_contact
        self.shipping_contact = shipping_contact
    }
}
