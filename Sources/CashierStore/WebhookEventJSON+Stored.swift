public import CashierWire

extension WebhookEventJSON {
    /// The event `type` about `order` (and `payment`, `refund` or `dispute`), created at `created` (Unix seconds).
    public init(
        id: String, type: String, created: Int64, order: StoredOrder, payment: StoredPayment? = nil, refund: StoredRefund? = nil,
        dispute: DisputeJSON? = nil
    ) {
        self.init(
            id: id, type: type, created: created,
            data: Data(
                order_id: order.id, out_trade_no: order.outTradeNo, status: order.status.rawValue, amount: Amount(order.total),
                amount_refunded: Amount(order.refunded), refund_required: order.refundRequired, payment: payment.map(PaymentJSON.init),
                refund: refund.map(RefundJSON.init), dispute: dispute))
    }
}

extension WebhookEventJSON {
    /// The event `type` about `complaint`, which concerns `order`, created at `created` (Unix seconds).
    public init(id: String, type: String, created: Int64, order: StoredOrder, complaint: ComplaintJSON) {
        var data = Data(
            order_id: order.id, out_trade_no: order.outTradeNo, status: order.status.rawValue, amount: Amount(order.total),
            amount_refunded: Amount(order.refunded), refund_required: order.refundRequired, payment: nil, refund: nil, dispute: nil)
        data.complaint = complaint
        self.init(id: id, type: type, created: created, data: data)
    }
}
