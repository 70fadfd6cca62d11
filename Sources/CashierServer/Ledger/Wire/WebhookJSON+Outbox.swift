import CashierStore
import CashierWire

extension WebhookJSON {
    /// A delivery as the outbox keeps it.
    init(_ message: OutboxMessage) {
        self.init(
            id: message.id, type: message.type, order_id: message.orderID, state: message.state.rawValue, attempts: message.attempts,
            last_error: message.lastError,
            next_attempt: message.deliveredAt == nil ? Int64(message.nextAttemptAt.timeIntervalSince1970) : nil,
            delivered: message.deliveredAt.map { Int64($0.timeIntervalSince1970) },
            created: message.createdAt.map { Int64($0.timeIntervalSince1970) })
    }
}
