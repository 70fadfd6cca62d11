public import Foundation

/// A webhook waiting to be delivered.
public struct OutboxMessage: Sendable, Equatable {
    /// Unique per event: receivers dedupe by it.
    public let id: String
    public let orderID: String
    /// `order.paid`, `order.refunded`, `order.refund_failed`, `order.closed`, `order.refund_required`.
    public let type: String
    public let payload: String
    public let attempts: Int
    public let nextAttemptAt: Date
    public let deliveredAt: Date?
    /// When it was queued.
    public var createdAt: Date? = nil
    /// Why the last attempt failed (an HTTP status, or that the endpoint did not answer).
    public var lastError: String? = nil

    /// Delivered, tried and not delivered yet, or not tried yet (what ``WebhookQuery/state`` selects).
    public var state: WebhookQuery.State { deliveredAt != nil ? .delivered : attempts > 0 ? .failed : .pending }
}
