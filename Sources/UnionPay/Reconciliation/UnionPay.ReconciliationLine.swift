public import Cashier
import Foundation

extension UnionPay {
    /// One line of the general transaction file (`INN…ZM_<merId>`, 全渠道商户一般交易明细流水):
    /// 41 fixed-width fields separated by one space, 607 bytes, CRLF at the end.
    ///
    /// The widths are those of UnionPay's demo parser (`parse_file_zm`, upacp SDK 2015) and match
    /// its sample file byte for byte; the names are the file-interface spec's as far as the
    /// demos and the sample show them. Amounts are fen: `txnAmt` 12 zero-padded digits, fees and
    /// settlement a sign (`D` debit to the merchant, `C` credit, space none) then 12 digits.
    public struct ReconciliationLine: Sendable, Equatable {
        /// Each field's width, in bytes.
        public static let widths = [
            3, 11, 11, 6, 10, 19, 12, 4, 2, 21, 2, 32, 2, 6, 10, 13, 13, 4, 15, 2, 2, 6, 2, 4, 32, 1, 21, 15, 1, 15, 32, 13, 13, 8, 32, 13,
            13, 12, 2, 1, 131,
        ]
        /// A full line's length without its CRLF.
        public static let length = widths.reduce(widths.count - 1, +)

        /// The 41 fields, trailing spaces removed (GBK text decoded).
        public let columns: [String]

        /// 交易代码 (`S22` consume, `S56`, …).
        public var transactionCode: String { columns[0] }
        /// `traceNo` (系统跟踪号).
        public var traceNo: String { columns[3] }
        /// `traceTime`, MMDDhhmmss.
        public var traceTime: String { columns[4] }
        /// The card number, masked.
        public var maskedAccount: String { columns[5] }
        /// `txnAmt`.
        public var amount: Money { Money(minorUnits: Int64(columns[6]) ?? 0, currency: .cny) }
        /// `queryId`.
        public var queryID: String { columns[9] }
        /// `orderId`.
        public var orderID: String { columns[11] }
        /// The merchant's fee: negative when charged (`D`), positive when returned (`C`).
        public var fee: Money { Self.signed(columns[15]) }
        /// What is settled for this line: positive credited (`C`), negative debited (`D`).
        public var settleAmount: Money { Self.signed(columns[16]) }
        /// `txnType`: `01` consume, `04` refund, `31` undo.
        public var transactionType: String { columns[19] }
        public var transactionSubType: String { columns[20] }
        public var bizType: String { columns[21] }
        /// `origQryId` for an undo or refund.
        public var originalQueryID: String { columns[26] }
        /// `merId`.
        public var merchantID: String { columns[27] }
        /// 清算净额.
        public var netSettleAmount: Money { Self.signed(columns[32]) }
        /// `reqReserved` (商户自定义域), as far as its 32 bytes go.
        public var reserved: String { columns[34] }

        /// Parses one line (without its line break).
        /// - Throws: `PaymentError.malformedMessage` for a line of the wrong length or an amount
        ///   that is not digits.
        public init(line: some Collection<UInt8>) throws {
            var bytes = Array(line)
            // Some tools trim trailing spaces: the last (reserved) field may be short or gone.
            let required = Self.length - Self.widths.last!
            guard bytes.count >= required - 1, bytes.count <= Self.length else {
                throw UnionPay.failure(.malformedMessage, "a reconciliation line is \(bytes.count) bytes, not \(Self.length)")
            }
            bytes += Array(repeating: UInt8(ascii: " "), count: Self.length - bytes.count)
            var columns: [String] = []
            var start = 0
            for width in Self.widths {
                let field = bytes[start..<(start + width)]
                let text =
                    String(validating: field, as: UTF8.self)
                    ?? String(data: Data(field), encoding: ReconciliationFile.gbk) ?? String(decoding: field, as: UTF8.self)
                columns.append(String(text.reversed().drop { $0 == " " }.reversed()))
                start += width + 1
            }
            guard columns[6].utf8.count == 12, Int64(columns[6]) != nil else {
                throw UnionPay.failure(.malformedMessage, "a reconciliation line's txnAmt '\(columns[6].prefix(12))' is not 12 digits")
            }
            for index in [15, 16, 32] where !Self.isSignedAmount(columns[index]) {
                throw UnionPay.failure(
                    .malformedMessage, "a reconciliation line's field \(index + 1) '\(columns[index].prefix(13))' is not an amount")
            }
            self.columns = columns
        }

        /// A line from its fields (the sandbox writes its files so); fields not given are blank.
        public init(
            transactionCode: String, traceNo: String, traceTime: String, maskedAccount: String, amount: Money, queryID: String,
            orderID: String, fee: Money, transactionType: String, originalQueryID: String = "", merchantID: String, reserved: String = ""
        ) {
            var columns = Array(repeating: "", count: Self.widths.count)
            let settle = Money(minorUnits: amount.minorUnits * (transactionType == "01" ? 1 : -1) + fee.minorUnits, currency: .cny)
            columns[0] = transactionCode
            columns[1] = "88022900"
            columns[2] = "00049993"
            columns[3] = traceNo
            columns[4] = traceTime
            columns[5] = maskedAccount
            columns[6] = Self.digits(amount.minorUnits.magnitude, 12)
            columns[7] = "4899"
            columns[8] = "07"
            columns[9] = queryID
            columns[10] = "01"
            columns[11] = orderID
            columns[12] = "01"
            columns[15] = Self.signedText(fee)
            columns[16] = Self.signedText(settle)
            columns[17] = "0001"
            columns[19] = transactionType
            columns[20] = transactionType == "01" ? "01" : "00"
            columns[21] = "000201"
            columns[26] = originalQueryID
            columns[27] = merchantID
            columns[29] = "000000000000000"
            columns[34] = reserved
            columns[31] = " " + Self.digits(0, 12)
            columns[32] = Self.signedText(settle)
            columns[35] = " " + Self.digits(0, 12)
            columns[36] = " " + Self.digits(0, 12)
            columns[37] = " " + Self.digits(0, 11)
            columns[39] = "7"
            self.columns = columns
        }

        /// The line as bytes, without its CRLF: each field padded with spaces to its width.
        public var bytes: [UInt8] {
            var out: [UInt8] = []
            for (index, width) in Self.widths.enumerated() {
                if index > 0 { out.append(UInt8(ascii: " ")) }
                var field = Array((columns[index].data(using: ReconciliationFile.gbk) ?? Data(columns[index].utf8)).prefix(width))
                field += Array(repeating: UInt8(ascii: " "), count: width - field.count)
                out += field
            }
            return out
        }

        static func isSignedAmount(_ text: String) -> Bool {
            guard let first = text.first else { return true }
            let digits = "DC ".contains(first) ? text.dropFirst() : Substring(text)
            return digits.isEmpty || (digits.count <= 12 && digits.allSatisfy { $0.isASCII && $0.isNumber })
        }

        static func signed(_ text: String) -> Money {
            let negative = text.hasPrefix("D")
            let fen = Int64(text.drop { !$0.isNumber }) ?? 0
            return Money(minorUnits: negative ? -fen : fen, currency: .cny)
        }

        static func signedText(_ amount: Money) -> String {
            (amount.isNegative ? "D" : "C") + digits(amount.minorUnits.magnitude, 12)
        }

        static func digits(_ value: UInt64, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
    }
}
