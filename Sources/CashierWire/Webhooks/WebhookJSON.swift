/// One delivery to the merchant's webhook endpoint, as `GET /v1/webhooks` lists it.
public struct WebhookJSON: Codable, Sendable, Equatable {
    /// The event's id (`evt_…`).
    public let id: String
    /// Always `webhook`.
    public let object: String
    /// The event's type (`order.paid`, …).
    public let type: String
    public let order_id: String
    /// `delivered`, `failed` (tried, not delivered yet) or `pending`.
    public let state: String
    public let attempts: Int
    public let last_error: String?
    /// When it is tried next (Unix seconds), while not delivered.
    public let next_attempt: Int64?
    public let delivered: Int64?
    public let created: Int64?

    public init(
        id: String, type: String, order_id: String, state: String, attempts: Int, last_error: String?, next_attempt: Int64?,
        delivered: Int64?, created: Int64?
    ) {
        self.id = id
        object = "webhook"
        self.type = type
        self.order_id = order_id
        self.state = state
        self.attempts = attempts
        self.last_error = last_error
        self.next_attempt = next_attempt
        self.delivered = delivered
        self.created = created
    }
}
