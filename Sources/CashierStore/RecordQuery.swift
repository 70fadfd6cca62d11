public import Cashier
public import Foundation

/// Which orders, payments or refunds to list or export, and in which order.
///
/// ```swift
/// var query = RecordQuery(limit: 50)
/// query.provider = .alipay
/// query.status = "succeeded"
/// let page = try await store.payments(matching: query)
/// ```
public struct RecordQuery: Sendable, Equatable {
    /// Created at or after (orders, payments, refunds by their creation time).
    public var from: Date?
    /// Created before.
    public var until: Date?
    /// A status's JSON name (`paid`, `succeeded`, `failed`, …).
    public var status: String?
    /// Payments (and the refunds of payments) placed with this provider.
    public var provider: PaymentProvider?
    /// Payments (and the refunds of payments) of this method.
    public var method: PaymentMethod?
    /// An exact id, `out_trade_no`, provider transaction id or `out_refund_no`.
    public var search: String?
    /// Payments: only those waiting to be refunded (they paid twice, or paid a closed order).
    public var refundRequired = false
    /// Only the records of this sub-merchant's orders (what a key made with `--merchant` sees);
    /// `nil`: every merchant's.
    public var merchant: String? = nil
    /// Continue after the record with this id (the last of the previous page); a list throws
    /// `StoreError.notFound` when there is no such record (of `merchant`'s).
    public var after: String?
    /// Oldest first (exports); newest first otherwise (lists).
    public var oldestFirst: Bool
    public var limit: Int

    public init(
        from: Date? = nil, until: Date? = nil, status: String? = nil, provider: PaymentProvider? = nil, method: PaymentMethod? = nil,
        search: String? = nil, after: String? = nil, oldestFirst: Bool = false, limit: Int
    ) {
        self.from = from
        self.until = until
        self.status = status
        self.provider = provider
        self.method = method
        self.search = search
        self.after = after
        self.oldestFirst = oldestFirst
        self.limit = limit
    }
}
