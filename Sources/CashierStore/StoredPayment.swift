public import Cashier
public import Foundation

/// One payment attempt as stored: one launch of one wallet for an order, with its own trade
/// number at that wallet. Refunds are reserved against it (``reserved``) before any provider is
/// asked, so they never add up to more than it took.
public struct StoredPayment: Sendable, Equatable {
    /// `pay_…`.
    public let id: String
    public let orderID: String
    public let method: PaymentMethod
    /// The provider and API generation the attempt was placed with.
    public let provider: PaymentProvider
    /// The merchant's trade number at the wallet: the order's own for its first attempt there,
    /// a derived one (`…P2`) for later ones.
    public let outTradeNo: String
    /// WeChat's appid (the app's or a mini program's) or Alipay's app_id.
    public let appID: String?
    /// WeChat's mch_id or Alipay's seller id, when known.
    public let merchantID: String?
    /// Who pays, when the method names them up front (the JSAPI or mini-program openid).
    public let payer: String?
    /// The provider's transaction id (`transaction_id`, `trade_no`) or the processor's reference.
    public let transactionID: String?
    /// Apple Pay: the token's `transactionId`, accepted once ever.
    public let walletToken: String?
    public let amount: Money
    /// What succeeded refunds have returned.
    public let refunded: Money
    /// What pending and succeeded refunds hold: never more than ``amount``.
    public let reserved: Money
    public let status: PaymentAttemptStatus
    /// The money arrived but must go back: another payment had already paid the order, or the
    /// order was closed. Cleared once refunds return all of it.
    public let refundRequired: Bool
    /// Why the attempt failed or was closed.
    public let failureReason: String?
    public let createdAt: Date
    public let updatedAt: Date
    public let succeededAt: Date?
    /// For a payment authorised without capture: whether it has been captured or voided; `nil`
    /// when the money moved as the payer paid (every wallet, and Apple Pay with automatic capture).
    public var capture: CaptureState? = nil
    /// The billing and shipping contacts the payer chose on the sheet (Apple Pay).
    public var contacts: PaymentContacts? = nil
    /// What profit-sharing splits hold of it (shares sent or being sent to receivers, less what
    /// returns took back): refunds and splits together never exceed ``amount``.
    public var sharedMinor: Int64 = 0

    /// What may still be refunded.
    /// Accepted by a card processor without a decision yet (a Stripe PaymentIntent `processing`,
    /// Adyen's `Received`; ``PaymentOutcome/accepted(transactionID:)``): the money may still move,
    /// so nothing else may start, reprice or close the order until the processor says. (Only such
    /// an attempt has a transaction id while it is pending: other providers give one when paid.)
    public var awaitsProcessorDecision: Bool { status == .pending && transactionID != nil }

    public var refundable: Money {
        Money(minorUnits: amount.minorUnits - reserved.minorUnits - sharedMinor, currency: amount.currency)
    }
    /// What may still be shared with receivers: what neither refunds nor splits hold.
    public var shareable: Money { refundable }

    /// `true` when the attempt is one of the kind `other` describes: same method, provider, app and payer.
    public func matches(_ other: NewPayment) -> Bool {
        method == other.method && provider == other.provider && appID == other.appID && payer == other.payer
    }
}
