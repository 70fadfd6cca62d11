public import Cashier

/// What ``PaymentLedger/beginPayment(_:now:)`` takes: one wallet launch for an order.
public struct NewPayment: Sendable {
    public var id: String
    public var orderID: String
    public var method: PaymentMethod
    public var provider: PaymentProvider
    public var appID: String?
    public var merchantID: String?
    public var payer: String?
    /// `.created` for a wallet launch (``PaymentOutcome/placed`` once the provider accepts it),
    /// `.processing` for an authorisation about to be sent to a processor (Apple Pay): then no
    /// other attempt may start or authorise until it is recorded.
    public var status: PaymentAttemptStatus
    /// Apple Pay: the token's `transactionId` (refused if any payment ever used it).
    public var walletToken: String?
    /// The event log line written with it; `nil` to log the start when it is placed.
    public var record: EventRecord?

    public init(
        id: String = NewPayment.makeID(), orderID: String, method: PaymentMethod, provider: PaymentProvider, appID: String? = nil,
        merchantID: String? = nil, payer: String? = nil, status: PaymentAttemptStatus = .created, walletToken: String? = nil,
        record: EventRecord? = nil
    ) {
        self.id = id
        self.orderID = orderID
        self.method = method
        self.provider = provider
        self.appID = appID
        self.merchantID = merchantID
        self.payer = payer
        self.status = status
        self.walletToken = walletToken
        self.record = record
    }

    /// `pay_` and 24 random letters and digits.
    public static func makeID() -> String { "pay_" + RandomText.alphanumeric(count: 24) }
}
