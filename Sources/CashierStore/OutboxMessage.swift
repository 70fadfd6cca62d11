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

extension OutboxMessage {
    /// How far ahead a message the sender stopped trying is parked: a hundred years, never in
    /// practice, until someone resends it.
    public static let parkedDelay: TimeInterval = 100 * 365 * 86_400
    /// A message due further ahead than this is parked: leases and retries are due within hours
    /// (each at most an hour away). A parked message does not hold its order's later ones back.
    static let parkedHorizon: TimeInterval = 365 * 86_400
}
