public import Foundation

/// Which webhook deliveries to list or re-send.
public struct WebhookQuery: Sendable, Equatable {
    /// Where a delivery stands.
    public enum State: String, Sendable, CaseIterable {
        /// Delivered (a 2xx answer).
        case delivered
        /// Tried and not delivered yet (being retried, or given up on).
        case failed
        /// Not tried yet.
        case pending
    }

    public var state: State?
    /// Queued at or after.
    public var from: Date?
    /// Queued before.
    public var until: Date?
    public var orderID: String?
    /// Continue after this event id (the last of the previous page).
    public var after: String?
    public var limit: Int

    public init(state: State? = nil, from: Date? = nil, until: Date? = nil, orderID: String? = nil, after: String? = nil, limit: Int) {
        self.state = state
        self.from = from
        self.until = until
        self.orderID = orderID
        self.after = after
        self.limit = limit
    }
}
