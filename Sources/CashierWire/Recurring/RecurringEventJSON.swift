/// A webhook about an agreement, a subscription or one period's invoice: `data` holds the one it is
/// about (an invoice's event also its subscription).
public struct RecurringEventJSON: Codable, Sendable, Equatable {
    public struct Data: Codable, Sendable, Equatable {
        public let agreement: AgreementJSON?
        public let subscription: SubscriptionJSON?
        public let invoice: InvoiceJSON?
        public init(agreement: AgreementJSON? = nil, subscription: SubscriptionJSON? = nil, invoice: InvoiceJSON? = nil) {
            self.agreement = agreement
            self.subscription = subscription
            self.invoice = invoice
        }
    }

    /// `evt_…`, also sent as `Cashier-Event-Id`.
    public let id: String
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

    /// Every recurring event type: an agreement signed, ended or never signed; a subscription
    /// created, behind on a charge, paused, resumed or canceled; a period paid or an attempt failed.
    public static let types = [
        "agreement.active", "agreement.terminated", "agreement.failed", "subscription.created", "subscription.past_due",
        "subscription.paused", "subscription.resumed", "subscription.canceled", "invoice.paid", "invoice.payment_failed",
    ]
}
