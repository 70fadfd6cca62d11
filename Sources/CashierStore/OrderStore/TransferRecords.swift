public import Cashier
public import Foundation

/// Transfers out (WeChat Pay's 商家转账): each reserved under its `out_bill_no` before the
/// provider is asked — once, however many requests or instances ask at once — and moved by the
/// provider's word by compare-and-set, never out of a final status. Part of ``OrderStore``.
public protocol TransferRecords: Sendable {
    /// Reserves `transfer` under its `out_bill_no`, or finds the one reserved under it already.
    /// - Returns: the transfer, and whether this call reserved it.
    func reserveTransfer(_ transfer: NewTransfer, now: Date) async throws -> (transfer: StoredTransfer, reserved: Bool)
    /// Records what the provider says of transfer `id`, unless it has ended already.
    /// - Throws: `StoreError.notFound`.
    func moveTransfer(_ id: String, to progress: TransferProgress, now: Date) async throws -> TransferMoved
    func transfer(id: String) async throws -> StoredTransfer?
    func transfer(provider: String, outBillNo: String) async throws -> StoredTransfer?
    /// Transfers of `merchant` (every one when `nil`), newest first.
    func transfers(merchant: String?, limit: Int, offset: Int) async throws -> [StoredTransfer]
    /// Transfers not ended, last changed before `before`, oldest first: what the query job asks about.
    func unfinishedTransfers(before: Date, limit: Int) async throws -> [StoredTransfer]
    /// Transfers that ended in `[from, until)`, oldest first (reconciliation).
    func finishedTransfers(from: Date, until: Date) async throws -> [StoredTransfer]
    /// Transfers of `merchant` (every one when `nil`) created in `[from, until)`, oldest first (exports).
    func transfers(createdFrom from: Date, until: Date, merchant: String?, limit: Int, offset: Int) async throws -> [StoredTransfer]
}
