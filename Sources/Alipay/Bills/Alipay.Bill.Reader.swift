public import Cashier
import CashierArchive
public import Foundation

extension Alipay.Bill {
    /// A trade bill read one row at a time, so a bill of millions of lines need not be held as rows.
    ///
    /// ```swift
    /// var reader = try Alipay.Bill.Reader(data: downloaded)
    /// while let row = try reader.next() { total += row.amount.minorUnits }
    /// ```
    ///
    /// The summary's counts are checked when the list ends: the last ``next()`` throws for a
    /// truncated bill, after the rows before the cut were returned. ``Alipay/Bill/parse(_:)-(String)``
    /// is this reader run to the end.
    public struct Reader: Sendable {
        private let text: String
        /// Where the lines not yet read begin.
        private var position: String.Index
        /// The number of the last line read (1-based, counting non-empty lines).
        private var lineNumber: Int
        private var trades = 0
        private var refunds = 0
        private var finished = false
        /// The merchant's Alipay account (`#账号：[…]`), once its line has been read (it comes before the list).
        public private(set) var account: String?

        /// Reads a bill's bytes up to its header row: the zip Alipay serves, or the CSV in UTF-8 or GBK.
        /// - Throws: `PaymentError.malformedMessage` saying what is wrong.
        public init(data: Data) throws {
            if ZipArchive.isZip(data) {
                try self.init(text: try Alipay.Bill.text(try Alipay.Bill.detailFile(in: data, kind: "业务明细")))
            } else {
                try self.init(text: try Alipay.Bill.text(data))
            }
        }

        /// Reads a bill's text up to its header row.
        /// - Throws: `PaymentError.malformedMessage` when there is no detail list or its header is not Alipay's.
        public init(text: String) throws {
            self.text = text
            var position = text.startIndex
            var number = 0
            var account: String?
            var header: Substring?
            while let line = Self.line(in: text, from: &position) {
                number += 1
                if account == nil, line.hasPrefix("#账号：") { account = Self.account(line) }
                if !line.hasPrefix("#") {
                    header = line
                    break
                }
            }
            guard let header else { throw Alipay.Bill.failure("the bill has no detail list") }
            let cells = Alipay.Bill.cells(String(header))
            let columns = Alipay.Bill.columns
            guard cells.count >= columns.count, Array(cells.prefix(columns.count)) == columns else {
                throw Alipay.Bill.failure("the header row is not Alipay's trade bill layout (first column \(cells.first ?? "none"))")
            }
            self.position = position
            self.lineNumber = number
            self.account = account
        }

        /// The next row; `nil` when the list has ended and its summary agrees with the rows read.
        /// - Throws: `PaymentError.malformedMessage` for a row that does not fit, or a summary that
        ///   is missing (a truncated bill) or disagrees.
        public mutating func next() throws -> Alipay.Bill.Row? {
            guard !finished else { return nil }
            let next = Self.line(in: text, from: &position)
            guard let line = next, !line.hasPrefix("#") else {
                finished = true
                try finish(first: next)
                return nil
            }
            lineNumber += 1
            let row = try Alipay.Bill.row(Alipay.Bill.cells(String(line)), line: lineNumber)
            if row.kind == .trade { trades += 1 } else { refunds += 1 }
            return row
        }

        /// After the list: the first `#交易合计` line from `first` (the line that ended the list) on,
        /// checked against the rows read.
        private mutating func finish(first: Substring?) throws {
            var summary: Substring?
            var line = first
            while let current = line {
                if account == nil, current.hasPrefix("#账号：") { account = Self.account(current) }
                if summary == nil, current.hasPrefix("#交易合计") { summary = current }
                line = Self.line(in: text, from: &position)
            }
            guard let summary else { throw Alipay.Bill.failure("the bill has no #交易合计 summary: it is truncated") }
            let counts = summary.split { !$0.isASCII || !$0.isNumber }.compactMap { Int($0) }
            guard counts.count >= 2, counts[0] == trades, counts[1] == refunds else {
                throw Alipay.Bill.failure(
                    "the summary says \(summary.dropFirst()) but the list has \(trades) trades and \(refunds) refunds")
            }
        }

        private static func account(_ line: Substring) -> String {
            line.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
        }

        /// The next non-empty line from `position` (`\n`, `\r\n` or `\r` end a line), a slice of the text.
        private static func line(in text: String, from position: inout String.Index) -> Substring? {
            while position < text.endIndex {
                let rest = text[position...]
                let end = rest.firstIndex { $0 == "\n" || $0 == "\r\n" || $0 == "\r" } ?? text.endIndex
                position = end < text.endIndex ? text.index(after: end) : end
                if end > rest.startIndex { return text[rest.startIndex..<end] }
            }
            return nil
        }
    }
}
