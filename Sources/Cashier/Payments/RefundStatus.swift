/// Where one refund stands. Its amount is reserved against its payment from the moment it is
/// `pending`, so refunds can never add up to more than the payment took.
///
/// ```
/// pending ──▶ succeeded ──▶ failed   (the provider reported a failure after accepting it)
///    └─────────────────────▶ failed   (refused; the reservation is released)
/// ```
public enum RefundStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// Reserved, and sent (or about to be sent) to the provider.
    case pending
    /// The provider accepted or completed it.
    case succeeded
    /// The provider refused it or reported it failed; the amount is refundable again.
    case failed

    /// Whether a refund may move from `self` to `next`.
    public func canMove(to next: RefundStatus) -> Bool {
        switch (self, next) {
        case (.pending, .succeeded), (.pending, .failed), (.succeeded, .failed): true
        default: false
        }
    }

    /// `true` while the refund's amount counts against its payment.
    public var holdsAmount: Bool { self != .failed }
}
