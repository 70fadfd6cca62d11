import Cashier
import CashierArchive
public import Foundation

extension Alipay.Bill {
    /// A trade bill read one row at a time, so a bill of millions of lines need not be held as rows
    /// — nor as text: the zip Alipay serves is inflated a chunk at a time as the rows are read,
    /// and each chunk turned from GBK (as Alipay writes it) into UTF-8.
    ///
    /// ```swift
    /// var reader = try Alipay.Bill.Reader(data: downloaded)
    /// while let row = try reader.next() { total += row.amount.minorUnits }
    /// ```
    ///
    /// The summary's counts are checked when the list ends: the last ``next()`` throws for a
    /// truncated bill, after the rows before the cut were returned. ``Alipay/Bill/parse(_:)-(String)``
    /// is this reader run to the end.
    public struct Reader {
        private var lines: ByteLines
        /// The number of the last line read (1-based, counting non-empty lines).
        private var lineNumber: Int
        private var trades = 0
        private var refunds = 0
        private var finished = false
        /// The merchant's Alipay account (`#账号：[…]`), once its line has been read (it comes before the list).
        public private(set) var account: String?

        /// GB 18030, a superset of GBK.
        static let gbk = String.Encoding(rawValue: 0x8000_0632)

        /// Reads a bill's bytes up to its header row: the zip Alipay serves, or the CSV in UTF-8 or GBK.
        /// - Throws: `PaymentError.malformedMessage` saying what is wrong.
        public init(data: Data) throws {
            if ZipArchive.isZip(data) {
                let entry: ZipArchive.EntryChunks
                do {
                    entry = try ZipArchive.EntryChunks(in: data) { Alipay.Bill.isDetailFile($0, kind: "业务明细") }
                } catch let error as ArchiveError where error.heldFiles != nil {
                    throw Alipay.Bill.failure(
                        "the zip archive has no 业务明细 CSV (it holds \(error.heldFiles?.joined(separator: ", ") ?? ""))")
                } catch let error as ArchiveError {
                    throw Alipay.Bill.failure("the zip archive does not open: \(error.message)")
                }
                try self.init(lines: ByteLines(chunks: UTF8Chunks(entry.next).next))
            } else {
                var whole: [UInt8]? = [UInt8](data)
                let text = UTF8Chunks {
                    defer { whole = nil }
                    return whole
                }
                try self.init(lines: ByteLines(chunks: text.next))
            }
        }

        /// Reads a bill's text up to its header row.
        /// - Throws: `PaymentError.malformedMessage` when there is no detail list or its header is not Alipay's.
        public init(text: String) throws {
            try self.init(lines: ByteLines(Array(text.utf8)))
        }

        /// Reads the bill's UTF-8 `lines` up to its header row.
        private init(lines: ByteLines) throws {
            self.lines = lines
            lineNumber = 0
            var header: String?
            while let line = try nextLine() {
                lineNumber += 1
                if account == nil, line.hasPrefix("#账号：") { account = Self.account(line) }
                if !line.hasPrefix("#") {
                    header = line
                    break
                }
            }
            guard let header else { throw Alipay.Bill.failure("the bill has no detail list") }
            let cells = Alipay.Bill.cells(header)
            let columns = Alipay.Bill.columns
            guard cells.count >= columns.count, Array(cells.prefix(columns.count)) == columns else {
                throw Alipay.Bill.failure("the header row is not Alipay's trade bill layout (first column \(cells.first ?? "none"))")
            }
        }

        /// The next row; `nil` when the list has ended and its summary agrees with the rows read.
        /// - Throws: `PaymentError.malformedMessage` for a row that does not fit, or a summary that
        ///   is missing (a truncated bill) or disagrees.
        public mutating func next() throws -> Alipay.Bill.Row? {
            guard !finished else { return nil }
            let next = try nextLine()
            guard let line = next, !line.hasPrefix("#") else {
                finished = true
                try finish(first: next)
                return nil
            }
            lineNumber += 1
            let row = try Alipay.Bill.row(Alipay.Bill.cells(line), line: lineNumber)
            if row.kind == .trade { trades += 1 } else { refunds += 1 }
            return row
        }

        /// After the list: the first `#交易合计` line from `first` (the line that ended the list) on,
        /// checked against the rows read.
        private mutating func finish(first: String?) throws {
            var summary: String?
            var line = first
            while let current = line {
                if account == nil, current.hasPrefix("#账号：") { account = Self.account(current) }
                if summary == nil, current.hasPrefix("#交易合计") { summary = current }
                line = try nextLine()
            }
            guard let summary else { throw Alipay.Bill.failure("the bill has no #交易合计 summary: it is truncated") }
            let counts = summary.split { !$0.isASCII || !$0.isNumber }.compactMap { Int($0) }
            guard counts.count >= 2, counts[0] == trades, counts[1] == refunds else {
                throw Alipay.Bill.failure(
                    "the summary says \(summary.dropFirst()) but the list has \(trades) trades and \(refunds) refunds")
            }
        }

        private static func account(_ line: String) -> String {
            line.dropFirst(4).trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
        }

        /// The next non-empty line as text (UTF-8: `UTF8Chunks` turned a GBK bill into it).
        /// - Throws: `PaymentError.malformedMessage` for text in neither encoding, or a damaged archive.
        private mutating func nextLine() throws -> String? {
            do {
                return try lines.next().map { String(decoding: $0, as: UTF8.self) }
            } catch let error as ArchiveError {
                throw Alipay.Bill.failure("the bill cannot be read: \(error.message)")
            }
        }
    }
}
