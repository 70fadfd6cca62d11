public import Cashier
import CashierArchive
public import Foundation

extension Alipay {
    /// A day's trade bill (`业务明细`), as `alipay.data.dataservice.bill.downloadurl.query` points to.
    ///
    /// The file is CSV in GBK with `#` comment lines around the detail list: an account line, the
    /// period, a header row, one row per trade or refund (cells end in a tab, so spreadsheets keep
    /// long numbers as text), the end marker and a `#交易合计：N笔，退款合计：M笔` summary. `parse(_:)`
    /// reads it and checks the row counts against that summary, so a truncated download is refused.
    /// Alipay serves it zipped with its summary (`…_业务明细(汇总).csv`), file names in GBK:
    /// ``parse(_:)-(Data)`` opens the zip (libzip) and reads the detail file inside.
    public struct Bill: Sendable, Equatable {
        /// `交易` (a payment) or `退款` (a refund).
        public enum Kind: String, Sendable {
            case trade = "交易"
            case refund = "退款"
        }

        /// One trade or refund.
        public struct Row: Sendable, Equatable {
            public var tradeNo: String
            public var outTradeNo: String
            public var kind: Kind
            public var subject: String
            /// `yyyy-MM-dd HH:mm:ss`, Beijing time.
            public var created: String
            public var finished: String
            /// The order amount; negative for a refund.
            public var amount: Money
            /// What the merchant received (`商家实收`); negative for a refund.
            public var received: Money
            /// `out_request_no` of a refund.
            public var refundRequestNo: String
            /// Alipay's fee (`服务费`).
            public var fee: Money

            public init(
                tradeNo: String, outTradeNo: String, kind: Kind, subject: String, created: String, finished: String, amount: Money,
                received: Money? = nil, refundRequestNo: String = "", fee: Money = Money(minorUnits: 0, currency: .cny)
            ) {
                self.tradeNo = tradeNo
                self.outTradeNo = outTradeNo
                self.kind = kind
                self.subject = subject
                self.created = created
                self.finished = finished
                self.amount = amount
                self.received = received ?? amount
                self.refundRequestNo = refundRequestNo
                self.fee = fee
            }
        }

        /// The columns of the detail list, in Alipay's order.
        public static let columns = [
            "支付宝交易号", "商户订单号", "业务类型", "商品名称", "创建时间", "完成时间", "门店编号", "门店名称", "操作员", "终端号", "对方账户",
            "订单金额（元）", "商家实收（元）", "支付宝红包（元）", "集分宝（元）", "支付宝优惠（元）", "商家优惠（元）", "券核销金额（元）", "券名称",
            "商家红包消费金额（元）", "卡消费金额（元）", "退款批次号/请求号", "服务费（元）", "分润（元）", "备注",
        ]

        /// The merchant's Alipay account (`#账号：[…]`).
        public var account: String
        public var rows: [Row]

        public init(account: String, rows: [Row]) {
            self.account = account
            self.rows = rows
        }

        /// Reads a bill from its bytes: the zip Alipay serves, or the CSV in UTF-8 or GBK.
        /// - Throws: `PaymentError.malformedMessage` saying what is wrong (a zip archive, an
        ///   unknown layout, a bad amount, row counts that disagree with the summary).
        public static func parse(_ data: Data) throws -> Bill {
            try whole(try Reader(data: data))
        }

        /// A CSV's text: UTF-8, or GBK as Alipay writes it (GB 18030 is a superset of GBK and shares ASCII with UTF-8).
        static func text(_ data: Data) throws -> String {
            guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: String.Encoding(rawValue: 0x8000_0632))
            else {
                throw failure("the bill is neither UTF-8 nor GBK text")
            }
            return text
        }

        /// The CSV in an Alipay bill archive whose name contains `kind` (`业务明细`, `账务明细`) and is not its
        /// summary (`汇总`).
        static func detailFile(in zip: Data, kind: String) throws -> Data {
            let entries: [ZipArchive.Entry]
            do {
                entries = try ZipArchive.entries(of: zip)
            } catch let error as ArchiveError {
                throw failure("the zip archive does not open: \(error.message)")
            }
            guard let entry = entries.first(where: { isDetailFile($0.name, kind: kind) })
            else {
                throw failure("the zip archive has no \(kind) CSV (it holds \(entries.map(\.name).joined(separator: ", ")))")
            }
            return entry.data
        }

        /// Whether an archive's file `name` is its `kind` CSV (`业务明细`, `账务明细`), not the summary (`汇总`).
        static func isDetailFile(_ name: String, kind: String) -> Bool {
            name.contains(kind) && !name.contains("汇总") && name.hasSuffix(".csv")
        }

        /// Reads a bill's text.
        /// - Throws: `PaymentError.malformedMessage` saying what is wrong (an unknown layout, a bad
        ///   amount, row counts that disagree with the summary).
        public static func parse(_ text: String) throws -> Bill {
            try whole(try Reader(text: text))
        }

        /// Every row a reader gives, and the account it read.
        private static func whole(_ reader: Reader) throws -> Bill {
            var reader = reader
            var rows: [Row] = []
            while let row = try reader.next() { rows.append(row) }
            return Bill(account: reader.account ?? "", rows: rows)
        }

        /// The bill's text (UTF-8; ``gbkData(from:to:exportedAt:)`` for the bytes Alipay serves).
        /// - Parameters: the period and export time as Alipay prints them, e.g. `2026年11月29日 00:00:00`.
        public func text(from: String, to: String, exportedAt: String) -> String {
            let rule = String(repeating: "-", count: 41)
            var lines = [
                "#支付宝业务明细查询", "#账号：[\(account)]", "#起始日期：[\(from)]   终止日期：[\(to)]", "#\(rule)业务明细列表\(rule)",
                Self.columns.joined(separator: ","),
            ]
            for row in rows {
                var cells = [String](repeating: "", count: Self.columns.count)
                cells[0] = row.tradeNo
                cells[1] = row.outTradeNo
                cells[2] = row.kind.rawValue
                cells[3] = row.subject
                cells[4] = row.created
                cells[5] = row.finished
                cells[11] = row.amount.decimalString
                cells[12] = row.received.decimalString
                cells[21] = row.refundRequestNo
                cells[22] = row.fee.decimalString
                lines.append(cells.map { $0.replacingOccurrences(of: ",", with: "，") + "\t" }.joined(separator: ","))
            }
            let refunds = rows.filter { $0.kind == .refund }.count
            lines += [
                "#\(rule)业务明细列表结束\(rule)", "#交易合计：\(rows.count - refunds)笔，退款合计：\(refunds)笔", "#导出时间：[\(exportedAt)]",
            ]
            return lines.joined(separator: "\r\n") + "\r\n"
        }

        /// ``text(from:to:exportedAt:)`` encoded as GBK (GB 18030), as Alipay serves it.
        public func gbkData(from: String, to: String, exportedAt: String) -> Data {
            let text = text(from: from, to: to, exportedAt: exportedAt)
            return text.data(using: String.Encoding(rawValue: 0x8000_0632)) ?? Data(text.utf8)
        }

        /// The zip Alipay serves: the detail list and its summary (`汇总`), GBK inside and in the
        /// file names. - Parameter stem: `{account}_{yyyyMMdd}`, the names' common start.
        public func zipData(stem: String, from: String, to: String, exportedAt: String) throws -> Data {
            let gbk = String.Encoding(rawValue: 0x8000_0632)
            let trades = rows.filter { $0.kind == .trade }
            let refunds = rows.filter { $0.kind == .refund }
            func total(_ rows: [Row], _ value: (Row) -> Money) -> String {
                ((try? Money.sum(rows.map(value), currency: .cny)) ?? .zero(.cny)).decimalString
            }
            let summary =
                [
                    "#支付宝业务汇总查询", "#账号：[\(account)]", "#起始日期：[\(from)]   终止日期：[\(to)]",
                    "门店编号,门店名称,交易订单总笔数,退款订单总笔数,订单金额（元）,商家实收（元）,支付宝优惠（元）,商家优惠（元）,卡消费金额（元）,服务费（元）,分润（元）,实收净额（元）",
                    [
                        "", "合计", String(trades.count), String(refunds.count), total(rows, \.amount), total(rows, \.received), "0.00",
                        "0.00", "0.00",
                        total(rows, \.fee), "0.00", total(rows) { (try? $0.received - $0.fee) ?? $0.received },
                    ].joined(separator: ","),
                    "#-----------------------------------------业务汇总列表结束-----------------------------------------", "#导出时间：[\(exportedAt)]",
                ].joined(separator: "\r\n") + "\r\n"
            func name(_ text: String) -> [UInt8] { Array(text.data(using: gbk) ?? Data(text.utf8)) }
            do {
                return try ZipArchive.make([
                    .init(rawName: name("\(stem)_业务明细.csv"), data: gbkData(from: from, to: to, exportedAt: exportedAt)),
                    .init(rawName: name("\(stem)_业务明细(汇总).csv"), data: summary.data(using: gbk) ?? Data(summary.utf8)),
                ])
            } catch let error as ArchiveError {
                throw PaymentError(.malformedMessage, provider: .alipay, "the bill could not be zipped: \(error.message)")
            }
        }

        static func cells(_ line: String) -> [String] {
            line.split(separator: ",", omittingEmptySubsequences: false).map(trimmed)
        }

        /// `cell` without the spaces and tabs around it (`CharacterSet.whitespaces`' characters:
        /// tab and every space separator), trimmed without Foundation: a bill has millions of cells.
        static func trimmed(_ cell: Substring) -> String {
            func isSpace(_ scalar: Unicode.Scalar) -> Bool {
                scalar == " " || scalar == "\t" || (scalar.value >= 0x80 && scalar.properties.generalCategory == .spaceSeparator)
            }
            let scalars = cell.unicodeScalars
            guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else {
                return ""
            }
            return String(scalars[first...last])
        }

        static func row(_ cells: [String], line: Int) throws -> Row {
            guard cells.count >= columns.count else { throw failure("line \(line) has \(cells.count) cells, not \(columns.count)") }
            guard let kind = Kind(rawValue: cells[2]) else { throw failure("line \(line) has the unknown business type '\(cells[2])'") }
            func money(_ index: Int) throws -> Money {
                if cells[index].isEmpty { return Money(minorUnits: 0, currency: .cny) }
                guard let value = try? Money(decimal: cells[index], currency: .cny) else {
                    throw failure("line \(line): \(columns[index]) '\(cells[index].prefix(20))' is not an amount in yuan")
                }
                return value
            }
            // 服务费: charged on a trade, returned (in part) with a refund, whichever sign the file gives it.
            let fee = try money(22).minorUnits.magnitude
            return Row(
                tradeNo: cells[0], outTradeNo: cells[1], kind: kind, subject: cells[3], created: cells[4], finished: cells[5],
                amount: try money(11), received: try money(12), refundRequestNo: cells[21],
                fee: Money(minorUnits: kind == .refund ? -Int64(fee) : Int64(fee), currency: .cny))
        }

        static func failure(_ reason: String) -> PaymentError {
            PaymentError(.malformedMessage, provider: .alipay, "Alipay bill refused: \(reason)")
        }
    }
}
