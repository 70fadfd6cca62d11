import Alipay
import Cashier
import Foundation

/// What the Alipay sandbox keeps of agreements (周期扣款, 商家扣款): each agreement with its
/// state (`TEMP` once the payer opened the signing, `NORMAL` once signed, `STOP` once ended), its
/// schedule and the charges made under it; the payers' balances; the early-deduction window; and
/// the clock the periods are counted by. Held by ``AlipaySandbox``; the rules live in
/// ``AlipaySandbox`` `+Agreements`.
///
/// A cycle agreement's period *k* charges on `execute_time` + *k* periods; a charge is allowed
/// from ``earlyDays`` days before that date until the next period's window opens, once.
struct AlipayAgreementDesk: Sendable {
    /// What a charge under an agreement meets at the payer's end.
    enum Balance: String, Sendable, CaseIterable {
        /// The charge is paid at once (`10000`).
        case sufficient
        /// `ACQ.BUYER_BALANCE_NOT_ENOUGH`.
        case insufficient
        /// `10003`: paid once the payer's side is done (``AlipaySandbox`` password delay), as a trade query or notification shows.
        case delayed
    }

    /// A charge made (or waiting) under an agreement.
    struct Charge: Sendable {
        let outTradeNo: String
        let amount: Int64
        /// The sandbox-clock moment it was made.
        let at: Date
    }

    struct Agreement: Sendable {
        let appID: String
        let agreementNo: String
        let externalNo: String
        let product: Alipay.AgreementProduct
        let signScene: String
        /// The schedule (cycle agreements); its first date moves with `executionplan.modify`.
        var rule: Alipay.PeriodRule?
        /// Period 0's charge date (midnight, Beijing).
        var anchor: Date?
        var status = Alipay.Agreement.Status.temporary
        let notifyURL: String?
        let returnURL: String?
        let created: Date
        var signed: Date?
        var ended: Date?
        var charges: [Charge] = []
        var balance = Balance.sufficient
        let payer = "2088102000000000"
    }

    /// Agreements by `agreement_no`.
    var agreements: [String: Agreement] = [:]
    /// The newest agreement of each ``key(_:_:_:_:)``.
    var latest: [String: String] = [:]
    /// The notify URL of each app's latest signing request, by `app_id`: where a payer's signature
    /// of a request the sandbox never saw (an app sign string not handed over) is told.
    var lastNotifyURLs: [String: String] = [:]
    /// The app such a signing is for when the sandbox knows several (``AlipaySandbox/setDefaultAgreementApp(_:)``).
    var defaultApp: String?
    /// Signing pages: token → `agreement_no`.
    var pages: [String: String] = [:]
    /// How many days before a period's date its charge is allowed (5 unless set; Alipay has said 3, later 5).
    var earlyDays = 5
    /// The sandbox clock: `base()` moved on by `offset` (``AlipaySandbox/advanceAgreementClock(by:)``).
    var base: @Sendable () -> Date = { Date() }
    var offset: TimeInterval = 0

    func now() -> Date { base().addingTimeInterval(offset) }

    /// One agreement per app, merchant number, product and scene.
    static func key(_ appID: String, _ externalNo: String, _ product: Alipay.AgreementProduct, _ scene: String) -> String {
        [appID, externalNo, product.personalProductCode, scene].joined(separator: "\u{1F}")
    }

    /// The agreement a payer's call names: by `agreement_no`, else the newest under `external_agreement_no` (any app, product, scene).
    func find(agreementNo: String?, externalNo: String?) -> Agreement? {
        if let agreementNo { return agreements[agreementNo] }
        guard let externalNo else { return nil }
        return agreements.values.filter { $0.externalNo == externalNo }.max { $0.created < $1.created }
    }

    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: BeijingTime.secondsFromGMT)!
        return calendar
    }()

    /// Period `index`'s charge date.
    static func executeDate(_ agreement: Agreement, period index: Int) -> Date? {
        guard let rule = agreement.rule, let anchor = agreement.anchor else { return nil }
        switch rule.periodType {
        case .day: return calendar.date(byAdding: .day, value: index * rule.period, to: anchor)
        case .month: return calendar.date(byAdding: .month, value: index * rule.period, to: anchor)
        }
    }

    /// When period `index`'s charge is first allowed.
    func windowStart(_ agreement: Agreement, period index: Int) -> Date? {
        Self.executeDate(agreement, period: index).flatMap { Self.calendar.date(byAdding: .day, value: -earlyDays, to: $0) }
    }

    /// The period whose window holds `date`; `nil` before the first window opens.
    func period(of agreement: Agreement, at date: Date) -> Int? {
        guard let first = windowStart(agreement, period: 0), date >= first else { return nil }
        var index = 0
        while let next = windowStart(agreement, period: index + 1), next <= date, index < 100_000 { index += 1 }
        return index
    }

    /// `true` when a charge falls in period `index`'s window.
    func isPaid(_ agreement: Agreement, period index: Int) -> Bool {
        guard let start = windowStart(agreement, period: index), let end = windowStart(agreement, period: index + 1) else { return false }
        return agreement.charges.contains { $0.at >= start && $0.at < end }
    }

    /// `next_deduct_time`: the first period from now on without a charge.
    func nextDeductDate(_ agreement: Agreement) -> Date? {
        guard agreement.rule != nil else { return nil }
        var index = period(of: agreement, at: now()) ?? 0
        if isPaid(agreement, period: index) { index += 1 }
        return Self.executeDate(agreement, period: index)
    }
}

/// An agreement as the sandbox holds it: what tests and tools read (``AlipaySandbox/agreement(agreementNo:)``).
public struct SandboxAlipayAgreement: Sendable, Codable, Equatable {
    /// The app that asked for it.
    public let app_id: String
    /// Alipay's number.
    public let agreement_no: String
    /// The merchant's number.
    public let external_agreement_no: String
    /// `TEMP`, `NORMAL` or `STOP`.
    public let status: String
    /// `CYCLE_PAY_AUTH_P` or `GENERAL_WITHHOLDING_P`.
    public let personal_product_code: String
    /// The scene.
    public let sign_scene: String
    /// The next period's date (`yyyy-MM-dd`), for a cycle agreement.
    public let next_deduct_time: String?
    /// The trades charged under it, in order.
    public let charges: [String]
    /// What the payer's balance does to charges (`sufficient`, `insufficient`, `delayed`).
    public let balance: String
}
