public import Cashier
public import Foundation

/// An agreement to reserve (``RecurringRecords/reserveAgreement(_:now:)``).
public struct NewAgreement: Sendable, Equatable {
    public let merchant: String?
    public let provider: String
    public let method: String
    public let externalNo: String
    public let payer: String?
    public let planID: String?
    public let description: String
    public let periodUnit: StoredAgreement.PeriodUnit
    public let periodCount: Int
    public let singleLimit: Money
    public let firstChargeAt: Date?

    public init(
        merchant: String?, provider: String, method: String, externalNo: String, payer: String?, planID: String?, description: String,
        periodUnit: StoredAgreement.PeriodUnit, periodCount: Int, singleLimit: Money, firstChargeAt: Date?
    ) {
        self.merchant = merchant
        self.provider = provider
        self.method = method
        self.externalNo = externalNo
        self.payer = payer
        self.planID = planID
        self.description = description
        self.periodUnit = periodUnit
        self.periodCount = periodCount
        self.singleLimit = singleLimit
        self.firstChargeAt = firstChargeAt
    }
}

/// What ``RecurringRecords/moveAgreement(_:to:now:)`` did.
public enum AgreementMoved: Sendable, Equatable {
    /// It changed: before and after (and, when it ended, the subscriptions that ended with it).
    case changed(from: StoredAgreement, to: StoredAgreement)
    /// Nothing changed: it said the same, or the agreement had ended already.
    case unchanged(StoredAgreement)

    public var agreement: StoredAgreement {
        switch self {
        case .changed(_, let after): after
        case .unchanged(let agreement): agreement
        }
    }
}
