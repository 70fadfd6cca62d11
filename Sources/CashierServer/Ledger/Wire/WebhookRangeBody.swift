/// `POST /v1/webhooks/resend`'s body: the days whose failed deliveries to send again.
struct WebhookRangeBody: Decodable, Sendable {
    let from: String
    let to: String
}
