public import Cashier
public import Foundation

/// Payers' complaints (WeChat Pay's 消费者投诉): recorded from what the provider says, once per
/// change however many instances sync it at once, linked to the payment they concern, listed by
/// deadline; each change that concerns one of Cashier's orders queues its webhook in the same
/// transaction (`complaint.created`, `complaint.updated`, `complaint.overdue`). Part of ``OrderStore``.
public protocol ComplaintRecords: Sendable {
    /// Records what the provider says of a complaint now: new, changed (anything in `snapshot`,
    /// or the payment it concerns found since), or as before. The payment is the one with the
    /// snapshot's trade number at `wallet`.
    func recordComplaint(_ snapshot: ComplaintSnapshot, wallet: PaymentMethod.Wallet, now: Date) async throws -> ComplaintRecorded
    func complaint(id: String) async throws -> StoredComplaint?
    func complaint(provider: String, providerComplaintID: String) async throws -> StoredComplaint?
    /// Complaints in `states` (all when empty), of `merchant` when given: open ones first, the
    /// nearest deadline first; handled ones after, newest first.
    func complaints(merchant: String?, states: Set<StoredComplaint.State>, limit: Int, offset: Int) async throws -> [StoredComplaint]
    /// The complaints of an order, oldest first.
    func complaints(orderID: String) async throws -> [StoredComplaint]
    /// Records the merchant's decision on a complaint's refund (`approved`, `rejected`) and the refund made for it.
    /// - Throws: `StoreError.notFound`, `.conflict` when another decision was recorded.
    func decideComplaintRefund(_ id: String, decision: String, refundID: String?, now: Date) async throws -> StoredComplaint
    /// Open complaints past a deadline whose miss is not announced yet.
    func overdueComplaints(now: Date, limit: Int) async throws -> [StoredComplaint]
    /// Marks complaint `id`'s missed deadlines announced and queues `complaint.overdue` (when it
    /// concerns one of Cashier's orders) — once per deadline, however often asked.
    /// - Returns: whether this call announced one.
    @discardableResult
    func announceOverdueComplaint(_ id: String, now: Date) async throws -> Bool
    /// How many complaints are open, and how many of those are past a deadline at `now`.
    func complaintCounts(merchant: String?, now: Date) async throws -> (open: Int, overdue: Int)
}
