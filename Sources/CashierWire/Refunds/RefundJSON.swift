/// A refund as the merchant API and webhooks show it.
public struct RefundJSON: Codable, Sendable, Equatable {
    public let id: String
    /// Always `refund`.
    public let object: String
    public let order_id: String
    /// The payment whose money it returns.
    public let payment_id: String
    /// `pending`, `succeeded`, `failed`.
    public let status: String
    public let amount: Amount
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

    public init(
        id: String, order_id: String, payment_id: String, status: String, amount: Amount, out_refund_no: String,
        provider_refund_id: String?, reason: String?, failure_reason: String?, requested_by: String?, created: Int64, confirmed: Int64?
    ) {
        self.id = id
        object = "refund"
        self.order_id = order_id
        self.payment_id = payment_id
        self.status = status
        self.amount = amount
        self.out_refund_no = out_refund_no
        self.provider_refund_id = provider_refund_id
        self.reason = reason
        self.failure_reason = failure_reason
        self.requested_by = requested_by
        self.created = created
        self.confirmed = confirmed
    }
}
