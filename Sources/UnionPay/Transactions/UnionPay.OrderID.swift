public import Cashier
public import Foundation

extension UnionPay {
    /// The rules for the fields that identify a transaction: `orderId` and `txnTime`.
    public enum Identifiers {
        /// The shortest and longest `orderId` (AN8..40 in the data-element table).
        public static let orderIDLength = 8...40

        /// Checks an `orderId`: 8 to 40 ASCII letters and digits. The demos add "no `-` or `_`";
        /// letters and digits only keeps to both.
        /// - Throws: `PaymentError.invalidRequest` saying which rule it breaks.
        public static func checkOrderID(_ orderID: String) throws {
            guard orderIDLength.contains(orderID.utf8.count) else {
                throw UnionPay.failure(.invalidRequest, "orderId must be 8 to 40 characters (it has \(orderID.utf8.count))")
            }
            guard orderID.utf8.allSatisfy(isAlphanumeric) else {
                throw UnionPay.failure(.invalidRequest, "orderId must be ASCII letters and digits only (no '-', '_' or other characters)")
            }
        }

        /// `txnTime` for `date`: `YYYYMMDDhhmmss` in Beijing time.
        public static func transactionTime(_ date: Date) -> String {
            BeijingTime.string(from: date, .compact)
        }

        /// Checks a `txnTime`: 14 digits.
        public static func checkTransactionTime(_ text: String) throws {
            guard text.utf8.count == 14, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
                throw UnionPay.failure(.invalidRequest, "txnTime must be YYYYMMDDhhmmss (Beijing time)")
            }
        }

        /// `txnAmt` for `amount`: yuan in fen, no decimal point, no padding (N1..12).
        public static func amountText(_ amount: Money) throws -> String {
            guard amount.currency == .cny else {
                throw UnionPay.failure(.invalidRequest, "UnionPay's gateway takes CNY (currencyCode 156), not \(amount.currency.code)")
            }
            guard amount.isPositive, amount.minorUnits < 1_000_000_000_000 else {
                throw UnionPay.failure(.invalidRequest, "txnAmt must be 1 to 999999999999 fen")
            }
            return String(amount.minorUnits)
        }

        /// The amount of a `txnAmt` (or `settleAmt`) field: fen, digits only.
        public static func amount(_ text: String?) -> Money? {
            guard let text, (1...12).contains(text.utf8.count),
                text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let fen = Int64(text)
            else { return nil }
            return Money(minorUnits: fen, currency: .cny)
        }

        /// Refuses text that would break an answer's raw `k=v&…` (the gateway echoes `reqReserved`):
        /// `&`, braces and brackets, CR and LF.
        static func checkEchoed(_ text: String, _ name: String) throws {
            guard !text.contains(where: { "&{}[]\r\n".contains($0) }), text.utf8.count <= 1024 else {
                throw UnionPay.failure(.invalidRequest, "\(name) must not contain '&', braces, brackets or line breaks (≤ 1024 bytes)")
            }
        }

        static func checkURL(_ url: URL, _ name: String) throws {
            guard url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw UnionPay.failure(.invalidRequest, "\(name) must be an http(s) URL")
            }
        }

        private static func isAlphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }
}
