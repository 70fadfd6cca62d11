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
        // Bytes, not Characters, on the string's own storage: whitespace and alphabet checks need
        // no Unicode tables, and a generic walk over a StringProtocol is slow across modules.
        if let decoded = try text.utf8.withContiguousStorageIfAvailable({ try decode(utf8: $0, urlSafe: urlSafe) }) {
            return decoded
        }
        return try Array(text.utf8).withUnsafeBufferPointer { try decode(utf8: $0, urlSafe: urlSafe) }
    }

    private static func decode(utf8 text: UnsafeBufferPointer<UInt8>, urlSafe: Bool) throws -> Data {
        // Already standard, padded and unbroken (a signature, usually): straight to OpenSSL.
        if !urlSafe, text.count % 4 == 0, !text.contains(where: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
            guard let decoded = openSSLDecode(text) else { throw CryptoError(.invalidEncoding, "text is not valid base64") }
            return decoded
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "-") where urlSafe: bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_") where urlSafe: bytes.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"):
                if urlSafe { throw CryptoError(.invalidEncoding, "URL-safe base64 text contains '+' or '/'") }
                bytes.append(byte)
            default: bytes.append(byte)
            }
        }
        let remainder = bytes.count % 4
        if remainder == 1 {
            throw CryptoError(.invalidEncoding, "base64 text has an impossible length")
        }
        if remainder > 0 { bytes += [UInt8](repeating: UInt8(ascii: "="), count: 4 - remainder) }
        guard let decoded = bytes.withUnsafeBufferPointer({ openSSLDecode($0) }) else {
            throw CryptoError(.invalidEncoding, "text is not valid base64")
        }
        return decoded
    }
}
