/// One period's charge of a subscription: an ordinary order (its payments, refunds and webhooks
/// are the order's), one per subscription and period.
public struct InvoiceJSON: Codable, Sendable, Equatable {
    /// `inv_…`.
    public let id: String
    public let object: String
    public let subscription: String
    /// The period's number, from 1.
    public let period: Int
    /// The order the period is charged as (`ord_…`).
    public let order: String
    public let amount: Amount
    /// `open` (being charged), `paid`, `failed` (every attempt failed), `void` (the subscription ended first).
    public let status: String
    /// Charge attempts so far.
    public let attempts: Int
    /// Unix seconds: the next attempt, while open.
    public let next_attempt: Int64?
    /// Why the last attempt failed.
    public let last_error: String?
    /// Unix seconds: when the period begins.
    public let period_start: Int64
    public let created: Int64
    public let finished: Int64?

    public init(
        id: String, subscription: String, period: Int, order: String, amount: Amount, status: String, attempts: Int, next_attempt: Int64?,
        last_error: String?, period_start: Int64, created: Int64, finished: Int64?
    ) {
        self.id = id
        object = "invoice"
        self.subscription = subscription
        self.period = period
        self.order = order
        self.amount = amount
        self.status = status
        self.attempts = attempts
        self.next_attempt = next_attempt
        self.last_error = last_error
        self.period_start = period_start
        self.created = created
        self.finished = finished
    }
}
