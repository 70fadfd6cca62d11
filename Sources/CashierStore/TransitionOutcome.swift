public import Cashier

/// The result of an order's status transition in the store.
public enum TransitionOutcome: Sendable, Equatable {
    /// The order moved, once; the transition, its event and its outbox message are stored together.
    case applied(StoredOrder, PaymentTransition)
    /// The order is already where the event leads (a duplicate notification): nothing changed.
    case unchanged(StoredOrder)
}
