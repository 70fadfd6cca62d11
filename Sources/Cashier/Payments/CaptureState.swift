/// Where a card payment authorised without capture stands at its processor (Apple Pay with
/// `"capture": "manual"`). Wallets that take the money when the payer pays have none.
public enum CaptureState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Authorised and held: capture it (all or part) or void it.
    case uncaptured
    /// Captured: the money moved; what is left is refunded as usual.
    case captured
    /// Released before capture: no money moved.
    case voided
    /// Captured, then reported failed by the processor (Adyen's `CAPTURE_FAILED`, or a `CAPTURE`
    /// webhook with `success: false`): no money moved, and what was to be taken is recorded as
    /// gone back. Adyen may capture it again by itself ("Transaction Recaptured"): then it is
    /// `captured` once more.
    case failed
}
