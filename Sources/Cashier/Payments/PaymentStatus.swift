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

extension PaymentStatus {
    /// The payment that settled an order, as far as the order's status is concerned.
    public struct Settlement: Sendable, Equatable {
        /// What the settling payment took, in minor units.
        public var amount: Int64
        /// What has been refunded of it (succeeded refunds), in minor units.
        public var refunded: Int64

        public init(amount: Int64, refunded: Int64) {
            self.amount = amount
            self.refunded = refunded
        }
    }

    /// An order's status as its records say: the settling payment and its refunds first, then
    /// whether it was closed, then its attempts — `pending` while one can be paid, `failed` once
    /// every one that could be paid ended unpaid, `created` while none ever reached the payer.
    /// - Parameters:
    ///   - settled: the payment that paid the order, if any (the first to succeed).
    ///   - closed: the merchant or the expiry job closed the order.
    ///   - attempts: the statuses of every payment attempt of the order.
    ///   - everStarted: an attempt of it has reached the payer before (the order left `created`).
    public static func derived(settled: Settlement?, closed: Bool, attempts: [PaymentAttemptStatus], everStarted: Bool) -> PaymentStatus {
        if let settled {
            if settled.refunded <= 0 { return .paid }
            return settled.refunded >= settled.amount ? .refunded : .partiallyRefunded
        }
        if closed { return .closed }
        if attempts.contains(where: \.isStarted) { return .pending }
        return everStarted ? .failed : .created
    }
}
