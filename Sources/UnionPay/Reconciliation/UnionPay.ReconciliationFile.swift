import Cashier
import CashierArchive
import CashierCrypto
public import Foundation

extension UnionPay {
    /// A day's reconciliation file, as the file download (`txnType=76`, `fileType=00`) hands it:
    /// `fileContent` is base64 of a zlib stream (PHP `gzcompress`) of a zip named
    /// `<merId>_<yyyyMMdd>.zip`, which holds the general transaction file `INN<yyMMdd>…ZM_<merId>`
    /// (``ReconciliationLine``s, ASCII, CRLF) and the summary `RD…_<merId>` (GBK text).
    ///
    /// ```swift
    /// if let file = try await client.reconciliationFile(settleDate: "1206", time: Date()) {
    ///     for line in file.lines where line.transactionType == "01" { match(line.orderID, line.amount) }
    /// }
    /// ```
    public struct ReconciliationFile: Sendable {
        /// GB 18030, the superset of GBK that Foundation names.
        static let gbk = String.Encoding(rawValue: 0x8000_0632)
        /// The largest answer a file download may be (UnionPay serves files up to 20 MB, base64 grows them).
        public static let answerLimit = 40 * 1024 * 1024

        /// `fileName` from the answer.
        public let fileName: String
        /// Every file in the zip, by name.
        public let files: [String: Data]
        /// The general transaction file's lines, in file order.
        public let lines: [ReconciliationLine]
        /// The summary (`RD…`), decoded from GBK.
        public let summary: String?

        /// Decodes an answer's `fileContent`.
        /// - Throws: `PaymentError.malformedMessage` when it is not base64, zlib, a zip, or holds
        ///   a line that does not parse.
        public init(fileContent: String, fileName: String) throws {
            let zip: Data
            do {
                zip = try Zlib.decompress(try Base64.decode(fileContent), limit: 200 * 1024 * 1024)
            } catch let error as ArchiveError {
                throw UnionPay.failure(.malformedMessage, "fileContent is not zlib-compressed: \(error.message)")
            } catch {
                throw UnionPay.failure(.malformedMessage, "fileContent is not base64")
            }
            try self.init(zip: zip, fileName: fileName)
        }

        /// Reads the zip itself.
        public init(zip: Data, fileName: String) throws {
            let entries: [ZipArchive.Entry]
            do {
                entries = try ZipArchive.entries(of: zip, limit: 200 * 1024 * 1024)
            } catch let error as ArchiveError {
                throw UnionPay.failure(.malformedMessage, "the reconciliation file is not a zip: \(error.message)")
            }
            var files: [String: Data] = [:]
            var lines: [ReconciliationLine] = []
            var summary: String?
            for entry in entries {
                let name = entry.name.split(separator: "/").last.map(String.init) ?? entry.name
                files[name] = entry.data
                if name.hasPrefix("INN"), name.contains("ZM_") {
                    for (number, line) in Self.lines(entry.data).enumerated() {
                        do {
                            lines.append(try ReconciliationLine(line: line))
                        } catch let error as PaymentError {
                            throw UnionPay.failure(.malformedMessage, "\(name) line \(number + 1): \(error.message)")
                        }
                    }
                } else if name.hasPrefix("RD") {
                    summary = String(data: entry.data, encoding: Self.gbk) ?? String(decoding: entry.data, as: UTF8.self)
                }
            }
            self.fileName = fileName
            self.files = files
            self.lines = lines
            self.summary = summary
        }

        /// The non-empty lines of a file, CRLF or LF.
        static func lines(_ data: Data) -> [ArraySlice<UInt8>] {
            Array(data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map { line in
                line.last == UInt8(ascii: "\r") ? line.dropLast() : line
            }.filter { !$0.isEmpty }
        }

        // MARK: Writing (the sandbox serves its files so)

        /// The zip for a day: `INN<yyMMdd>88ZM_<merId>` with `lines`, and a GBK summary.
        /// - Parameters:
        ///   - merchantID: the merchant's `merId`, in the files' names.
        ///   - settleDate: the day, `yyyyMMdd`.
        ///   - lines: the day's transactions.
        public static func zip(merchantID: String, settleDate: String, lines: [ReconciliationLine]) throws -> Data {
            let short = String(settleDate.dropFirst(2))
            var detail: [UInt8] = []
            for line in lines { detail += line.bytes + [0x0D, 0x0A] }
            let summaryText = summary(merchantID: merchantID, settleDate: settleDate, lines: lines)
            do {
                return try ZipArchive.make([
                    .init(rawName: Array("INN\(short)88ZM_\(merchantID)".utf8), data: Data(detail)),
                    .init(
                        rawName: Array("RD2010\(short)01_\(merchantID)".utf8), data: summaryText.data(using: gbk) ?? Data(summaryText.utf8)),
                ])
            } catch let error as ArchiveError {
                throw UnionPay.failure(.malformedMessage, "the reconciliation file could not be zipped: \(error.message)")
            }
        }

        /// `fileContent` for a zip: base64 of its zlib stream.
        public static func fileContent(zip: Data) throws -> String {
            do {
                return Base64.encode(try Zlib.compress(zip))
            } catch let error as ArchiveError {
                throw UnionPay.failure(.malformedMessage, "the reconciliation file could not be compressed: \(error.message)")
            }
        }

        /// The summary table (中国银联全渠道商户交易汇总表), in the sample's layout.
        static func summary(merchantID: String, settleDate: String, lines: [ReconciliationLine]) -> String {
            func yuan(_ fen: Int64) -> String {
                let text = Money(minorUnits: fen, currency: .cny).decimalString
                return String(repeating: " ", count: max(0, 16 - text.count)) + text
            }
            let consumes = lines.filter { $0.transactionType == "01" }
            let reversals = lines.filter { $0.transactionType != "01" }
            func row(_ label: String, _ rows: [ReconciliationLine], debit: Bool) -> String {
                let amount = rows.reduce(Int64(0)) { $0 + $1.amount.minorUnits }
                let fee = rows.reduce(Int64(0)) { $0 + $1.fee.minorUnits }
                let net = rows.reduce(Int64(0)) { $0 + $1.settleAmount.minorUnits }
                let count = String(rows.count)
                return label + String(repeating: " ", count: max(0, 24 - label.count * 2))
                    + String(repeating: " ", count: max(0, 8 - count.count))
                    + count + yuan(debit ? amount : 0) + yuan(debit ? 0 : amount) + yuan(max(0, -fee)) + yuan(max(0, fee))
                    + yuan(max(0, -net)) + yuan(max(0, net))
            }
            let rule = String(repeating: "_", count: 136)
            return [
                String(repeating: " ", count: 73) + "中国银联全渠道商户交易汇总表", "",
                "商户代码:\(merchantID)" + String(repeating: " ", count: 40) + "清算币种:人民币",
                "清算日期:\(settleDate)", "",
                "交易类型            交易笔数               交易金额                         费用                              资金清算差额",
                String(repeating: " ", count: 41) + "借              贷              借              贷               借                  贷",
                rule,
                row("消费", consumes, debit: false), row("退货", reversals, debit: true), rule, row("总计", lines, debit: false), "",
            ].joined(separator: "\r\n")
        }
    }
}
