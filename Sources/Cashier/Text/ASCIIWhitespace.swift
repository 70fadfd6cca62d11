/// The whitespace wire protocols mean — space, tab, carriage return, line feed — trimmed without
/// Foundation's `trimmingCharacters(in:)`, which bridges through `NSString` on Linux (a few
/// percent of every outgoing request's time went to trimming its response's header lines).
public enum ASCIIWhitespace {
    /// Whether `byte` is a space, tab, carriage return or line feed.
    @inline(__always) public static func contains(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    /// `text` without leading and trailing ASCII whitespace (other Unicode spaces are kept).
    public static func trimmed(_ text: String) -> String { trimmed(text[...]) }

    /// `text` without leading and trailing ASCII whitespace.
    public static func trimmed(_ text: Substring) -> String {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { !contains($0) }) else { return "" }
        let last = bytes.lastIndex(where: { !contains($0) })!
        return String(text[first...last])
    }
}
