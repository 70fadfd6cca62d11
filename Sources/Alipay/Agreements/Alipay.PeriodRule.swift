public import Cashier
public import Foundation

extension Alipay {
    /// A cycle agreement's schedule (`period_rule_params`): one charge of at most ``singleAmount``
    /// every ``period`` days or months from ``executeTime``.
    ///
    /// Alipay's rules, checked by ``validate()`` before anything is sent: a `DAY` period is at
    /// least 7 days; a `MONTH` schedule starts on day 1 to 28 (so every month has the day);
    /// `execute_time` is a `yyyy-MM-dd` date.
    ///
    /// ```swift
    /// let rule = Alipay.PeriodRule(periodType: .month, period: 1, executeTime: "2026-12-15",
    ///                              singleAmount: Money(minorUnits: 3000, currency: .cny))
    /// ```
    public struct PeriodRule: Sendable, Equatable {
        /// `period_type`.
        public enum PeriodType: String, Sendable, Equatable, CaseIterable {
            /// Every `period` days (at least 7).
            case day = "DAY"
            /// Every `period` months, on `execute_time`'s day of the month (1 to 28).
            case month = "MONTH"
        }

        /// The shortest `DAY` period Alipay accepts.
        public static let shortestDayPeriod = 7
        /// The last day of the month a `MONTH` schedule may charge on.
        public static let latestMonthDay = 28

        /// `period_type`.
        public var periodType: PeriodType
        /// `period`: how many days or months one period lasts.
        public var period: Int
        /// `execute_time`: the first period's charge date, `yyyy-MM-dd` (Beijing).
        public var executeTime: String
        /// `single_amount`: the most one charge may take (CNY).
        public var singleAmount: Money
        /// `total_amount`: the most all charges together may take.
        public var totalAmount: Money?
        /// `total_payments`: how many charges there may be in all.
        public var totalPayments: Int?

        /// A schedule.
        /// - Parameters:
        ///   - periodType: days or months.
        ///   - period: how many of them one period lasts.
        ///   - executeTime: the first charge date, `yyyy-MM-dd`.
        ///   - singleAmount: the most one charge may take.
        ///   - totalAmount: the most all charges may take together, if limited.
        ///   - totalPayments: how many charges there may be, if limited.
        public init(
            periodType: PeriodType, period: Int, executeTime: String, singleAmount: Money, totalAmount: Money? = nil,
            totalPayments: Int? = nil
        ) {
            self.periodType = periodType
            self.period = period
            self.executeTime = executeTime
            self.singleAmount = singleAmount
            self.totalAmount = totalAmount
            self.totalPayments = totalPayments
        }

        /// Reads `period_rule_params` as a request or an answer carries it.
        /// - Parameter biz: the JSON object.
        /// - Throws: `PaymentError.invalidRequest` for a missing or unreadable field (the values are
        ///   not judged: ``validate()`` does that).
        public init(biz: [String: Any]) throws {
            func text(_ name: String) -> String? {
                biz[name] as? String ?? (biz[name] as? NSNumber).map { $0.stringValue }
            }
            func money(_ name: String) throws -> Money? {
                guard let value = text(name) else { return nil }
                guard let amount = try? Money(decimal: value, currency: .cny) else {
                    throw PaymentError(.invalidRequest, provider: .alipay, "period_rule_params.\(name) is not an amount in yuan")
                }
                return amount
            }
            guard let type = text("period_type").flatMap(PeriodType.init(rawValue:)) else {
                throw PaymentError(.invalidRequest, provider: .alipay, "period_rule_params.period_type is DAY or MONTH")
            }
            guard let period = text("period").flatMap({ Int($0) }) else {
                throw PaymentError(.invalidRequest, provider: .alipay, "period_rule_params.period is a whole number")
            }
            guard let executeTime = text("execute_time"), let single = try money("single_amount") else {
                throw PaymentError(.invalidRequest, provider: .alipay, "period_rule_params needs execute_time and single_amount")
            }
            var payments: Int?
            if let count = text("total_payments") {
                guard let number = Int(count) else {
                    throw PaymentError(.invalidRequest, provider: .alipay, "period_rule_params.total_payments is a whole number")
                }
                payments = number
            }
            self.init(
                periodType: type, period: period, executeTime: executeTime, singleAmount: single, totalAmount: try money("total_amount"),
                totalPayments: payments)
        }

        /// `execute_time`'s date (midnight, Beijing); `nil` when it is not a `yyyy-MM-dd` date.
        public var executeDate: Date? {
            let format = BeijingTime.formatter(BeijingTime.Layout.day.format)
            guard let date = format.date(from: executeTime), format.string(from: date) == executeTime else { return nil }
            return date
        }

        /// Checks Alipay's rules.
        /// - Throws: `PaymentError.invalidRequest` saying which rule the schedule breaks.
        public func validate() throws {
            func refuse(_ message: String) -> PaymentError { PaymentError(.invalidRequest, provider: .alipay, message) }
            guard period >= 1 else { throw refuse("period_rule_params.period is at least 1") }
            guard executeDate != nil else { throw refuse("period_rule_params.execute_time is a yyyy-MM-dd date") }
            switch periodType {
            case .day:
                guard period >= Self.shortestDayPeriod else {
                    throw refuse("a DAY period is at least \(Self.shortestDayPeriod) days, not \(period)")
                }
            case .month:
                guard let day = Int(executeTime.suffix(2)), (1...Self.latestMonthDay).contains(day) else {
                    throw refuse("a MONTH schedule's execute_time falls on day 1 to \(Self.latestMonthDay) of the month")
                }
            }
            guard singleAmount.currency == .cny, singleAmount.isPositive else {
                throw refuse("period_rule_params.single_amount is more than 0 CNY")
            }
            if let totalAmount {
                guard totalAmount.currency == .cny, totalAmount.minorUnits >= singleAmount.minorUnits else {
                    throw refuse("period_rule_params.total_amount is CNY and not less than single_amount")
                }
            }
            if let totalPayments, totalPayments < 1 { throw refuse("period_rule_params.total_payments is at least 1") }
        }

        /// The fields, for `biz_content`.
        public var biz: [String: Any] {
            var biz: [String: Any] = [
                "period_type": periodType.rawValue, "period": period, "execute_time": executeTime,
                "single_amount": singleAmount.decimalString,
            ]
            if let totalAmount { biz["total_amount"] = totalAmount.decimalString }
            if let totalPayments { biz["total_payments"] = totalPayments }
            return biz
        }
    }
}
