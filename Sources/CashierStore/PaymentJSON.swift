public import Cashier

/// A payment attempt as the merchant API and webhooks show it.
public struct PaymentJSON: Encodable, Sendable, Equatable {
    public let id: String
    public let object = "payment"
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
    public let amount: Money
    public let amount_refunded: Money
    /// What pending and succeeded refunds hold (never more than `amount`).
    public let amount_reserved: Money
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

    public init(_ payment: StoredPayment) {
        id = payment.id
        order_id = payment.orderID
        method = payment.method.rawValue
        provider = payment.provider.rawValue
        status = payment.status.rawValue
        out_trade_no = payment.outTradeNo
        transaction_id = payment.transactionID
        app_id = payment.appID
        amount = payment.amount
        amount_refunded = payment.refunded
        amount_reserved = payment.reserved
        refund_required = payment.refundRequired
        failure_reason = payment.failureReason
        created = Int64(payment.createdAt.timeIntervalSince1970)
        succeeded = payment.succeededAt.map { Int64($0.timeIntervalSince1970) }
        capture = payment.capture?.rawValue
        billing_contact = payment.contacts?.billing
        shipping_contact = payment.contacts?.shipping
    }
}
