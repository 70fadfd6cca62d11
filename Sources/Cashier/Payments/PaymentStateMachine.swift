/// The payment state machine as data, so that stores and the server enforce the same rules.
///
/// ```
/// created ──payment_started──▶ pending ──payment_succeeded──▶ paid ──partially_refunded──▶ partially_refunded
///    │                           │  ╲                           │                                │
///    └──closed──▶ closed ◀──closed┘   payment_failed──▶ failed   └──────────refunded──────────────┴──▶ refunded
/// ```
///
/// A refund the provider reports failed after accepting it moves a refunded order back
/// (`refund_failed`, `all_refunds_failed`): the money never leaves the received states.
/// Stores do not pick events by hand: they derive the status from the order's payment and
/// refund records (``PaymentStatus/derived(settled:closed:attempts:everStarted:)``) and apply the transition
/// only when this table allows it.
///
/// A store applies a transition by compare-and-set: "move order X from `from` to `to` only if it
/// is still at `from`", in one transaction, so duplicates and races move it at most once.
///
/// ```swift
/// let step = try PaymentStateMachine.transition(from: .pending, on: .paymentSucceeded)
/// step.to // .paid
/// ```
public enum PaymentStateMachine {
    /// Every legal transition. Anything not listed is illegal.
    public static let transitions: [PaymentTransition] = [
        PaymentTransition(from: .created, event: .paymentStarted, to: .pending),
        PaymentTransition(from: .pending, event: .paymentStarted, to: .pending),
        PaymentTransition(from: .failed, event: .paymentStarted, to: .pending),

        PaymentTransition(from: .created, event: .paymentSucceeded, to: .paid),
        PaymentTransition(from: .pending, event: .paymentSucceeded, to: .paid),
        PaymentTransition(from: .failed, event: .paymentSucceeded, to: .paid),
        PaymentTransition(from: .closed, event: .paymentSucceeded, to: .paid, requiresRefund: true),

        PaymentTransition(from: .pending, event: .paymentFailed, to: .failed),

        PaymentTransition(from: .created, event: .closed, to: .closed),
        PaymentTransition(from: .pending, event: .closed, to: .closed),
        PaymentTransition(from: .failed, event: .closed, to: .closed),

        PaymentTransition(from: .paid, event: .partiallyRefunded, to: .partiallyRefunded),
        PaymentTransition(from: .partiallyRefunded, event: .partiallyRefunded, to: .partiallyRefunded),
        PaymentTransition(from: .paid, event: .refunded, to: .refunded),
        PaymentTransition(from: .partiallyRefunded, event: .refunded, to: .refunded),

        // A refund that fails after it was counted gives the money back to the order.
        PaymentTransition(from: .refunded, event: .refundFailed, to: .partiallyRefunded),
        PaymentTransition(from: .partiallyRefunded, event: .refundFailed, to: .partiallyRefunded),
        PaymentTransition(from: .refunded, event: .allRefundsFailed, to: .paid),
        PaymentTransition(from: .partiallyRefunded, event: .allRefundsFailed, to: .paid),
    ]

    private static let byStatusAndEvent: [PaymentStatus: [PaymentEvent: PaymentTransition]] =
        Dictionary(grouping: transitions, by: \.from).mapValues { Dictionary(uniqueKeysWithValues: $0.map { ($0.event, $0) }) }

    /// The transition `event` causes from `status`.
    /// - Throws: `MoneyError.illegalTransition` naming the status and event.
    public static func transition(from status: PaymentStatus, on event: PaymentEvent) throws -> PaymentTransition {
        guard let transition = byStatusAndEvent[status]?[event] else {
            throw MoneyError(.illegalTransition, "an order that is \(status.rawValue) cannot take the event \(event.rawValue)")
        }
        return transition
    }

    /// `true` when some event moves an order from `from` to `to`.
    public static func isLegal(from: PaymentStatus, to: PaymentStatus) -> Bool {
        transitions.contains { $0.from == from && $0.to == to }
    }

    /// The event that moves an order from `from` to `to`, or `nil` when no legal transition does.
    public static func event(from: PaymentStatus, to: PaymentStatus) -> PaymentEvent? {
        transitions.first { $0.from == from && $0.to == to }?.event
    }

    /// The events an order in `status` can still take.
    public static func events(from status: PaymentStatus) -> [PaymentEvent] {
        transitions.filter { $0.from == status }.map(\.event)
    }
}
