public import Cashier

/// What a provider said about one payment attempt.
public enum PaymentOutcome: Sendable, Equatable {
    /// The provider accepted the attempt and the payer has what the wallet needs: the order is
    /// `pending`. (An attempt closed or paid meanwhile stays as it is: `.unchanged`.)
    case placed
    /// A processor accepted an authorisation without deciding it (a Stripe PaymentIntent
    /// `processing`): the attempt leaves `processing` for `pending` and keeps the processor's id,
    /// until the processor's word (a webhook, or a query) records it succeeded or failed. No money
    /// is counted meanwhile.
    case accepted(transactionID: String)
    /// The money arrived (a verified notification, a query, a processor's authorisation). The
    /// amount must be the attempt's: callers check it first, the store checks it again.
    case succeeded(transactionID: String?, amount: Money)
    /// The payment failed or was declined; the order may be paid another way.
    case failed(reason: String)
    /// Closed at the provider, unpaid.
    case closed(reason: String)
}

/// What recording a ``PaymentOutcome`` did.
public enum PaymentRecorded: Sendable, Equatable {
    /// This payment paid the order (flagged `refund_required` when the order had been closed).
    case settled(StoredOrder, StoredPayment)
    /// Another payment had already paid the order: this one is recorded, flagged
    /// `refund_required`, and announced with `order.refund_required` — the payer paid twice.
    case duplicatePayment(StoredOrder, StoredPayment)
    /// The attempt failed or closed, as recorded.
    case updated(StoredOrder, StoredPayment)
    /// Nothing changed: the attempt already was there (a repeated notification), or it cannot
    /// go there any more (a close that lost the race with a payment).
    case unchanged(StoredOrder, StoredPayment)

    public var order: StoredOrder {
        switch self {
        case .settled(let order, _), .duplicatePayment(let order, _), .updated(let order, _), .unchanged(let order, _): order
        }
    }

    public var payment: StoredPayment {
        switch self {
        case .settled(_, let payment), .duplicatePayment(_, let payment), .updated(_, let payment), .unchanged(_, let payment): payment
        }
    }
}
