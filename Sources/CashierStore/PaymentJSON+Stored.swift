import Cashier
public import CashierWire

extension PaymentJSON {
    /// `payment` as the merchant API and webhooks show it.
    public init(_ payment: StoredPayment) {
        self.init(
            id: payment.id, order_id: payment.orderID, method: payment.method.rawValue, provider: payment.provider.rawValue,
            status: payment.status.rawValue, out_trade_no: payment.outTradeNo, transaction_id: payment.transactionID,
            app_id: payment.appID, amount: Amount(payment.amount), amount_refunded: Amount(payment.refunded),
            amount_reserved: Amount(payment.reserved), refund_required: payment.refundRequired, failure_reason: payment.failureReason,
            created: Int64(payment.createdAt.timeIntervalSince1970), succeeded: payment.succeededAt.map { Int64($0.timeIntervalSince1970) },
            capture: payment.capture?.rawValue, billing_contact: payment.contacts?.billing, shipping_contact: payment.contacts?.shipping)
    }
}
