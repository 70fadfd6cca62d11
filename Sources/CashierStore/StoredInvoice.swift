public import Cashier
public import Foundation

/// One period's charge of a subscription: one row per subscription and period (a unique key, so
/// instances racing to open it open it once), charged as an ordinary order whose payments are the
/// attempts.
public struct StoredInvoice: Sendable, Equatable {
    /// Where an invoice stands.
    public enum Status: String, Sendable, CaseIterable, Codable {
        /// Being charged: an attempt is due or awaited.
        case open
        /// Its order is paid.
        case paid
        /// Every attempt failed.
        case failed
        /// The subscription ended before it was paid.
        case void

        /// Anything but `open`.
        public var isFinal: Bool { self != .open }
    }

    public let id: String
    public let subscriptionID: String
    /// From 1.
    public let period: Int
    public let orderID: String
    public let amount: Money
    public let status: Status
    /// Attempts claimed so far.
    public let attempts: Int
    /// Attempts whose failure is recorded: fewer than ``attempts`` while one is in flight.
    public let failures: Int
    /// When the next attempt (or the next look at an answer awaited) is due, while open.
    public let nextAttemptAt: Date?
    public let lastError: String?
    public let periodStart: Date
    public let version: Int64
    public let createdAt: Date
    public let updatedAt: Date
    public let finishedAt: Date?

    public init(
        id: String, subscriptionID: String, period: Int, orderID: String, amount: Money, status: Status, attempts: Int, failures: Int,
        nextAttemptAt: Date?,
        lastError: String?, periodStart: Date, version: Int64, createdAt: Date, updatedAt: Date, finishedAt: Date?
    ) {
        self.id = id
        self.subscriptionID = subscriptionID
        self.period = period
        self.orderID = orderID
        self.amount = amount
        self.status = status
        self.attempts = attempts
        self.failures = failures
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.periodStart = periodStart
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
    }
}

/// How an invoice's attempt ended (``RecurringRecords/finishInvoice(_:as:now:)``).
public enum InvoiceOutcome: Sendable, Equatable {
    /// Its order is paid.
    case paid
    /// An attempt failed; the next is due at `retryAt`, or, `nil`, none is left (the invoice fails
    /// and the subscription is canceled).
    case attemptFailed(reason: String, retryAt: Date?)
    /// The subscription or its agreement ended first.
    case void(reason: String)
}
