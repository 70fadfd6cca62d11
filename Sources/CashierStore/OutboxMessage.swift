public import Foundation

/// A webhook waiting to be delivered.
public struct OutboxMessage: Sendable, Equatable {
    /// Unique per event: receivers dedupe by it.
    public let id: String
    public let orderID: String
    /// `order.paid`, `order.refunded`, `order.closed`, `order.refund_required`.
    public let type: String
    public let payload: String
    public let attempts: Int
    public let nextAttemptAt: Date
    public let deliveredAt: Date?
}
