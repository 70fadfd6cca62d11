/// Hexadecimal encoding and decoding of bytes.
///
/// ```swift
/// Hex.encode([0xAB, 0x01])               // "ab01"
/// Hex.encode([0xAB, 0x01], uppercase: true) // "AB01"
/// try Hex.decode("ab01")                 // [0xAB, 0x01]
/// ```
public enum Hex {
    @usableFromInline static let lower = Array("0123456789abcdef".utf8)
    @usableFromInline static let upper = Array("0123456789ABCDEF".utf8)

    /// Encodes bytes as hexadecimal text.
    /// - Parameters:
    ///   - bytes: the bytes to encode.
    ///   - uppercase: `true` for `A`–`F` (WeChat Pay v2 signatures), `false` for `a`–`f`.
    /// - Returns: two characters per byte.
    @inlinable
    public static func encode(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        String(decoding: encodedBytes(bytes, uppercase: uppercase), as: UTF8.self)
    }

    /// The hexadecimal text's ASCII bytes, for comparing with bytes as received.
    @inlinable
    public static func encodedBytes(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> [UInt8] {
        let alphabet = uppercase ? upper : lower
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(alphabet[Int(byte >> 4)])
            out.append(alphabet[Int(byte & 0x0F)])
        }
        return out
    }

    /// Decodes hexadecimal text (either case).
    /// - Throws: `CryptoError.invalidEncoding` for an odd length or a non-hex character.
    public static func decode(_ text: some StringProtocol) throws -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else {
            throw CryptoError(.invalidEncoding, "hex text has an odd number of characters")
        }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(ofDigit: utf8[index]), let low = value(ofDigit: utf8[index + 1]) else {
                throw CryptoError(.invalidEncoding, "hex text has a non-hex character at offset \(index)")
            }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// The value of one hex digit (either case), `nil` for any other byte.
    public static func value(ofDigit c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
