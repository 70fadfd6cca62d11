public import CashierWire

extension RefundJSON {
    /// `refund` as the merchant API and webhooks show it.
    public init(_ refund: StoredRefund) {
        self.init(
            id: refund.id, order_id: refund.orderID, payment_id: refund.paymentID, status: refund.status.rawValue,
            amount: Amount(refund.amount), out_refund_no: refund.outRefundNo, provider_refund_id: refund.providerRefundID,
            reason: refund.reason, failure_reason: refund.failureReason, requested_by: refund.requestedBy,
            created: Int64(refund.createdAt.timeIntervalSince1970), confirmed: refund.confirmedAt.map { Int64($0.timeIntervalSince1970) })
    }
}
