import Cashier
import Foundation

extension UnionPay {
    /// The synchronous answers' format: `k=v&k=v` with raw values, **not** URL-decoded.
    ///
    /// Values may hold `=`, `+`, `/`, `%` and CRLF (the PEM in `signPubKeyCert`) as they are; a
    /// `{` or `[` protects everything up to the next `}` or `]` (not nested), `&` included, as
    /// UnionPay's SDKs read it (`SDKUtil.parseQString`). Where those SDKs guess, this parser
    /// refuses: a segment without `=`, a name given twice, a name that is not ASCII letters and
    /// digits, a bracket never closed, invalid UTF-8, a NUL, or a body over the limit. Empty
    /// segments (`&&`, a trailing `&`) are skipped.
    ///
    /// ```swift
    /// let fields = try UnionPay.ResponseBody.parse(Array("respCode=00&reqReserved={a=1&b=2}".utf8))
    /// fields["reqReserved"]   // "{a=1&b=2}"
    /// ```
    public enum ResponseBody {
        /// The largest answer accepted by default (a file download's is given its own limit).
        public static let defaultLimit = 256 * 1024

        /// Parses an answer's bytes.
        /// - Throws: `PaymentError.malformedMessage` saying what is wrong.
        public static func parse(_ body: some Collection<UInt8>, limit: Int = defaultLimit) throws -> [String: String] {
            guard body.count <= limit else { throw refused("the body is over the \(limit)-byte limit") }
            let bytes = Array(body)
            guard !bytes.contains(0) else { throw refused("the body holds a NUL byte") }
            guard String(validating: bytes, as: UTF8.self) != nil else { throw refused("the body is not UTF-8") }
            var fields: [String: String] = [:]
            var start = 0
            var index = 0
            var closing: UInt8?
            func finish(_ end: Int) throws {
                defer { start = end + 1 }
                guard end > start else { return }
                let segment = bytes[start..<end]
                guard let equals = segment.firstIndex(of: UInt8(ascii: "=")) else {
                    throw refused("a segment has no '=' (\(String(decoding: segment.prefix(20), as: UTF8.self)))")
                }
                let name = segment[start..<equals]
                guard !name.isEmpty, name.allSatisfy(isNameByte) else {
                    throw refused("'\(String(decoding: name.prefix(20), as: UTF8.self))' is not a field name")
                }
                let key = String(decoding: name, as: UTF8.self)
                guard fields[key] == nil else { throw refused("the field '\(key)' appears twice") }
                fields[key] = String(decoding: segment[(equals + 1)...], as: UTF8.self)
            }
            while index < bytes.count {
                let byte = bytes[index]
                if let close = closing {
                    if byte == close { closing = nil }
                } else if byte == UInt8(ascii: "{") {
                    closing = UInt8(ascii: "}")
                } else if byte == UInt8(ascii: "[") {
                    closing = UInt8(ascii: "]")
                } else if byte == UInt8(ascii: "&") {
                    try finish(index)
                }
                index += 1
            }
            guard closing == nil else { throw refused("a '{' or '[' is never closed") }
            try finish(bytes.count)
            guard !fields.isEmpty else { throw refused("the body has no fields") }
            return fields
        }

        /// Writes fields in this format, sorted by name (the sandbox answers so). Values are
        /// written raw: one holding `&` must be wrapped in `{…}` or `[…]` by the caller.
        public static func encode(_ fields: [String: String]) -> String {
            fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
        }

        private static func isNameByte(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }

        static func refused(_ reason: String) -> PaymentError {
            UnionPay.failure(.malformedMessage, "answer refused: \(reason)")
        }
    }
}
