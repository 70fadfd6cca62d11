public import Foundation

/// Refunds: reserved against their payment before the provider is asked, finished once, never
/// more than the payment took however many arrive at once. Part of ``OrderStore``.
public protocol RefundLedger: Sendable {
    /// Checks and reserves a refund against its payment in one transaction (the order's row
    /// locked): the amount never exceeds what the payment took less what other refunds hold,
    /// however many arrive at once. A refund number seen before returns that refund instead.
    /// - Throws: `StoreError.limitExceeded` (too much, or nothing left), `.illegalTransition`
    ///   (nothing was paid), `.conflict` (the number names another refund), `.notFound`.
    func reserveRefund(_ refund: NewRefund, now: Date) async throws -> RefundReservation

    /// Records the provider's answer: a success counts the refund against the order; a failure
    /// releases the reservation (or takes back a success) and sends `order.refund_failed`.
    func finishRefund(_ refundID: String, outcome: RefundOutcome, now: Date) async throws -> RefundFinished

    func refund(id: String) async throws -> StoredRefund?
    func refund(outRefundNo: String) async throws -> StoredRefund?
    /// The refunds of these orders, oldest first.
    func refunds(orderIDs: [String]) async throws -> [StoredRefund]
    /// Refunds still `pending` created before `date` (asked about by the refund job).
    func pendingRefunds(createdBefore date: Date, limit: Int) async throws -> [StoredRefund]
    /// Refunds that succeeded in `[from, until)` (reconciliation).
    func succeededRefunds(from: Date, until: Date) async throws -> [StoredRefund]
    /// Refunds the provider accepted before `date` but has not confirmed (the refund job asks).
    func unconfirmedRefunds(acceptedBefore date: Date, limit: Int) async throws -> [StoredRefund]
}

extension RefundLedger {
    /// The refunds of one order, oldest first.
    public func refunds(orderID: String) async throws -> [StoredRefund] { try await refunds(orderIDs: [orderID]) }
}
