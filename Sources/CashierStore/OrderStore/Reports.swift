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
    /// Every payment `query`'s filters find (its creation range, status, provider, method,
    /// merchant; `search`, `after` and `limit` are not used), oldest first, each handed to `row` as
    /// the database reads it, in ``PaymentExportColumn``'s columns: one statement (a SQLite read,
    /// a PostgreSQL cursor fetched in batches) over one snapshot, no page and no record a row, so
    /// a month's export runs near the database's own CSV output in bounded memory. `row` runs on
    /// the store's thread, one row at a time; what it throws ends the read and is thrown here.
    func exportPayments(matching query: RecordQuery, _ row: @escaping @Sendable (any StreamedRow) throws -> Void) async throws
    /// Refunds matching `query` (provider and method are their payment's).
    func refunds(matching query: RecordQuery) async throws -> [StoredRefund]
}
