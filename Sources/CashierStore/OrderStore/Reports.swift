public import Foundation

/// What the dashboard and the exports read: the overview's figures and lists of records by
/// filter. Part of ``OrderStore``.
public protocol Reports: Sendable {
    /// Money, orders and attempts over `[from, until)`, with succeeded payments in slices of `bucket` seconds.
    func overview(from: Date, until: Date, bucket: TimeInterval) async throws -> LedgerOverview
    /// Orders matching `query` (by creation time, status, id or out_trade_no).
    func orders(matching query: RecordQuery) async throws -> [StoredOrder]
    /// Payments matching `query`.
    func payments(matching query: RecordQuery) async throws -> [StoredPayment]
    /// Refunds matching `query` (provider and method are their payment's).
    func refunds(matching query: RecordQuery) async throws -> [StoredRefund]
}
