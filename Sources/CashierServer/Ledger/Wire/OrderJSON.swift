public import Cashier
public import CashierStore
import Foundation

/// The JSON shape of an order in the merchant API: the order, every payment attempt it had (one
/// per wallet launch; at most one settles it) and every refund.
public struct OrderJSON: Encodable, Sendable {
    public let id: String
    public let object = "order"
    public let out_trade_no: String
    public let status: String
    public let amount: Money
    /// What succeeded refunds of the settling payment returned.
    public let amount_refunded: Money
    public let description: String
    public let metadata: [String: String]
    /// Only to the secret key and in the creation answer: the app uses it with the publishable key.
    public let client_secret: String?
    /// Money arrived that must go back (a payment for a closed order, or a second payment): see
    /// `payments[].refund_required`.
    public let refund_required: Bool
    /// The payment that paid the order.
    public let payment_id: String?
    public let payments: [PaymentJSON]
    public let refunds: [RefundJSON]
    public let created: Int64
    public let expires: Int64?
    /// A short link to the hosted checkout page for this order (`…/c/{client_secret}`, which
    /// leads to `…/pay/{id}?client_secret=…`; `?return_url=` is passed on): a link to send the
    /// payer, which picks the wallet for their device. It carries the client secret, so it is
    /// shown only to whoever holds that secret already (never in the order's event stream).
    public let checkout_url: String?
    /// Where the checkout page sends the payer once paid.
    public let return_url: String?
    /// The sub-merchant the order is for; absent for the direct merchant.
    public let merchant: String?

    /// - Parameter base: where the server is reached (`https://pay.example.com`), for ``checkout_url``.
    public init(
        _ order: StoredOrder, payments: [StoredPayment] = [], refunds: [StoredRefund] = [], includeSecret: Bool, base: String,
        includeCheckoutURL: Bool = true
    ) {
        id = order.id
        out_trade_no = order.outTradeNo
        status = order.status.rawValue
        amount = order.total
        amount_refunded = order.refunded
        description = order.description
        metadata = order.metadata
        client_secret = includeSecret ? order.clientSecret : nil
        refund_required = order.refundRequired
        payment_id = order.settledPaymentID
        self.payments = payments.filter { $0.orderID == order.id }.map(PaymentJSON.init)
        self.refunds = refunds.filter { $0.orderID == order.id }.map(RefundJSON.init)
        created = Int64(order.createdAt.timeIntervalSince1970)
        expires = order.expiresAt.map { Int64($0.timeIntervalSince1970) }
        checkout_url = includeCheckoutURL ? CheckoutLink.short(base: base, order: order) : nil
        return_url = order.returnURL
        merchant = order.merchant
    }
}
