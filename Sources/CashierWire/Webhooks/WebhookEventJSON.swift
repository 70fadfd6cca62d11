/// What a webhook delivers: one event about an order — the order as it was when the event
/// happened, and the payment or refund the event is about.
///
/// ```swift
/// let event = try JSONDecoder().decode(WebhookEventJSON.self, from: body)  // after checking Cashier-Signature
/// if event.type == "order.paid" { fulfil(event.data.order_id) }
/// ```
public struct WebhookEventJSON: Codable, Sendable, Equatable {
    public struct Data: Codable, Sendable, Equatable {
        public let order_id: String
        public let out_trade_no: String
        public let status: String
        public let amount: Amount
        public let amount_refunded: Amount
        public let refund_required: Bool
        public let payment: PaymentJSON?
        public let refund: RefundJSON?
        /// `order.disputed`: the dispute.
        public let dispute: DisputeJSON?
        /// `complaint.created`, `complaint.updated`, `complaint.overdue`: the complaint (without the payer's phone).
        public var complaint: ComplaintJSON? = nil

        public init(
            order_id: String, out_trade_no: String, status: String, amount: Amount, amount_refunded: Amount, refund_required: Bool,
            payment: PaymentJSON?, refund: RefundJSON?, dispute: DisputeJSON?
        ) {
            self.order_id = order_id
            self.out_trade_no = out_trade_no
            self.status = status
            self.amount = amount
            self.amount_refunded = amount_refunded
            self.refund_required = refund_required
            self.payment = payment
            self.refund = refund
            self.dispute = dispute
        }
    }

    /// `evt_…`, also sent as `Cashier-Event-Id`: the same on every retry of this event.
    public let id: String
    /// `order.paid`, `order.refunded`, `order.refund_failed`, `order.closed`, `order.refund_required`,
    /// `order.disputed`, `complaint.created`, `complaint.updated`, `complaint.overdue`.
    public let type: String
    /// Unix seconds.
    public let created: Int64
    public let data: Data

    public init(id: String, type: String, created: Int64, data: Data) {
        self.id = id
        self.type = type
        self.created = created
        self.data = data
    }

    /// Every event type a webhook carries.
    public static let types = [
        "order.paid", "order.refunded", "order.refund_failed", "order.closed", "order.refund_required", "order.disputed",
        "complaint.created", "complaint.updated", "complaint.overdue",
    ]
}
