public import Cashier
public import Foundation

/// An amount charged under an agreement once every period, from its anchor: each period's charge
/// is an invoice (``StoredInvoice``), opened once per subscription and period however many
/// instances find it due.
public struct StoredSubscription: Sendable, Equatable {
    /// Where a subscription stands.
    public enum Status: String, Sendable, CaseIterable, Codable {
        /// Charged every period.
        case active
        /// Its current period's charge failed and is being retried.
        case pastDue = "past_due"
        /// Paused by the merchant: no period is opened until it is resumed.
        case paused
        /// Ended (by the merchant, by its agreement's end, or after every attempt of a charge failed).
        case canceled
    }

    public let id: String
    public let agreementID: String
    public let merchant: String?
    public let amount: Money
    public let description: String
    public let intervalUnit: StoredAgreement.PeriodUnit
    public let intervalCount: Int
    /// When period 1 begins; period n begins `n - 1` intervals later.
    public let anchor: Date
    /// The periods opened so far.
    public let period: Int
    /// When the next period's charge is due; `nil` once canceled.
    public let nextChargeAt: Date?
    /// Attempts a period's charge gets before the subscription is canceled.
    public let maxAttempts: Int
    public let status: Status
    public let cancelReason: String?
    public let version: Int64
    public let createdAt: Date
    public let updatedAt: Date
    public let canceledAt: Date?

    public init(
        id: String, agreementID: String, merchant: String?, amount: Money, description: String, intervalUnit: StoredAgreement.PeriodUnit,
        intervalCount: Int, anchor: Date, period: Int, nextChargeAt: Date?, maxAttempts: Int, status: Status, cancelReason: String?,
        version: Int64, createdAt: Date, updatedAt: Date, canceledAt: Date?
    ) {
        self.id = id
        self.agreementID = agreementID
        self.merchant = merchant
        self.amount = amount
        self.description = description
        self.intervalUnit = intervalUnit
        self.intervalCount = intervalCount
        self.anchor = anchor
        self.period = period
        self.nextChargeAt = nextChargeAt
        self.maxAttempts = maxAttempts
        self.status = status
        self.cancelReason = cancelReason
        self.version = version
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.canceledAt = canceledAt
    }

    /// When period `number` (from 1) begins: the anchor moved on `number - 1` intervals in Beijing
    /// time, a month's day kept where the month has it (31 January, then 28 February, then 31 March).
    public func start(ofPeriod number: Int) -> Date {
        Self.start(anchor: anchor, unit: intervalUnit, count: intervalCount, period: number)
    }

    /// ``start(ofPeriod:)`` for any anchor and interval.
    public static func start(anchor: Date, unit: StoredAgreement.PeriodUnit, count: Int, period: Int) -> Date {
        let steps = (period - 1) * count
        guard steps > 0 else { return anchor }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Shanghai") ?? TimeZone(secondsFromGMT: 8 * 3600)!
        let component: Calendar.Component =
            switch unit {
            case .day: .day
            case .week: .weekOfYear
            case .month: .month
            case .year: .year
            }
        return calendar.date(byAdding: component, value: steps, to: anchor) ?? anchor
    }
}

/// A subscription to create (``RecurringRecords/createSubscription(_:now:)``).
public struct NewSubscription: Sendable, Equatable {
    public let agreementID: String
    public let amount: Money
    public let description: String
    public let intervalUnit: StoredAgreement.PeriodUnit
    public let intervalCount: Int
    public let anchor: Date
    public let maxAttempts: Int

    public init(
        agreementID: String, amount: Money, description: String, intervalUnit: StoredAgreement.PeriodUnit, intervalCount: Int, anchor: Date,
        maxAttempts: Int
    ) {
        self.agreementID = agreementID
        self.amount = amount
        self.description = description
        self.intervalUnit = intervalUnit
        self.intervalCount = intervalCount
        self.anchor = anchor
        self.maxAttempts = maxAttempts
    }
}
