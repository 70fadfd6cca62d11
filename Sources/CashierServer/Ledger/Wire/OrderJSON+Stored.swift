import Cashier
public import CashierStore
public import CashierWire
import Foundation

extension OrderJSON {
    /// `order` as the merchant API shows it, with those of `payments` and `refunds` that are its own.
    /// - Parameter base: where the server is reached (`https://pay.example.com`), for ``checkout_url``.
    public init(
        _ order: StoredOrder, payments: [StoredPayment] = [], refunds: [StoredRefund] = [], includeSecret: Bool, base: String,
        includeCheckoutURL: Bool = true
    ) {
        self.init(
            id: order.id, out_trade_no: order.outTradeNo, status: order.status.rawValue, amount: Amount(order.total),
            amount_refunded: Amount(order.refunded), description: order.description, metadata: order.metadata,
            client_secret: includeSecret ? order.clientSecret : nil, refund_required: order.refundRequired,
            payment_id: order.settledPaymentID, payments: payments.filter { $0.orderID == order.id }.map(PaymentJSON.init),
            refunds: refunds.filter { $0.orderID == order.id }.map(RefundJSON.init), created: Int64(order.createdAt.timeIntervalSince1970),
            expires: order.expiresAt.map { Int64($0.timeIntervalSince1970) },
            checkout_url: includeCheckoutURL ? CheckoutLink.short(base: base, order: order) : nil, return_url: order.returnURL,
            merchant: order.merchant, profit_sharing: order.profitSharing ? true : nil)
    }
}
