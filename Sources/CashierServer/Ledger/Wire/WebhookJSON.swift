import CashierStore

/// A delivery to the merchant's webhook endpoint, as `/v1/webhooks` shows it.
struct WebhookJSON: Encodable, Sendable {
    let id: String
    let object = "webhook"
    let type: String
    let order_id: String
    /// `delivered`, `failed` (tried, not delivered yet) or `pending`.
    let state: String
    let attempts: Int
    let last_error: String?
    let next_attempt: Int64?
    let delivered: Int64?
    let created: Int64?

    init(_ message: OutboxMessage) {
        id = message.id
        type = message.type
        order_id = message.orderID
        state = message.state.rawValue
        attempts = message.attempts
        last_error = message.lastError
        next_attempt = message.deliveredAt == nil ? Int64(message.nextAttemptAt.timeIntervalSince1970) : nil
        delivered = message.deliveredAt.map { Int64($0.timeIntervalSince1970) }
        created = message.createdAt.map { Int64($0.timeIntervalSince1970) }
    }
}

/// `POST /v1/webhooks/resend`'s answer.
struct ResendAnswer: Encodable, Sendable {
    let resent: Int
    let data: [WebhookJSON]
}
