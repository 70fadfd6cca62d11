/// What the device sends to `POST /v1/orders/{id}/payments/applepay/authorize`: the token and
/// (Apple Pay JS) the contacts beside it. Read for its shape; the token itself is read as the
/// JSON it came as.
struct AuthorizeBody: Decodable, Sendable {
    let token: JSONObject
    let client_secret: String?
    let billing_contact: JSONObject?
    let shipping_contact: JSONObject?
}
