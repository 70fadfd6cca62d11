public import Cashier

extension WeChatPay.Bill {
    /// A trade bill read one row at a time, so a bill of millions of lines need not be held as rows.
    ///
    /// ```swift
    /// var reader = try WeChatPay.Bill.Reader(text: text)
    /// while let row = try reader.next() { total += row.amount.minorUnits }
    /// ```
    ///
    /// ``WeChatPay/Bill/init(parsing:)`` is this reader run to the end.
    public struct Reader: Sendable {
        private let text: String
        /// Where the lines not yet read begin.
        private var position: String.Index
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
            self.text = text
            var position = text.startIndex
            guard let headerLine = Self.line(in: text, from: &position), headerLine.hasPrefix("交易时间,") else {
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
            self.position = position
        }

        /// The next row; `nil` at the summary or the end of the text.
        /// - Throws: `PaymentError.malformedMessage` naming the line that does not fit.
        public mutating func next() throws -> Row? {
            guard !finished, let line = Self.line(in: text, from: &position), !line.hasPrefix("总交易单数") else {
                finished = true
                return nil
            }
            lineNumber += 1
            let number = lineNumber
            let values = line.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.hasPrefix("`") ? String($0.dropFirst()) : String($0)
            }
            guard values.count == columns.count else {
                throw PaymentError(
                    .malformedMessage, provider: .wechatV2, "bill line \(number) has \(values.count) values, not \(columns.count)")
            }
            do {
                let currency = try Currency(code: values[positions[6]].isEmpty ? "CNY" : values[positions[6]])
                return Row(
                    tradeTime: values[positions[0]], appID: values[positions[1]], mchID: values[positions[2]],
                    transactionID: values[positions[3]],
                    outTradeNo: values[positions[4]], tradeState: values[positions[5]],
                    amount: try Money(decimal: values[positions[7]], currency: currency),
                    refundAmount: try Money(decimal: values[positions[8]], currency: currency), outRefundNo: values[positions[9]],
                    subject: values[positions[10]],
                    fee: try WeChatPay.Bill.fee(values[positions[11]], currency: currency, refund: values[positions[5]] == "REFUND"))
            } catch {
                throw PaymentError(.malformedMessage, provider: .wechatV2, "bill line \(number) has an unreadable amount or currency")
            }
        }

        /// The next non-empty line from `position` (any newline ends a line, as `split(whereSeparator: \.isNewline)`), a slice of the text.
        private static func line(in text: String, from position: inout String.Index) -> Substring? {
            while position < text.endIndex {
                let rest = text[position...]
                let end = rest.firstIndex(where: \.isNewline) ?? text.endIndex
                position = end < text.endIndex ? text.index(after: end) : end
                if end > rest.startIndex { return text[rest.startIndex..<end] }
            }
            return nil
        }
    }
}
