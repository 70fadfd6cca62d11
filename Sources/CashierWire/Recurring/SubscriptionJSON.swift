/// A subscription as `/v1/subscriptions` and its webhooks give it: an amount charged under an
/// agreement once every period, from its anchor.
public struct SubscriptionJSON: Codable, Sendable, Equatable {
    /// `sub_…`.
    public let id: String
    public let object: String
    /// The agreement its charges are made under (`agr_…`).
    public let agreement: String
    /// `active`, `past_due`, `paused`, `canceled`.
    public let status: String
    public let amount: Amount
    public let description: String
    /// One charge every `count` `unit`s.
    public let interval: AgreementJSON.Period
    /// Unix seconds: when the first period begins.
    public let anchor: Int64
    /// The periods opened so far (the last one's number).
    public let current_period: Int
    /// Unix seconds: when the next period's charge is due; `null` once canceled.
    public let next_charge: Int64?
    /// How many attempts a period's charge gets before the subscription is canceled.
    public let max_attempts: Int
    /// Why it was canceled.
    public let cancel_reason: String?
    public let merchant: String?
    /// Unix seconds.
    public let created: Int64
    public let canceled: Int64?
    /// Its invoices, newest first (`GET /v1/subscriptions/{id}` only).
    public let invoices: [InvoiceJSON]?

    public init(
        id: String, agreement: String, status: String, amount: Amount, description: String, interval: AgreementJSON.Period, anchor: Int64,
        current_period: Int, next_charge: Int64?, max_attempts: Int, cancel_reason: String?, merchant: String?, created: Int64,
        canceled: Int64?, invoices: [InvoiceJSON]?
    ) {
        self.id = id
        object = "subscription"
        self.agreement = agreement
        self.status = status
        self.amount = amount
        self.description = description
        self.interval = interval
        self.anchor = anchor
        self.current_period = current_period
        self.next_charge = next_charge
        self.max_attempts = max_attempts
        self.cancel_reason = cancel_reason
        self.merchant = merchant
        self.created = created
        self.canceled = canceled
        self.invoices = invoices
    }
}
