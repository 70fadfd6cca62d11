public import Cashier
import Foundation

extension WeChatPay.V3 {
    /// WeChat Pay's profit-sharing bill of a day (分账账单, `GET /v3/profitsharing/bills`): like
    /// the trade and fund-flow bills, CSV whose values start with a backtick, a header line, one
    /// line per share or return (finished ones only), then a totals header and totals line;
    /// amounts in yuan with two decimals.
    ///
    /// **Assumed columns.** WeChat's page (4012529628) describes the file but its header was not
    /// confirmed from a source; the reader finds each column by name, so their order may differ.
    /// Detail: 分账发起时间, 分账发起方, 分账方, 微信订单号, 微信分账/回退单号, 商户分账单号,
    /// 商户回退单号, 业务类型, 分账接收方类型, 分账接收方, 分账金额（元）, 处理状态, 分账描述.
    /// Totals: 分账总笔数, 分账总金额（元）, 回退总笔数, 回退总金额（元）.
    public struct ProfitSharingBill: Sendable {
        public let lines: [ProfitSharingBillLine]
        /// What the totals line says shares moved, in fen (`nil` when the file has no totals).
        public let sharedTotal: Int64?
        /// What the totals line says returns moved, in fen (`nil` when the file has no totals).
        public let returnedTotal: Int64?

        static let columns = [
            "分账发起时间", "分账发起方", "分账方", "微信订单号", "微信分账/回退单号", "商户分账单号", "商户回退单号", "业务类型", "分账接收方类型", "分账接收方",
            "分账金额（元）", "处理状态", "分账描述",
        ]
        static let totalsColumns = ["分账总笔数", "分账总金额（元）", "回退总笔数", "回退总金额（元）"]

        public init(lines: [ProfitSharingBillLine]) {
            self.lines = lines
            self.sharedTotal = lines.filter { $0.kind != .return }.reduce(0) { $0 + $1.amount }
            self.returnedTotal = lines.filter { $0.kind == .return }.reduce(0) { $0 + $1.amount }
        }

        /// Parses a bill: the header (columns found by name), the detail lines, and the totals.
        /// - Throws: `PaymentError.malformedMessage` naming the line that does not fit.
        public init(parsing text: String) throws {
            let rows = text.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
            guard let header = rows.first.map(Self.cells), header.first == Self.columns[0] else {
                throw Self.malformed("the profit-sharing bill does not start with its header line")
            }
            let positions = try Self.columns.map { name in
                guard let index = header.firstIndex(of: name) else { throw Self.malformed("the profit-sharing bill has no column \(name)") }
                return index
            }
            var lines: [ProfitSharingBillLine] = []
            var totals: (shared: Int64, returned: Int64)?
            var number = 1
            var rest = rows.dropFirst()
            while let row = rest.popFirst() {
                number += 1
                let values = Self.cells(row)
                if values.first == Self.totalsColumns[0] {
                    guard let line = rest.popFirst() else { throw Self.malformed("the profit-sharing bill's totals line is missing") }
                    totals = try Self.totals(header: values, line: Self.cells(line), number: number + 1)
                    break
                }
                guard values.count == header.count else {
                    throw Self.malformed("profit-sharing bill line \(number) has \(values.count) values, not \(header.count)")
                }
                let value = { (column: Int) in values[positions[column]] }
                guard let kind = ProfitSharingBillLine.Kind(rawValue: value(7)) else {
                    throw Self.malformed("profit-sharing bill line \(number) has an unknown 业务类型 \(value(7))")
                }
                lines.append(
                    ProfitSharingBillLine(
                        time: value(0), initiator: value(1), payer: value(2), transactionID: value(3), orderID: value(4),
                        outOrderNo: value(5), outReturnNo: value(6).isEmpty || kind != .return ? nil : value(6), kind: kind,
                        receiverType: value(8), receiverAccount: value(9), amount: try Self.fen(value(10), line: number),
                        state: value(11), description: value(12)))
            }
            self.lines = lines
            self.sharedTotal = totals?.shared
            self.returnedTotal = totals?.returned
        }

        /// The bill as the sandbox writes it (the assumed columns, in their order).
        public var text: String {
            func field(_ value: String) -> String { "`" + value.replacingOccurrences(of: ",", with: "，") }
            var rows = [Self.columns.joined(separator: ",")]
            for line in lines {
                let values = [
                    line.time, line.initiator, line.payer, line.transactionID, line.orderID, line.outOrderNo, line.outReturnNo ?? "",
                    line.kind.rawValue, line.receiverType, line.receiverAccount, Self.yuan(line.amount), line.state, line.description,
                ]
                rows.append(values.map(field).joined(separator: ","))
            }
            let shares = lines.filter { $0.kind != .return }
            let returns = lines.filter { $0.kind == .return }
            rows.append(Self.totalsColumns.joined(separator: ","))
            rows.append(
                [
                    String(shares.count), Self.yuan(shares.reduce(0) { $0 + $1.amount }), String(returns.count),
                    Self.yuan(returns.reduce(0) { $0 + $1.amount }),
                ]
                .map(field).joined(separator: ","))
            return rows.joined(separator: "\r\n") + "\r\n"
        }

        private static func cells(_ row: Substring) -> [String] {
            row.split(separator: ",", omittingEmptySubsequences: false).map {
                let cell = $0.trimmingCharacters(in: .whitespaces)
                return cell.hasPrefix("`") ? String(cell.dropFirst()) : cell
            }
        }

        private static func totals(header: [String], line: [String], number: Int) throws -> (shared: Int64, returned: Int64) {
            guard let shared = header.firstIndex(of: totalsColumns[1]), let returned = header.firstIndex(of: totalsColumns[3]),
                line.count == header.count
            else { throw malformed("the profit-sharing bill's totals line \(number) does not fit its header") }
            return (try fen(line[shared], line: number), try fen(line[returned], line: number))
        }

        private static func fen(_ yuan: String, line: Int) throws -> Int64 {
            do {
                return try Money(decimal: yuan, currency: .cny).minorUnits
            } catch {
                throw malformed("profit-sharing bill line \(line) has an unreadable amount \(yuan)")
            }
        }

        static func yuan(_ fen: Int64) -> String { Money(minorUnits: fen, currency: .cny).decimalString }

        private static func malformed(_ message: String) -> PaymentError {
            PaymentError(.malformedMessage, provider: .wechatV3, message)
        }
    }
}
