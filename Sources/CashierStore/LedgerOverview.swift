public import Cashier
public import Foundation

/// What the dashboard's overview shows for a period: money taken and returned per currency,
/// orders and payment attempts, a series over time and a breakdown by method — each computed
/// by the store with one indexed query, never by loading the orders.
public struct LedgerOverview: Sendable, Equatable {
    /// Money in one currency over the period.
    public struct Totals: Sendable, Equatable {
        public let currency: Currency
        /// Payments that succeeded in the period (every one: a second payment too).
        public let payments: Int
        public let gross: Money
        /// Refunds that succeeded in the period.
        public let refunds: Int
        public let refunded: Money
        /// `gross − refunded`.
        public var net: Money { Money(minorUnits: gross.minorUnits - refunded.minorUnits, currency: currency) }
    }

    /// Payments that succeeded in one slice of the period.
    public struct Bucket: Sendable, Equatable {
        /// Where the slice starts.
        public let start: Date
        public let payments: Int
        public let gross: Money
    }

    /// Payments that succeeded in the period through one method.
    public struct MethodTotal: Sendable, Equatable {
        public let method: PaymentMethod
        public let provider: PaymentProvider
        public let payments: Int
        public let gross: Money
    }

    public let from: Date
    public let until: Date
    public let totals: [Totals]
    /// Orders created in the period.
    public let orders: Int
    /// Payment attempts placed with a provider in the period (the payer could pay them).
    public let paymentsStarted: Int
    /// Of those, the ones that succeeded.
    public let paymentsSucceeded: Int
    /// Payments waiting to be refunded now (they paid an order twice, or a closed one).
    public let refundRequired: Int
    /// Succeeded payments per slice of `bucket` seconds from `from`, per currency; empty slices left out.
    public let buckets: [Bucket]
    public let bucket: TimeInterval
    public let byMethod: [MethodTotal]

    /// Succeeded ÷ started, or `nil` when nothing started.
    public var successRate: Double? { paymentsStarted == 0 ? nil : Double(paymentsSucceeded) / Double(paymentsStarted) }
}
