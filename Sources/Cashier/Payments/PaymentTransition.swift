/// One legal move of the payment state machine.
public struct PaymentTransition: Hashable, Sendable, CustomStringConvertible {
    /// The status before.
    public let from: PaymentStatus
    /// The event.
    public let event: PaymentEvent
    /// The status after.
    public let to: PaymentStatus
    /// `true` when the money must be sent back: a payment that arrived for a closed order is
    /// recorded (never dropped) and flagged `refund_required`.
    public let requiresRefund: Bool

    public init(from: PaymentStatus, event: PaymentEvent, to: PaymentStatus, requiresRefund: Bool = false) {
        self.from = from
        self.event = event
        self.to = to
        self.requiresRefund = requiresRefund
    }

    public var description: String {
        "\(from.rawValue) --\(event.rawValue)--> \(to.rawValue)" + (requiresRefund ? " [refund_required]" : "")
    }
}
