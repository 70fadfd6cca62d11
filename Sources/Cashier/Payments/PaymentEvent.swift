/// What happens to an order; each event moves it along one of the legal transitions.
public enum PaymentEvent: String, Hashable, Sendable, Codable, CaseIterable {
    /// The app asked for payment parameters and a provider accepted the order.
    case paymentStarted = "payment_started"
    /// A verified notification or query says the money arrived.
    case paymentSucceeded = "payment_succeeded"
    /// The provider says the payment failed.
    case paymentFailed = "payment_failed"
    /// The merchant closed the order, or it expired.
    case closed
    /// Part of the remaining paid amount was refunded.
    case partiallyRefunded = "partially_refunded"
    /// The rest of the paid amount was refunded.
    case refunded
    /// A refund the provider had accepted failed after all; other refunds of the payment remain.
    case refundFailed = "refund_failed"
    /// A refund failed after all and no refund of the payment remains: it is simply paid again.
    case allRefundsFailed = "all_refunds_failed"
}
