public import Cashier

/// A refund as the merchant API and webhooks show it.
public struct RefundJSON: Encodable, Sendable, Equatable {
    public let id: String
    public let object = "refund"
    public let order_id: String
    /// The payment whose money it returns.
    public let payment_id: String
    /// `pending`, `succeeded`, `failed`.
    public let status: String
    public let amount: Money
    public let out_refund_no: String
    public let provider_refund_id: String?
    public let reason: String?
    public let failure_reason: String?
    /// Who asked for it: `api`, `dashboard …`, `automatic`; or the provider or processor that moved
    /// the money by itself — `wechat`, `alipay` (refunded in its console), `stripe` (its Dashboard,
    /// a dispute, a lapse), `adyen` (its Customer Area, a chargeback, a failed capture, a lapse).
    public let requested_by: String?
    public let created: Int64
    /// When the provider's final word arrived (Unix seconds); absent while a `succeeded` refund is
    /// only accepted (WeChat `PROCESSING`, a Stripe refund not yet asked about, Adyen `received`)
    /// — it may still fail, and then comes back `failed` with `order.refund_failed`.
    public let confirmed: Int64?

    public init(_ refund: StoredRefund) {
        id = refund.id
        order_id = refund.orderID
        payment_id = refund.paymentID
        status = refund.status.rawValue
        amount = refund.amount
        out_refund_no = refund.outRefundNo
        provider_refund_id = refund.providerRefundID
        reason = refund.reason
        failure_reason = refund.failureReason
        requested_by = refund.requestedBy
        created = Int64(refund.createdAt.timeIntervalSince1970)
        confirmed = refund.confirmedAt.map { Int64($0.timeIntervalSince1970) }
    }
}
