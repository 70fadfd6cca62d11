/// Where one payment attempt stands: one launch of one wallet for an order, with its own
/// `out_trade_no` at that wallet. An order may have several attempts (the payer switched
/// wallets, or retried); at most one of them settles it.
///
/// ```
/// created ──▶ pending ──▶ processing ──▶ succeeded
///    │           │  ╲          │             ▲
///    │           │   ╲         ▼             │ (money that arrives is recorded from any state;
///    ├───────────┼────▶ failed ──────────────┤  flagged for refund when another paid first)
///    └───────────┴────▶ closed ──────────────┘
/// ```
public enum PaymentAttemptStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// Reserved, not yet accepted by the provider: the payer has nothing to pay it with, and the
    /// order does not count it as started (a provider that did not answer leaves it here; a
    /// retry places it again under the same number).
    case created
    /// Placed with the provider; the payer may pay it.
    case pending
    /// A processor call is in flight (an Apple Pay authorisation): reserved, nothing else may start.
    case processing
    /// The provider confirmed the money arrived (a verified notification, a query or a processor).
    case succeeded
    /// The provider refused or the payer's payment failed; the order may be paid another way.
    case failed
    /// Closed at the provider unpaid: superseded by another attempt, or the order closed.
    case closed

    /// `true` while the attempt is not finished: it may still be placed, paid or authorised.
    public var isOpen: Bool { self == .created || self == .pending || self == .processing }

    /// `true` once the payer could pay it (or its authorisation is under way): the order is `pending`.
    public var isStarted: Bool { self == .pending || self == .processing }

    /// Whether an attempt may move from `self` to `next`. A success is accepted from any state
    /// but itself — money that arrives is never dropped — and nothing leaves `succeeded`.
    public func canMove(to next: PaymentAttemptStatus) -> Bool {
        switch (self, next) {
        case (.succeeded, _): false
        case (_, .succeeded): true
        case (.created, .pending), (.created, .processing), (.created, .failed), (.created, .closed): true
        case (.pending, .processing), (.pending, .failed), (.pending, .closed): true
        // A processor that accepted an authorisation without deciding it (Stripe's `processing`).
        case (.processing, .failed), (.processing, .pending), (.failed, .closed): true
        default: false
        }
    }
}
