/// The JSON shape of an order in the merchant API: the order, every payment attempt it had (one
/// per wallet launch; at most one settles it) and every refund.
public struct OrderJSON: Codable, Sendable, Equatable {
    public let id: String
    /// Always `order`.
    public let object: String
    public let out_trade_no: String
    public let status: String
    public let amount: Amount
    /// What succeeded refunds of the settling payment returned.
    public let amount_refunded: Amount
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
    /// `true` when the order was placed to be shared with receivers (profit sharing); absent otherwise.
    public let profit_sharing: Bool?

    public init(
        id: String, out_trade_no: String, status: String, amount: Amount, amount_refunded: Amount, description: String,
        metadata: [String: String], client_secret: String?, refund_required: Bool, payment_id: String?, payments: [PaymentJSON],
        refunds: [RefundJSON], created: Int64, expires: Int64?, checkout_url: String?, return_url: String?, merchant: String?,
        profit_sharing: Bool? = nil
    ) {
        self.id = id
        object = "order"
        self.out_trade_no = out_trade_no
        self.status = status
        self.amount = amount
        self.amount_refunded = amount_refunded
        self.description = description
        self.metadata = metadata
        self.client_secret = client_secret
        self.refund_required = refund_required
        self.payment_id = payment_id
        self.payments = payments
        self.refunds = refunds
        self.created = created
        self.expires = expires
        self.checkout_url = checkout_url
        self.return_url = return_url
        self.merchant = merchant
        self.profit_sharing = profit_sharing
    }
}
