/// Text from bytes that must be UTF-8: malformed input is refused, never repaired.
public enum UTF8Text {
    /// The bytes as a `String`, or nil when they are not well-formed UTF-8.
    ///
    /// ASCII, the usual case in provider messages, is valid UTF-8 as it stands and is taken
    /// directly: `String(validating:as:)` is generic over the encoding and instantiates its
    /// metadata at run time on every call (about a tenth of a WeChat Pay notification's parse).
    public static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// `true` when the bytes are well-formed UTF-8 (ASCII is checked without making a string).
    public static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { $0 < 0x80 } || String(validating: bytes, as: UTF8.self) != nil
    }
}
