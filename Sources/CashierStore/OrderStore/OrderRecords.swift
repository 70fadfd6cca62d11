public import Cashier
public import Foundation

/// Orders: created, read, listed, closed and repriced. Part of ``OrderStore``: a payment's or a
/// refund's change to its order happens in ``PaymentLedger`` and ``RefundLedger``, in the same
/// transaction as the change itself.
public protocol OrderRecords: Sendable {
    /// - Throws: `StoreError.conflict` when the id or `outTradeNo` exists.
    func create(_ order: NewOrder, now: Date) async throws -> StoredOrder
    func order(id: String) async throws -> StoredOrder?
    func order(outTradeNo: String) async throws -> StoredOrder?
    /// Each of these orders' version (one read for many: what order streams compare to learn
    /// which orders changed); ids not found are left out.
    func versions(ofOrders ids: [String]) async throws -> [String: Int64]

    /// Orders newest first, optionally of one status and of one sub-merchant (`nil`: every
    /// merchant's), after the cursor `before` (an order id from the previous page).
    /// - Throws: `StoreError.notFound` when `before` names no order (of `merchant`).
    func orders(status: PaymentStatus?, merchant: String?, before: String?, limit: Int) async throws -> [StoredOrder]

    /// Orders still `created`, `pending` or `failed` whose expiry is before `date`, oldest first.
    func unpaidOrders(expiringBefore date: Date, limit: Int) async throws -> [StoredOrder]

    /// Closes an unpaid order and its open attempts (already closed at their providers).
    /// - Returns: `.unchanged` when it was closed already.
    /// - Throws: `StoreError.illegalTransition` when a payment has paid it, `.inProgress` while an
    ///   authorisation is in flight, `.notFound`.
    func close(orderID: String, record: EventRecord, now: Date) async throws -> TransitionOutcome
    /// Changes an unpaid order's lines and total (a shipping method or coupon chosen on the
    /// payment sheet), by compare-and-set on `version`.
    /// - Returns: the order afterwards; `nil` when its version moved (ask again with the new one).
    /// - Throws: `StoreError.illegalTransition` when the order is paid, closed or refunded, has
    ///   an attempt open at a wallet that would still take the old amount, or has been repriced
    ///   ``OrderStoreLimits/sheetChangesPerOrder`` times; `.inProgress` while an authorisation is
    ///   in flight; `.notFound`.
    func reprice(
        orderID: String, version: Int64, itemsJSON: String, total: Money, sheetJSON: String, record: EventRecord, now: Date
    ) async throws -> StoredOrder?
}

extension OrderRecords {
    /// ``create(_:now:)`` at the current time.
    public func create(_ order: NewOrder) async throws -> StoredOrder { try await create(order, now: Date()) }

    /// ``orders(status:merchant:before:limit:)`` of every merchant.
    public func orders(status: PaymentStatus?, before: String?, limit: Int) async throws -> [StoredOrder] {
        try await orders(status: status, merchant: nil, before: before, limit: limit)
    }
}
