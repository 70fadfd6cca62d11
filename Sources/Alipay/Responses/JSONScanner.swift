import Cashier

/// A minimal, allocation-light walk over a JSON object's top-level members.
struct JSONScanner {
    let bytes: [UInt8]
    var index = 0

    /// Calls `body` with each top-level key and the byte range of its value.
    mutating func topLevelMembers(_ body: (String, Range<Int>) throws -> Void) throws {
        skipSpace()
        try expect(UInt8(ascii: "{"))
        skipSpace()
        if peek == UInt8(ascii: "}") { return }
        while true {
            skipSpace()
            let keyRange = try skipString()
            let key = String(decoding: bytes[(keyRange.lowerBound + 1)..<(keyRange.upperBound - 1)], as: UTF8.self)
            skipSpace()
            try expect(UInt8(ascii: ":"))
            skipSpace()
            let start = index
            try skipValue()
            try body(key, start..<index)
            skipSpace()
            if peek == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"))
            return
        }
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func expect(_ byte: UInt8) throws {
        guard peek == byte else { throw Self.failure("expected '\(Character(Unicode.Scalar(byte)))' at byte \(index)") }
        index += 1
    }

    private mutating func skipSpace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    /// Skips a string literal, honouring escapes; returns its range including the quotes.
    private mutating func skipString() throws -> Range<Int> {
        let start = index
        try expect(UInt8(ascii: "\""))
        while let byte = peek {
            index += 1
            if byte == UInt8(ascii: "\\") {
                guard peek != nil else { break }
                index += 1
            } else if byte == UInt8(ascii: "\"") {
                return start..<index
            }
        }
        throw Self.failure("a string is not closed")
    }

    /// Skips any value: a string, or an object/array counted by depth (strings inside skipped),
    /// or a bare literal.
    private mutating func skipValue() throws {
        switch peek {
        case UInt8(ascii: "\""): _ = try skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while let byte = peek {
                switch byte {
                case UInt8(ascii: "\""): _ = try skipString()
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    index += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    index += 1
                    if depth == 0 { return }
                default: index += 1
                }
            }
            throw Self.failure("an object or array is not closed")
        case nil: throw Self.failure("a value is missing")
        default:
            while let byte = peek, byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"), byte != 0x20, byte != 0x0A, byte != 0x0D,
                byte != 0x09
            {
                index += 1
            }
        }
    }

    static func failure(_ reason: String) -> PaymentError {
        PaymentError(.malformedMessage, provider: .alipay, "Alipay JSON refused: \(reason)")
    }
}
