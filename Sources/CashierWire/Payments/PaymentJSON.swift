/// A payment attempt as the merchant API and webhooks show it.
public struct PaymentJSON: Codable, Sendable, Equatable {
    public let id: String
    /// Always `payment`.
    public let object: String
    public let order_id: String
    /// `wechat.native`, `alipay.qr`, `applepay`, …
    public let method: String
    /// `wechat.v2`, `wechat.v3`, `alipay`, `applepay`.
    public let provider: String
    /// `pending`, `processing`, `succeeded`, `failed`, `closed`.
    public let status: String
    public let out_trade_no: String
    public let transaction_id: String?
    public let app_id: String?
    public let amount: Amount
    public let amount_refunded: Amount
    /// What pending and succeeded refunds hold (never more than `amount`).
    public let amount_reserved: Amount
    /// This payment's money must go back (it paid a closed order, or another payment paid first).
    public let refund_required: Bool
    public let failure_reason: String?
    public let created: Int64
    public let succeeded: Int64?
    /// A card payment authorised without capture: `uncaptured`, `captured` or `voided`; `failed`
    /// when the processor reported its capture failed (no money moved; what it was to take is
    /// recorded as a refund, reason `capture failed`). Absent when the money moved as the payer
    /// paid, unless that capture failed.
    public let capture: String?
    /// The contacts the payer chose on the Apple Pay sheet, when it asked for them.
    public let billing_contact: PaymentContact?
    public let shipping_contact: PaymentContact?

    public init(
        id: String, order_id: String, method: String, provider: String, status: String, out_trade_no: String, transaction_id: String?,
        app_id: String?, amount: Amount, amount_refunded: Amount, amount_reserved: Amount, refund_required: Bool,
        failure_reason: String?, created: Int64, succeeded: Int64?, capture: String?, billing_contact: PaymentContact?,
        shipping_contact: PaymentContact?
    ) {
        self.id = id
        object = "payment"
        self.order_id = order_id
        self.method = method
        self.provider = provider
        self.status = status
        self.out_trade_no = out_trade_no
        self.transaction_id = transaction_id
        self.app_id = app_id
        self.amount = amount
        self.amount_refunded = amount_refunded
        self.amount_reserved = amount_reserved
        self.refund_required = refund_required
        self.failure_reason = failure_reason
        self.created = created
        self.succeeded = succeeded
        self.capture = capture
        self.billing_contact = billing_contact
        self.shipping_contact = shipping_contact
    }
}
