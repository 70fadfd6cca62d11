import Cashier
import CashierCrypto
import Foundation

extension UnionPay {
    /// `application/x-www-form-urlencoded`, as requests go to UnionPay and back notifications
    /// come from it (UTF-8; `+` is a space).
    public enum FormBody {
        /// The largest notification accepted.
        public static let sizeLimit = 64 * 1024

        /// Decodes a form body.
        /// - Throws: `PaymentError.malformedMessage` for a bad escape, invalid UTF-8, a repeated
        ///   or empty name, or a body over the limit.
        public static func parse(_ body: some Collection<UInt8>) throws -> [String: String] {
            guard body.count <= sizeLimit else { throw refused("the body is over the \(sizeLimit)-byte limit") }
            var fields: [String: String] = [:]
            for segment in Array(body).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                let equals = segment.firstIndex(of: UInt8(ascii: "=")) ?? segment.endIndex
                let name = try decode(segment[segment.startIndex..<equals])
                let value = equals < segment.endIndex ? try decode(segment[(equals + 1)...]) : ""
                guard !name.isEmpty else { throw refused("a field has no name") }
                guard fields[name] == nil else { throw refused("the field '\(name.prefix(40))' appears twice") }
                fields[name] = value
            }
            return fields
        }

        /// Encodes fields sorted by name, every byte but RFC 3986's unreserved ones escaped.
        public static func encode(_ fields: [String: String]) -> String {
            FormEncoding.encode(fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { ($0.key, $0.value) })
        }

        private static func decode(_ bytes: ArraySlice<UInt8>) throws -> String {
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var index = bytes.startIndex
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "+") {
                    out.append(UInt8(ascii: " "))
                } else if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.endIndex,
                        let high = Hex.value(ofDigit: bytes[index + 1]), let low = Hex.value(ofDigit: bytes[index + 2])
                    else { throw refused("a '%' is not followed by two hex digits") }
                    out.append(high << 4 | low)
                    index += 2
                } else {
                    out.append(byte)
                }
                index += 1
            }
            guard let text = String(validating: out, as: UTF8.self) else { throw refused("a field is not UTF-8") }
            return text
        }

        static func refused(_ reason: String) -> PaymentError {
            UnionPay.failure(.malformedMessage, "form body refused: \(reason)")
        }
    }
}
