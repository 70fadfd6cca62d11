import Cashier

extension Alipay {
    /// `application/x-www-form-urlencoded` bodies as Alipay posts them (UTF-8).
    public enum FormBody {
        /// The largest body accepted.
        public static let sizeLimit = 64 * 1024

        /// Decodes `k=v&k=v` (percent-escapes, `+` for space).
        /// - Throws: `PaymentError.malformedMessage` for a bad escape, invalid UTF-8, a repeated
        ///   name, or a body over the limit.
        public static func parse(_ body: some Collection<UInt8>) throws -> [String: String] {
            guard body.count <= sizeLimit else { throw failure("the body is over the \(sizeLimit)-byte limit") }
            var fields: [String: String] = [:]
            for pair in Array(body).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
                let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                let name = try decode(parts[0])
                let value = parts.count > 1 ? try decode(parts[1]) : ""
                guard !name.isEmpty else { throw failure("a field has no name") }
                guard fields[name] == nil else { throw failure("the field '\(name.prefix(40))' appears twice") }
                fields[name] = value
            }
            return fields
        }

        /// Encodes fields as a form body, percent-escaping everything but unreserved characters.
        public static func encode(_ fields: [(String, String)]) -> String {
            fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
        }

        /// Percent-escapes for a form or query value (RFC 3986 unreserved characters stay).
        public static func escape(_ text: String) -> String {
            var out = ""
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                    out.unicodeScalars.append(Unicode.Scalar(byte))
                default:
                    out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(2)
                }
            }
            return out
        }

        private static func decode(_ bytes: ArraySlice<UInt8>) throws -> String {
            // Most values need no unescaping: make the string straight from the bytes.
            if !bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) {
                guard let text = bytes.withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) }) else {
                    throw failure("a field is not valid UTF-8")
                }
                return text
            }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var index = bytes.startIndex
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "+") {
                    out.append(UInt8(ascii: " "))
                } else if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.endIndex, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2])
                    else { throw failure("a '%' is not followed by two hex digits") }
                    out.append(high << 4 | low)
                    index += 2
                } else {
                    out.append(byte)
                }
                index += 1
            }
            guard let text = String(validating: out, as: UTF8.self) else { throw failure("a field is not valid UTF-8") }
            return text
        }

        private static func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }

        static func failure(_ reason: String) -> PaymentError {
            PaymentError(.malformedMessage, provider: .alipay, "Alipay form body refused: \(reason)")
        }
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
