public import Cashier

/// What a webhook delivers: one event about an order — the order as it was when the event
/// happened, and the payment or refund the event is about.
public struct WebhookEventJSON: Encodable, Sendable {
    public struct Data: Encodable, Sendable {
        public let order_id: String
        public let out_trade_no: String
        public let status: String
        public let amount: Money
        public let amount_refunded: Money
        public let refund_required: Bool
        public let payment: PaymentJSON?
        public let refund: RefundJSON?
        /// `order.disputed`: the dispute.
        public let dispute: DisputeJSON?
    }

    /// `evt_…`, also sent as `Cashier-Event-Id`: the same on every retry of this event.
    public let id: String
    /// `order.paid`, `order.refunded`, `order.refund_failed`, `order.closed`, `order.refund_required`,
    /// `order.disputed`.
    public let type: String
    /// Unix seconds.
    public let created: Int64
    public let data: Data

    /// The event `type` about `order` (and `payment`, `refund` or `dispute`), created at `created` (Unix seconds).
    public init(
        id: String, type: String, created: Int64, order: StoredOrder, payment: StoredPayment? = nil, refund: StoredRefund? = nil,
        dispute: DisputeJSON? = nil
    ) {
        self.id = id
        self.type = type
        self.created = created
        data = Data(
            order_id: order.id, out_trade_no: order.outTradeNo, status: order.status.rawValue, amount: order.total,
            amount_refunded: order.refunded, refund_required: order.refundRequired, payment: payment.map(PaymentJSON.init),
            refund: refund.map(RefundJSON.init), dispute: dispute)
    }

    /// Every event type a webhook carries.
    public static let types = [
        "order.paid", "order.refunded", "order.refund_failed", "order.closed", "order.refund_required", "order.disputed",
    ]
}
