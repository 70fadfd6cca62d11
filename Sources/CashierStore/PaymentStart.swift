/// What ``PaymentLedger/beginPayment(_:now:)`` did.
public struct PaymentStart: Sendable, Equatable {
    /// The order afterwards.
    public let order: StoredOrder
    /// The attempt to place with the provider: new, or one of the same kind not yet paid or
    /// closed, reused (its trade number is placed again; providers answer that idempotently).
    public let payment: StoredPayment
    /// `true` when ``payment`` is an attempt that already existed.
    public let reused: Bool
    /// The order's other open attempts: once this one is placed, close them at their providers so
    /// the payer cannot pay twice, and record what the provider says (``PaymentLedger/recordPayment(_:of:record:duplicate:now:)``).
    public let superseded: [StoredPayment]
}
