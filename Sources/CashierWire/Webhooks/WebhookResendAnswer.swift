/// `POST /v1/webhooks/resend`'s answer: how many deliveries were queued again, and which.
public struct WebhookResendAnswer: Codable, Sendable, Equatable {
    public let resent: Int
    public let data: [WebhookJSON]

    public init(resent: Int, data: [WebhookJSON]) {
        self.resent = resent
        self.data = data
    }
}
