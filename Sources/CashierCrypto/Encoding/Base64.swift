public import Foundation

/// Base64 in its standard (RFC 4648 §4) and URL-safe (§5) alphabets.
///
/// ```swift
/// Base64.encode(Data("hi".utf8))                  // "aGk="
/// Base64.encode(Data([0xFB, 0xFF]), urlSafe: true) // "-_8"
/// try Base64.decode("-_8", urlSafe: true)           // [0xFB, 0xFF]
/// ```
public enum Base64 {
    /// Encodes bytes.
    /// - Parameters:
    ///   - bytes: the bytes to encode.
    ///   - urlSafe: use `-` and `_` and omit `=` padding (RFC 4648 §5, as in JWTs).
    public static func encode(_ bytes: some DataProtocol, urlSafe: Bool = false) -> String {
        let standard = Data(bytes).base64EncodedString()
        guard urlSafe else { return standard }
        var text = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Decodes base64 text. Line breaks and spaces (as in PEM bodies) are ignored; padding is optional.
    /// - Parameters:
    ///   - text: the encoded text.
    ///   - urlSafe: accept the URL-safe alphabet (`-`, `_`) instead of the standard one.
    /// - Throws: `CryptoError.invalidEncoding` when the text is not base64.
    public static func decode(_ text: some StringProtocol, urlSafe: Bool = false) throws -> Data {
        Data(try decodeBytes(text, urlSafe: urlSafe))
    }

    /// ``decode(_:urlSafe:)`` into an array, for callers that want bytes rather than `Data`.
    public static func decodeBytes(_ text: some StringProtocol, urlSafe: Bool = false) throws -> [UInt8] {
        // Bytes, not Characters, on the string's own storage: whitespace and alphabet checks need
        // no Unicode tables, and a generic walk over a StringProtocol is slow across modules.
        let table = urlSafe ? urlSafeAlphabet : standardAlphabet
        if let decoded = try text.utf8.withContiguousStorageIfAvailable({ try decode(utf8: $0, table: table) }) {
            return decoded
        }
        return try Array(text.utf8).withUnsafeBufferPointer { try decode(utf8: $0, table: table) }
    }

    /// What each byte means: 0…63 its value, ``space`` to skip, ``invalid`` otherwise.
    private static let standardAlphabet = alphabet(value62: "+", value63: "/")
    private static let urlSafeAlphabet = alphabet(value62: "-", value63: "_")
    private static let space: UInt8 = 0xFE
    private static let invalid: UInt8 = 0xFF

    private static func alphabet(value62 plus: Unicode.Scalar, value63 slash: Unicode.Scalar) -> [UInt8] {
        var table = [UInt8](repeating: invalid, count: 256)
        let letters =
            Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8) + [UInt8(plus.value), UInt8(slash.value)]
        for (value, letter) in letters.enumerated() { table[Int(letter)] = UInt8(value) }
        for blank in [0x20, 0x09, 0x0A, 0x0D] { table[blank] = space }
        return table
    }

    /// One pass: four letters make three bytes; `=` only at the end, completing the last group.
    private static func decode(utf8 text: UnsafeBufferPointer<UInt8>, table: [UInt8]) throws -> [UInt8] {
        func malformed(_ reason: String) -> CryptoError { CryptoError(.invalidEncoding, "text is not valid base64: \(reason)") }
        return try table.withUnsafeBufferPointer { table in
            var group: UInt32 = 0
            var inGroup = 0
            var letters = 0
            var padding = 0
            var failure: CryptoError?
            let bytes = [UInt8](unsafeUninitializedCapacity: text.count / 4 * 3 + 3) { output, written in
                written = 0
                // Whole groups of four letters (all of a signature but its end) go four at a time.
                var next = 0
                while next + 4 <= text.count {
                    let a = table[Int(text[next])]
                    let b = table[Int(text[next + 1])]
                    let c = table[Int(text[next + 2])]
                    let d = table[Int(text[next + 3])]
                    guard (a | b | c | d) < 64 else { break }
                    let quad = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    output[written] = UInt8(truncatingIfNeeded: quad >> 16)
                    output[written + 1] = UInt8(truncatingIfNeeded: quad >> 8)
                    output[written + 2] = UInt8(truncatingIfNeeded: quad)
                    written += 3
                    letters += 4
                    next += 4
                }
                // The rest, one byte at a time: line breaks, padding, errors.
                for byte in UnsafeBufferPointer(rebasing: text[next...]) {
                    let value = table[Int(byte)]
                    if value < 64 {
                        guard padding == 0 else {
                            failure = malformed("'=' before the end")
                            return
                        }
                        group = group << 6 | UInt32(value)
                        inGroup += 1
                        letters += 1
                        if inGroup == 4 {
                            output[written] = UInt8(truncatingIfNeeded: group >> 16)
                            output[written + 1] = UInt8(truncatingIfNeeded: group >> 8)
                            output[written + 2] = UInt8(truncatingIfNeeded: group)
                            written += 3
                            group = 0
                            inGroup = 0
                        }
                    } else if value == space {
                        continue
                    } else if byte == UInt8(ascii: "=") {
                        padding += 1
                    } else {
                        failure = malformed("unexpected character \(byte < 0x80 ? "'\(Unicode.Scalar(byte))'" : "byte \(byte)")")
                        return
                    }
                }
                switch inGroup {
                case 0: break
                case 1: failure = malformed("an impossible length")
                case 2:
                    output[written] = UInt8(truncatingIfNeeded: group >> 4)
                    written += 1
                default:
                    output[written] = UInt8(truncatingIfNeeded: group >> 10)
                    output[written + 1] = UInt8(truncatingIfNeeded: group >> 2)
                    written += 2
                }
            }
            if let failure { throw failure }
            // Padding, when present, completes the last group exactly.
            guard padding == 0 || padding == (4 - letters % 4) % 4 else {
                throw malformed("padding does not complete the last group")
            }
            return bytes
        }
    }
}
