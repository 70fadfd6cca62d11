public import Cashier

extension WeChatPay {
    /// A WeChat Pay fund-flow bill (资金账单: v2 `pay/downloadfundflow`, v3 `/v3/bill/fundflowbill`):
    /// every movement of the merchant's basic account in a day — payments in, refunds and fees
    /// out — as CSV whose values start with a backtick, then a summary header and line.
    public struct FundFlowBill: Sendable, Equatable {
        /// One movement.
        public struct Row: Sendable, Equatable {
            /// `yyyy-MM-dd HH:mm:ss`, Beijing time.
            public var time: String
            /// The payment's transaction id or the refund's id (微信支付业务单号).
            public var businessID: String
            /// 资金流水单号.
            public var flowID: String
            /// 业务名称: `交易`, `退款`, `扣除交易手续费`, `退还交易手续费`, …
            public var name: String
            /// 业务类型.
            public var type: String
            /// `收入` or `支出`.
            public var direction: String
            /// 收支金额, always positive; ``direction`` says which way.
            public var amount: Money
            /// 账户结余.
            public var balance: Money
            /// 业务凭证号: the merchant's trade or refund number.
            public var reference: String

            public init(
                time: String, businessID: String, flowID: String, name: String, type: String, direction: String, amount: Money,
                balance: Money, reference: String
            ) {
                self.time = time
                self.businessID = businessID
                self.flowID = flowID
                self.name = name
                self.type = type
                self.direction = direction
                self.amount = amount
                self.balance = balance
                self.reference = reference
            }

            /// `true` for money in.
            public var isIncome: Bool { direction == "收入" }
            /// `true` for a fee charged or returned.
            public var isFee: Bool { name.contains("手续费") }
        }

        public var rows: [Row]

        public init(rows: [Row]) {
            self.rows = rows
        }

        static let header = "记账时间,微信支付业务单号,资金流水单号,业务名称,业务类型,收支类型,收支金额（元）,账户结余（元）,资金变更提交申请人,备注,业务凭证号"
        static let summaryHeader = "资金流水总笔数,收入笔数,收入金额,支出笔数,支出金额"

        /// Parses a fund-flow bill and checks its rows against the summary line.
        /// - Throws: `PaymentError.malformedMessage` naming what does not fit.
        public init(parsing text: String) throws {
            let lines = text.split(whereSeparator: \.isNewline).map(String.init)
            guard lines.first == Self.header else { throw Self.failure("it does not start with the fund-flow header") }
            var rows: [Row] = []
            var index = 1
            while index < lines.count, lines[index] != Self.summaryHeader {
                let values = Self.values(lines[index])
                guard values.count == 11 else { throw Self.failure("line \(index + 1) has \(values.count) values, not 11") }
                guard values[5] == "收入" || values[5] == "支出" else { throw Self.failure("line \(index + 1): 收支类型 is '\(values[5])'") }
                do {
                    rows.append(
                        Row(
                            time: values[0], businessID: values[1], flowID: values[2], name: values[3], type: values[4],
                            direction: values[5],
                            amount: try Money(decimal: values[6], currency: .cny), balance: try Money(decimal: values[7], currency: .cny),
                            reference: values[10]))
                } catch {
                    throw Self.failure("line \(index + 1) has an unreadable amount")
                }
                index += 1
            }
            guard index + 1 < lines.count else { throw Self.failure("it has no summary: it is truncated") }
            let summary = Self.values(lines[index + 1])
            let income = rows.filter(\.isIncome)
            guard summary.count == 5, Int(summary[0]) == rows.count, Int(summary[1]) == income.count,
                (try? Money(decimal: summary[2], currency: .cny)) == (try? Money.sum(income.map(\.amount), currency: .cny)),
                Int(summary[3]) == rows.count - income.count,
                (try? Money(decimal: summary[4], currency: .cny))
                    == (try? Money.sum(rows.filter { !$0.isIncome }.map(\.amount), currency: .cny))
            else { throw Self.failure("the summary does not add up to its rows") }
            self.rows = rows
        }

        /// The bill as WeChat writes it.
        public var text: String {
            func field(_ value: String) -> String { "`" + value.replacingOccurrences(of: ",", with: "，") }
            var lines = [Self.header]
            for row in rows {
                lines.append(
                    [
                        row.time, row.businessID, row.flowID, row.name, row.type, row.direction, row.amount.decimalString,
                        row.balance.decimalString, "系统", "", row.reference,
                    ].map(field).joined(separator: ","))
            }
            let income = rows.filter(\.isIncome)
            let spent = rows.filter { !$0.isIncome }
            let incomeTotal = (try? Money.sum(income.map(\.amount), currency: .cny)) ?? .zero(.cny)
            let spentTotal = (try? Money.sum(spent.map(\.amount), currency: .cny)) ?? .zero(.cny)
            lines.append(Self.summaryHeader)
            lines.append(
                [String(rows.count), String(income.count), incomeTotal.decimalString, String(spent.count), spentTotal.decimalString].map(
                    field
                ).joined(separator: ","))
            return lines.joined(separator: "\r\n") + "\r\n"
        }

        private static func values(_ line: String) -> [String] {
            line.split(separator: ",", omittingEmptySubsequences: false).map { $0.hasPrefix("`") ? String($0.dropFirst()) : String($0) }
        }

        private static func failure(_ reason: String) -> PaymentError {
            PaymentError(.malformedMessage, provider: .wechatV2, "WeChat Pay fund-flow bill refused: \(reason)")
        }
    }
}
