import Cashier
import CashierCrypto
import Foundation

extension Alipay {
    /// `application/x-www-form-urlencoded` bodies as Alipay posts them (UTF-8).
    public enum FormBody {
        /// The largest body accepted.
        public static let sizeLimit = 64 * 1024

        /// Decodes `k=v&k=v` (percent-escapes, `+` for space).
        /// - Throws: `PaymentError.malformedMessage` for a bad escape, invalid UTF-8, a repeated
        ///   name, or a body over the limit.
        public static func parse(_ body: some Collection<UInt8>) throws -> [String: String] {
            try fields(body).dictionary
        }

        /// ``parse(_:)``, keeping the fields sorted as Alipay signs them.
        public static func fields(_ body: some Collection<UInt8>) throws -> FormFields {
            // One pass over contiguous bytes: a generic collection walked byte by byte across a
            // module boundary costs more than the RSA check that follows.
            if let fields = try body.withContiguousStorageIfAvailable({ try fields(buffer: $0) }) { return fields }
            return try Array(body).withUnsafeBufferPointer { try fields(buffer: $0) }
        }

        private static func fields(buffer body: UnsafeBufferPointer<UInt8>) throws -> FormFields {
            guard body.count <= sizeLimit else { throw failure("the body is over the \(sizeLimit)-byte limit") }
            var spans: [FormFields.Span] = []
            spans.reserveCapacity(32)  // Alipay's notifications carry about 25 fields
            // Decoded text is never longer than the body: decode straight into one buffer.
            let storage = try [UInt8](unsafeUninitializedCapacity: body.count) { out, written in
                var start = 0
                while start < body.count {
                    let end = position(of: UInt8(ascii: "&"), in: body, from: start, to: body.count) ?? body.count
                    if end > start {
                        let equals = position(of: UInt8(ascii: "="), in: body, from: start, to: end)
                        let nameStart = written
                        try unescape(UnsafeBufferPointer(rebasing: body[start..<(equals ?? end)]), into: out, at: &written)
                        let valueStart = written
                        if let equals { try unescape(UnsafeBufferPointer(rebasing: body[(equals + 1)..<end]), into: out, at: &written) }
                        guard valueStart > nameStart else { throw failure("a field has no name") }
                        spans.append(FormFields.Span(name: nameStart..<valueStart, value: valueStart..<written))
                    }
                    start = end + 1
                }
            }
            try storage.withUnsafeBufferPointer { bytes in
                guard !isASCII(bytes) else { return }
                for span in spans {
                    try validateUTF8(UnsafeBufferPointer(rebasing: bytes[span.name]))
                    try validateUTF8(UnsafeBufferPointer(rebasing: bytes[span.value]))
                }
            }
            guard let fields = FormFields(storage: storage, spans: spans) else {
                let names = spans.map { String(decoding: storage[$0.name], as: UTF8.self) }
                let repeated = names.first { name in names.filter { $0 == name }.count > 1 } ?? ""
                throw failure("the field '\(repeated.prefix(40))' appears twice")
            }
            return fields
        }

        /// Encodes fields as a form body, percent-escaping everything but unreserved characters.
        public static func encode(_ fields: [(String, String)]) -> String { FormEncoding.encode(fields) }

        /// Percent-escapes for a form or query value (RFC 3986 unreserved characters stay).
        public static func escape(_ text: String) -> String { FormEncoding.escape(text) }

        /// The first `byte` in `body[from..<to]` (memchr: bodies are scanned a word at a time).
        private static func position(of byte: UInt8, in body: UnsafeBufferPointer<UInt8>, from: Int, to: Int) -> Int? {
            guard from < to, let base = body.baseAddress, let found = memchr(base + from, Int32(byte), to - from) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }

        /// Writes `bytes` with percent-escapes and `+` decoded at `out[count...]`, advancing `count`.
        private static func unescape(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>, at count: inout Int)
            throws
        {
            guard let source = bytes.baseAddress, let target = out.baseAddress else { return }
            // Most names and values need no unescaping: copied whole.
            guard
                position(of: UInt8(ascii: "%"), in: bytes, from: 0, to: bytes.count) != nil
                    || position(of: UInt8(ascii: "+"), in: bytes, from: 0, to: bytes.count) != nil
            else {
                (target + count).initialize(from: source, count: bytes.count)
                count += bytes.count
                return
            }
            var index = 0
            while index < bytes.count {
                var byte = bytes[index]
                if byte == UInt8(ascii: "+") {
                    byte = UInt8(ascii: " ")
                } else if byte == UInt8(ascii: "%") {
                    guard index + 2 < bytes.count, let high = Hex.value(ofDigit: bytes[index + 1]),
                        let low = Hex.value(ofDigit: bytes[index + 2])
                    else { throw failure("a '%' is not followed by two hex digits") }
                    byte = high << 4 | low
                    index += 2
                }
                target[count] = byte
                count += 1
                index += 1
            }
        }

        /// Refuses bytes that are not UTF-8: decoding repairs them, so valid bytes are those that
        /// come back unchanged (`String(validating:)` is generic and slower).
        private static func validateUTF8(_ bytes: UnsafeBufferPointer<UInt8>) throws {
            guard !isASCII(bytes) else { return }
            let text = String(decoding: bytes, as: UTF8.self)
            let unchanged =
                text.utf8.withContiguousStorageIfAvailable { decoded in
                    decoded.count == bytes.count && memcmp(decoded.baseAddress!, bytes.baseAddress!, bytes.count) == 0
                } ?? text.utf8.elementsEqual(bytes)
            guard unchanged else { throw failure("a field is not valid UTF-8") }
        }

        private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            let raw = UnsafeRawBufferPointer(bytes)
            var index = 0
            while index + 8 <= raw.count {
                if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
                index += 8
            }
            while index < raw.count {
                if raw[index] >= 0x80 { return false }
                index += 1
            }
            return true
        }

        static func failure(_ reason: String) -> PaymentError {
            PaymentError(.malformedMessage, provider: .alipay, "Alipay form body refused: \(reason)")
        }
    }
}
