/// Where an order stands. The JSON form is the raw value (`"partially_refunded"`).
public enum PaymentStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// Created; no payment started.
    case created
    /// A payment was started with a provider and has not finished.
    case pending
    /// The provider confirmed the money arrived.
    case paid
    /// Part of the paid amount was refunded.
    case partiallyRefunded = "partially_refunded"
    /// Everything paid was refunded.
    case refunded
    /// Closed unpaid (by the merchant or on expiry).
    case closed
    /// The payment failed; another may be started.
    case failed

    /// `true` when money has been received (even if some was refunded since).
    public var hasReceivedMoney: Bool {
        self == .paid || self == .partiallyRefunded || self == .refunded
    }
}
