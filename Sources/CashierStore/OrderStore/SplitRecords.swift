public import Foundation

/// Profit sharing: receivers, splits reserved against their order's payment — with refunds, under
/// the order's lock, so that together they never move more than it took, however many arrive at
/// once on however many instances — and returns reserved against one share. Moved by the
/// provider's word by compare-and-set, never out of a final status. Part of ``OrderStore``.
public protocol SplitRecords: Sendable {
    /// Records a receiver the provider accepted, or finds the same one (same merchant, provider,
    /// type and account) and makes it active again. - Returns: the receiver and whether it is new.
    func saveReceiver(_ receiver: StoredReceiver, now: Date) async throws -> (receiver: StoredReceiver, created: Bool)
    /// Marks a receiver removed. - Throws: `StoreError.notFound`.
    func removeReceiver(_ id: String, now: Date) async throws -> StoredReceiver
    func receiver(id: String) async throws -> StoredReceiver?
    /// The receiver of `merchant` (the platform's when `nil`) at `provider` with this type and account.
    func receiver(merchant: String?, provider: String, type: String, account: String) async throws -> StoredReceiver?
    /// Receivers of `merchant` (the platform's when `nil`), newest first; removed ones only when asked.
    func receivers(merchant: String?, includingRemoved: Bool, limit: Int, offset: Int) async throws -> [StoredReceiver]

    /// Checks and reserves `split` against the order's succeeded payment in one transaction (the
    /// order locked): the order must be placed for profit sharing and its sharing not finished, and
    /// the shares never exceed what the payment took less what refunds and other splits hold.
    /// A number seen before returns that split instead.
    /// - Throws: `StoreError.limitExceeded` (too much), `.illegalTransition` (not paid, not placed
    ///   for sharing, sharing finished), `.conflict` (the number names another order's split), `.notFound`.
    func reserveSplit(_ split: NewSplit, now: Date) async throws -> SplitReservation
    /// Records what the provider says of split `id` (shares closed release what they held; a
    /// failure releases all of it), unless it has ended already. - Throws: `StoreError.notFound`.
    func moveSplit(_ id: String, to progress: SplitProgress, now: Date) async throws -> SplitMoved
    func split(id: String) async throws -> StoredSplit?
    func split(provider: String, outOrderNo: String) async throws -> StoredSplit?
    /// The splits of an order, oldest first.
    func splits(orderID: String) async throws -> [StoredSplit]
    /// Splits of `merchant` (every one when `nil`), newest first.
    func splits(merchant: String?, limit: Int, offset: Int) async throws -> [StoredSplit]
    /// Splits not ended, last changed before `before`, oldest first: what the query job asks about.
    func unfinishedSplits(before: Date, limit: Int) async throws -> [StoredSplit]
    /// Splits that finished in `[from, until)` (reconciliation, exports).
    func finishedSplits(from: Date, until: Date) async throws -> [StoredSplit]
    /// Splits of `merchant` (every one when `nil`) created in `[from, until)`, oldest first (exports).
    func splits(createdFrom from: Date, until: Date, merchant: String?, limit: Int, offset: Int) async throws -> [StoredSplit]

    /// Reserves a return of `amount` from the receiver `account` of split `splitID`: never more
    /// than that share brought them less other returns. A number seen before returns that return.
    /// - Throws: `StoreError.limitExceeded`, `.illegalTransition` (the share did not arrive), `.conflict`, `.notFound`.
    func reserveSplitReturn(_ splitReturn: NewSplitReturn, now: Date) async throws -> (splitReturn: StoredSplitReturn, reserved: Bool)
    /// Records the provider's answer on a return: a success gives the amount back to the payment
    /// (refundable again); a failure releases it. Unchanged once final.
    func moveSplitReturn(_ id: String, to progress: SplitReturnProgress, now: Date) async throws -> StoredSplitReturn
    func splitReturn(id: String) async throws -> StoredSplitReturn?
    /// The returns of an order, oldest first.
    func splitReturns(orderID: String) async throws -> [StoredSplitReturn]
    /// Returns still pending, last changed before `before`.
    func pendingSplitReturns(before: Date, limit: Int) async throws -> [StoredSplitReturn]
}

/// A return to reserve (``SplitRecords/reserveSplitReturn(_:now:)``).
public struct NewSplitReturn: Sendable, Equatable {
    public let id: String
    public let splitID: String
    public let outReturnNo: String
    public let account: String
    public let amountMinor: Int64
    public let description: String

    public init(id: String, splitID: String, outReturnNo: String, account: String, amountMinor: Int64, description: String) {
        self.id = id
        self.splitID = splitID
        self.outReturnNo = outReturnNo
        self.account = account
        self.amountMinor = amountMinor
        self.description = description
    }
}
