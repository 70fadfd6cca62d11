/// What an event-log line records. A type rather than a string, so a misspelt kind does not
/// compile; unknown kinds read from an older database keep their raw text.
public struct EventKind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    /// The order's status moved as its records did, with nothing else to log.
    public static let transition = EventKind(rawValue: "transition")
    /// A payment attempt was placed with its provider (method, API, appid, payment id).
    public static let paymentStarted = EventKind(rawValue: "payment_started")
    /// A verified notification (its fields and body hash): the change it caused, if any.
    public static let notification = EventKind(rawValue: "notification")
    /// A verified notification that changed nothing: it had been applied already.
    public static let notificationDuplicate = EventKind(rawValue: "notification_duplicate")
    /// A notification that failed a check (merchant, amount, currency, unknown order): nothing changed.
    public static let notificationRefused = EventKind(rawValue: "notification_refused")
    /// The provider confirmed a payment when asked (the query fallback).
    public static let query = EventKind(rawValue: "query")
    /// A second payment arrived for an order already paid by another: recorded, to be refunded.
    public static let duplicatePayment = EventKind(rawValue: "duplicate_payment")
    /// An attempt was closed at its provider (another method started, or the order closed).
    public static let paymentClosed = EventKind(rawValue: "payment_closed")
    /// An attempt failed at its provider (refused when placed, or the payer's payment failed).
    public static let paymentFailed = EventKind(rawValue: "payment_failed")
    /// A refund succeeded at the provider.
    public static let refund = EventKind(rawValue: "refund")
    /// A refund was refused, or reported failed after it had been accepted; its amount is released.
    public static let refundFailed = EventKind(rawValue: "refund_failed")
    /// The provider's refund result (a notification) for a refund already recorded.
    public static let refundNotification = EventKind(rawValue: "refund_notification")
    /// The merchant closed the order.
    public static let close = EventKind(rawValue: "close")
    /// The expiry job closed the order.
    public static let expired = EventKind(rawValue: "expired")
    /// An operator asked for a webhook to be sent again (`by`: the API or a dashboard session).
    public static let webhookResent = EventKind(rawValue: "webhook_resent")
    /// An Apple Pay token was authorised by the processor.
    public static let applePayAuthorized = EventKind(rawValue: "applepay_authorized")
    /// The processor declined an Apple Pay token.
    public static let applePayDeclined = EventKind(rawValue: "applepay_declined")
    /// The processor accepted an Apple Pay authorisation without deciding it (a Stripe
    /// PaymentIntent `processing`): nothing is paid until it says, by webhook or when asked.
    public static let applePayProcessing = EventKind(rawValue: "applepay_processing")
    /// An authorised card payment was captured at its processor (all, or part with the rest released).
    public static let applePayCaptured = EventKind(rawValue: "applepay_captured")
    /// An authorised card payment was released at its processor before capture.
    public static let applePayVoided = EventKind(rawValue: "applepay_voided")
    /// A captured card payment's capture failed at the card scheme (Adyen `CAPTURE_FAILED`): no money moved.
    public static let applePayCaptureFailed = EventKind(rawValue: "applepay_capture_failed")
    /// A dispute event from the card processor that moves no money (a chargeback announced, a
    /// request for information), or one that could not be applied.
    public static let dispute = EventKind(rawValue: "dispute")
    /// The payer changed the payment sheet (a shipping method, a coupon): the order's lines and total changed.
    public static let sheetUpdated = EventKind(rawValue: "sheet_updated")
    /// A coupon code the payment sheet sent that is not one of the merchant's (a guess, or a typo):
    /// counted on the order, which takes no more codes after a few.
    public static let couponRefused = EventKind(rawValue: "coupon_refused")
    /// An Apple Pay token failed verification, decryption or the amount check.
    public static let applePayRefused = EventKind(rawValue: "applepay_refused")
}
