/// A small, strict JSON reader (RFC 8259) for documents Cashier reads on a hot path — the Apple
/// Pay payload, decrypted once per token — where `JSONSerialization`'s bridging to `NSNumber`
/// and `NSDictionary` costs more than the cryptography around it. Numbers are kept as their text
/// (read them exactly with ``Value/int64``); duplicate names keep the last value, as
/// `JSONSerialization` does.
public enum JSONReader {
    public enum Value: Equatable, Sendable {
        case object([String: Value])
        case array([Value])
        case string(String)
        /// The number as written, e.g. `4600`, `-1.5e3`.
        case number(String)
        case bool(Bool)
        case null

        public subscript(_ key: String) -> Value? {
            if case .object(let members) = self { members[key] } else { nil }
        }

        public var string: String? { if case .string(let value) = self { value } else { nil } }

        /// A whole number that fits in 64 bits, written without fraction or exponent.
        public var int64: Int64? { if case .number(let text) = self { Int64(text) } else { nil } }

        /// The members, when this is an object.
        public var object: [String: Value]? { if case .object(let members) = self { members } else { nil } }

        /// The elements, when this is an array.
        public var array: [Value]? { if case .array(let elements) = self { elements } else { nil } }

        /// `true` or `false`, and nothing else (not 0 or 1).
        public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }

        /// The number, whole or not (`2.5`, `1e3`); not `true`, not `"8"`.
        public var double: Double? { if case .number(let text) = self { Double(text) } else { nil } }

        /// A number whose value is whole and fits in `Int`, however it is written — `8`, `8.0`,
        /// `1e2` — as `as? Int` reads `JSONSerialization`'s numbers; not 2.5, `true` or `"8"`.
        /// (``int64`` takes only a number written without fraction or exponent.)
        public var wholeNumber: Int? {
            guard case .number(let text) = self else { return nil }
            return Int(text) ?? Double(text).flatMap { Int(exactly: $0) }
        }

        /// The strings of an array that holds nothing else (`["HKD", "USD"]`, or `[]`).
        public var strings: [String]? {
            guard case .array(let elements) = self else { return nil }
            let strings = elements.compactMap(\.string)
            return strings.count == elements.count ? strings : nil
        }

        /// The members of each element of an array that holds only objects.
        public var objects: [[String: Value]]? {
            guard case .array(let elements) = self else { return nil }
            let objects = elements.compactMap(\.object)
            return objects.count == elements.count ? objects : nil
        }
    }

    public struct Failure: Error, Equatable, Sendable {
        /// Byte offset of the problem.
        public let offset: Int
    }

    /// Parses one JSON text (whitespace around it allowed, nothing else).
    /// - Throws: ``Failure`` at the first byte that does not fit, or past 64 levels of nesting.
    public static func parse(_ bytes: some Collection<UInt8>) throws -> Value {
        // Contiguous input (Data, [UInt8]) is read in place; anything else is copied once.
        if let parsed = try bytes.withContiguousStorageIfAvailable(parse(buffer:)) { return parsed }
        return try Array(bytes).withUnsafeBufferPointer(parse(buffer:))
    }

    /// ``parse(_:)`` for an array, without the generic dispatch across modules.
    public static func parse(_ bytes: [UInt8]) throws -> Value {
        try bytes.withUnsafeBufferPointer(parse(buffer:))
    }

    /// Parses as `parse` does, and names the first name an object gives twice. Parsers disagree
    /// on which of the two values counts (Foundation's `JSONDecoder` keeps the first,
    /// `JSONSerialization`, Python and JavaScript the last), so a request that repeats a name is
    /// ambiguous: the merchant's checks and Cashier could each read another amount.
    public static func parseNamingRepeats(_ bytes: [UInt8]) throws -> (value: Value, repeatedName: String?) {
        try bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: buffer)
            let value = try parser.document()
            return (value, parser.repeatedName)
        }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws -> Value {
        var parser = Parser(bytes: buffer)
        return try parser.document()
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        /// The first name an object gave twice.
        var repeatedName: String?

        /// One JSON text, with nothing after it but whitespace.
        mutating func document() throws -> Value {
            let value = try value(depth: 0)
            skipSpace()
            guard index == bytes.count else { throw Failure(offset: index) }
            return value
        }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        func fail() -> Failure { Failure(offset: index) }

        mutating func value(depth: Int) throws -> Value {
            guard depth < 64 else { throw fail() }
            skipSpace()
            guard index < bytes.count else { throw fail() }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try literal("true", .bool(true))
            case UInt8(ascii: "f"): return try literal("false", .bool(false))
            case UInt8(ascii: "n"): return try literal("null", .null)
            default: return try number()
            }
        }

        mutating func literal(_ word: StaticString, _ value: Value) throws -> Value {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw fail() }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw fail() }
            index += count
            return value
        }

        mutating func object(depth: Int) throws -> Value {
            index += 1
            var members: [String: Value] = [:]
            members.reserveCapacity(8)  // payloads like Apple Pay's have a handful of members: no rehashing
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail() }
                let key = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail() }
                index += 1
                let member = try value(depth: depth + 1)
                if members.updateValue(member, forKey: key) != nil, repeatedName == nil { repeatedName = key }
                skipSpace()
                guard index < bytes.count else { throw fail() }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return .object(members)
                } else {
                    throw fail()
                }
            }
        }

        mutating func array(depth: Int) throws -> Value {
            index += 1
            var elements: [Value] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                skipSpace()
                guard index < bytes.count else { throw fail() }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return .array(elements)
                } else {
                    throw fail()
                }
            }
        }

        mutating func number() throws -> Value {
            let start = index
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = { (parser: inout Parser) -> Int in
                let first = parser.index
                while parser.index < parser.bytes.count, (0x30...0x39).contains(parser.bytes[parser.index]) { parser.index += 1 }
                return parser.index - first
            }
            let integerStart = index
            guard digits(&self) > 0 else { throw fail() }
            // No leading zeros.
            if bytes[integerStart] == UInt8(ascii: "0"), index - integerStart > 1 { throw Failure(offset: integerStart) }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw fail() }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw fail() }
            }
            return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }

        mutating func string() throws -> String {
            index += 1  // the opening quote
            let start = index
            // Fast path: no escapes.
            var ascii = true
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    let utf8 = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    // ASCII is valid UTF-8 as it stands (and skips the generic validator's costs).
                    return ascii ? String(decoding: utf8, as: UTF8.self) : try validated(utf8, at: start)
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                ascii = ascii && byte < 0x80
                index += 1
            }
            var scalars: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return try scalars.withUnsafeBufferPointer { try validated($0, at: start) }
                case 0..<0x20: throw fail()
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { throw fail() }
                    let escaped = bytes[index]
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escaped)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800..<0xDC00).contains(code) {
                            // A high surrogate must be followed by \\u and a low one.
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                                throw fail()
                            }
                            index += 2
                            let low = try hex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw fail() }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(code) {
                            throw fail()
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw fail() }
                        scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: throw fail()
                    }
                default:
                    scalars.append(byte)
                    index += 1
                }
            }
            throw fail()
        }

        mutating func hex4() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw fail() }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case 0x30...0x39: digit = UInt32(byte - 0x30)
                case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
                case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
                default: throw fail()
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        /// The bytes as a String, refusing malformed UTF-8 (never repaired).
        func validated(_ utf8: UnsafeBufferPointer<UInt8>, at start: Int) throws -> String {
            guard let text = UTF8Text.string(utf8) else { throw Failure(offset: start) }
            return text
        }
    }
}
