public import Cashier
import CashierArchive
public import Foundation

extension Alipay {
    /// A day's account statement (账务明细, `bill_type` `signcustomer`): every movement of the
    /// merchant's Alipay balance — payments in, refunds and service fees out — in GBK CSV inside
    /// the zip Alipay serves, closed by `#支出合计` and `#收入合计` lines that ``parse(_:)-(Data)``
    /// checks the rows against.
    public struct FundFlowBill: Sendable, Equatable {
        /// One movement.
        public struct Row: Sendable, Equatable {
            /// 账务流水号.
            public var flowID: String
            /// 业务流水号: Alipay's trade number.
            public var tradeNo: String
            /// 商户订单号.
            public var outTradeNo: String
            public var subject: String
            /// `yyyy-MM-dd HH:mm:ss`, Beijing time.
            public var time: String
            /// 收入金额 (zero for money out).
            public var income: Money
            /// 支出金额 as a positive amount (zero for money in).
            public var expense: Money
            public var balance: Money
            /// 业务类型: `在线支付`, `交易退款`, `收费` (a service fee), `收费退回` (a fee returned with a refund), …
            public var type: String

            public init(
                flowID: String, tradeNo: String, outTradeNo: String, subject: String, time: String, income: Money, expense: Money,
                balance: Money, type: String
            ) {
                self.flowID = flowID
                self.tradeNo = tradeNo
                self.outTradeNo = outTradeNo
                self.subject = subject
                self.time = time
                self.income = income
                self.expense = expense
                self.balance = balance
                self.type = type
            }

            /// `true` for a service fee charged or returned.
            public var isFee: Bool { type.hasPrefix("收费") }
        }

        public static let columns = [
            "账务流水号", "业务流水号", "商户订单号", "商品名称", "发生时间", "对方账号", "收入金额（+元）", "支出金额（-元）", "账户余额（元）", "交易渠道", "业务类型", "备注",
        ]

        public var account: String
        public var rows: [Row]

        public init(account: String, rows: [Row]) {
            self.account = account
            self.rows = rows
        }

        /// Reads the statement: the zip Alipay serves, or the CSV in UTF-8 or GBK.
        /// - Throws: `PaymentError.malformedMessage` saying what is wrong.
        public static func parse(_ data: Data) throws -> FundFlowBill {
            let csv = ZipArchive.isZip(data) ? try Bill.detailFile(in: data, kind: "账务明细") : data
            let lines = try Bill.text(csv).split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.map(
                String.init)
            let account = lines.first { $0.hasPrefix("#账号：") }.map {
                $0.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
            }
            guard let headerIndex = lines.firstIndex(where: { !$0.hasPrefix("#") }),
                Array(Bill.cells(lines[headerIndex]).prefix(columns.count)) == columns
            else { throw Bill.failure("the account statement's header row is not Alipay's 账务明细 layout") }
            var rows: [Row] = []
            var index = headerIndex + 1
            while index < lines.count, !lines[index].hasPrefix("#") {
                let cells = Bill.cells(lines[index])
                guard cells.count >= columns.count else { throw Bill.failure("statement line \(index + 1) has \(cells.count) cells") }
                func money(_ column: Int) throws -> Money {
                    guard !cells[column].isEmpty else { return .zero(.cny) }
                    guard
                        let value = try? Money(
                            decimal: cells[column].hasPrefix("+") ? String(cells[column].dropFirst()) : cells[column], currency: .cny)
                    else { throw Bill.failure("statement line \(index + 1): \(columns[column]) is not an amount in yuan") }
                    return value
                }
                let expense = try money(7)
                rows.append(
                    Row(
                        flowID: cells[0], tradeNo: cells[1], outTradeNo: cells[2], subject: cells[3], time: cells[4], income: try money(6),
                        expense: Money(minorUnits: Int64(expense.minorUnits.magnitude), currency: .cny), balance: try money(8),
                        type: cells[10]))
                index += 1
            }
            // "#支出合计：N笔，共X元" and "#收入合计：M笔，共Y元".
            func totals(_ prefix: String) throws -> (count: Int, total: Money) {
                guard let line = lines[index...].first(where: { $0.hasPrefix(prefix) }),
                    let count = line.split(whereSeparator: { !$0.isASCII || !$0.isNumber }).first.flatMap({ Int($0) }),
                    let amount = line.split(separator: "共").last?.replacingOccurrences(of: "元", with: ""),
                    let total = try? Money(decimal: amount.trimmingCharacters(in: .whitespaces), currency: .cny)
                else { throw Bill.failure("the account statement has no \(prefix) line: it is truncated") }
                return (count, total)
            }
            let out = try totals("#支出合计")
            let into = try totals("#收入合计")
            let spent = rows.filter { $0.expense.isPositive }
            let received = rows.filter { $0.income.isPositive }
            guard out.count == spent.count, into.count == received.count,
                out.total == (try Money.sum(spent.map(\.expense), currency: .cny)),
                into.total == (try Money.sum(received.map(\.income), currency: .cny))
            else { throw Bill.failure("the account statement's totals do not add up to its rows") }
            return FundFlowBill(account: account ?? "", rows: rows)
        }

        /// The statement's text, as Alipay writes it (UTF-8 here; GBK in ``zipData(stem:from:to:exportedAt:)``).
        public func text(from: String, to: String, exportedAt: String) -> String {
            let rule = String(repeating: "-", count: 41)
            var lines = [
                "#支付宝账务明细查询", "#账号：[\(account)]", "#起始日期：[\(from)]   终止日期：[\(to)]", "#\(rule)账务明细列表\(rule)",
                Self.columns.joined(separator: ","),
            ]
            for row in rows {
                let cells = [
                    row.flowID, row.tradeNo, row.outTradeNo, row.subject, row.time, "",
                    row.income.isPositive ? "+" + row.income.decimalString : "",
                    row.expense.isPositive ? "-" + row.expense.decimalString : "", row.balance.decimalString, "支付宝", row.type, "",
                ]
                lines.append(cells.map { $0.replacingOccurrences(of: ",", with: "，") + "\t" }.joined(separator: ","))
            }
            let spent = rows.filter { $0.expense.isPositive }
            let received = rows.filter { $0.income.isPositive }
            let spentTotal = (try? Money.sum(spent.map(\.expense), currency: .cny)) ?? .zero(.cny)
            let receivedTotal = (try? Money.sum(received.map(\.income), currency: .cny)) ?? .zero(.cny)
            lines += [
                "#\(rule)账务明细列表结束\(rule)", "#支出合计：\(spent.count)笔，共\(spentTotal.decimalString)元",
                "#收入合计：\(received.count)笔，共\(receivedTotal.decimalString)元", "#导出时间：[\(exportedAt)]",
            ]
            return lines.joined(separator: "\r\n") + "\r\n"
        }

        /// The zip Alipay serves (one GBK CSV, its name in GBK).
        public func zipData(stem: String, from: String, to: String, exportedAt: String) throws -> Data {
            let gbk = String.Encoding(rawValue: 0x8000_0632)
            let text = text(from: from, to: to, exportedAt: exportedAt)
            let name = "\(stem)_账务明细.csv"
            do {
                return try ZipArchive.make([
                    .init(rawName: Array(name.data(using: gbk) ?? Data(name.utf8)), data: text.data(using: gbk) ?? Data(text.utf8))
                ])
            } catch let error as ArchiveError {
                throw PaymentError(.malformedMessage, provider: .alipay, "the statement could not be zipped: \(error.message)")
            }
        }
    }
}
