public import Cashier
public import CashierArchive
public import Foundation

extension WeChatPay.Bill {
    /// A trade bill read one row at a time, so a bill of millions of lines need not be held as rows
    /// — nor as text: from a gzipped bill (`tar_type=GZIP`) it inflates a chunk at a time.
    ///
    /// ```swift
    /// var reader = try WeChatPay.Bill.Reader(text: text)   // or Reader(file: gzippedOrPlainBytes)
    /// while let row = try reader.next() { total += row.amount.minorUnits }
    /// ```
    ///
    /// ``WeChatPay/Bill/init(parsing:)`` is this reader run to the end.
    public struct Reader {
        private var lines: ByteLines
        /// The header's names, in the file's order.
        private let columns: [String]
        /// Where each value a row needs sits: see ``Reader/wanted``.
        private let positions: [Int]
        /// The line numbers of the next row (1-based, counting non-empty lines, the header as 1).
        private var lineNumber = 1
        private var finished = false

        private static let wanted = [
            "交易时间", "公众账号ID", "商户号", "微信订单号", "商户订单号", "交易状态", "货币种类", "订单金额", "退款金额", "商户退款单号", "商品名称", "手续费",
        ]

        /// Reads the bill's header line.
        /// - Throws: `PaymentError.malformedMessage` when the text does not start with the header or lacks a column.
        public init(text: String) throws {
            try self.init(lines: ByteLines(Array(text.utf8)))
        }

        /// Reads a bill as WeChat Pay serves it: gzipped (`tar_type=GZIP`: inflated as it is
        /// read) or plain UTF-8 text.
        /// - Throws: `PaymentError.malformedMessage` as ``init(text:)`` does.
        public init(file: Data) throws {
            if Gzip.isGzip(file) {
                let chunks = try GzipChunks(file)
                try self.init(lines: ByteLines(chunks: chunks.next))
            } else {
                try self.init(lines: ByteLines(file))
            }
        }

        /// Reads the header line of the bill `lines` holds.
        /// - Throws: `PaymentError.malformedMessage` as ``init(text:)`` does.
        public init(lines: ByteLines) throws {
            var lines = lines
            guard let headerLine = try Self.line(&lines), headerLine.hasPrefix("交易时间,") else {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "the bill does not start with its header line")
            }
            let columns = headerLine.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            self.positions = try Self.wanted.map { name in
                guard let index = columns.firstIndex(of: name) else {
                    throw PaymentError(.malformedMessage, provider: .wechatV2, "the bill has no column \(name)")
                }
                return index
            }
            self.columns = columns
            self.lines = lines
        }

        /// The next row; `nil` at the summary or the end of the text.
        /// - Throws: `PaymentError.malformedMessage` naming the line that does not fit.
        public mutating func next() throws -> Row? {
            guard !finished, let line = try Self.bytes(&lines), !line.starts(with: Self.summaryMarker) else {
                finished = true
                return nil
            }
            lineNumber += 1
            let number = lineNumber
            // The line's values found by their commas, and only the twelve a row needs made into
            // text (without the backquote WeChat puts before each).
            var bounds: [Range<Int>] = []
            bounds.reserveCapacity(columns.count)
            var start = line.startIndex
            for index in line.indices where line[index] == 0x2C {
                bounds.append(start..<index)
                start = index + 1
            }
            bounds.append(start..<line.endIndex)
            guard bounds.count == columns.count else {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV2, "bill line \(number) has \(bounds.count) values, not \(columns.count)")
            }
            func value(_ wanted: Int) -> String {
                var range = bounds[positions[wanted]]
                if line[range].first == 0x60 { range = range.lowerBound + 1..<range.upperBound }
                return String(decoding: line[range], as: UTF8.self)
            }
            do {
                let tradeState = value(5)
                let code = value(6)
                let currency = try Currency(code: code.isEmpty ? "CNY" : code)
                return Row(
                    tradeTime: value(0), appID: value(1), mchID: value(2), transactionID: value(3), outTradeNo: value(4),
                    tradeState: tradeState, amount: try Money(decimal: value(7), currency: currency),
                    refundAmount: try Money(decimal: value(8), currency: currency), outRefundNo: value(9), subject: value(10),
                    fee: try WeChatPay.Bill.fee(value(11), currency: currency, refund: tradeState == "REFUND"))
            } catch {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "bill line \(number) has an unreadable amount or currency")
            }
        }

        /// The summary's first line starts with this: the rows have ended.
        private static let summaryMarker = Array("总交易单数".utf8)

        /// The next non-empty line, as text.
        /// - Throws: `PaymentError.malformedMessage` when the gzip stream is damaged or truncated.
        private static func line(_ lines: inout ByteLines) throws -> String? {
            try bytes(&lines).map { String(decoding: $0, as: UTF8.self) }
        }

        /// The next non-empty line's bytes.
        /// - Throws: `PaymentError.malformedMessage` when the gzip stream is damaged or truncated.
        private static func bytes(_ lines: inout ByteLines) throws -> ArraySlice<UInt8>? {
            do {
                return try lines.next()
            } catch let error as ArchiveError {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "the bill cannot be read: \(error.message)")
            }
        }
    }
}
