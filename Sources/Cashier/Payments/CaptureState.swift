/// Where a card payment authorised without capture stands at its processor (Apple Pay with
/// `"capture": "manual"`). Wallets that take the money when the payer pays have none.
public enum CaptureState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Authorised and held: capture it (all or part) or void it.
    case uncaptured
    /// Captured: the money moved; what is left is refunded as usual.
    case captured
    /// Released before capture: no money moved.
    case voided
}
