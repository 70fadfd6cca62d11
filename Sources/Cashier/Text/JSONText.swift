/// JSON text for flat string maps, written directly: the event log writes one per notification,
/// and `JSONSerialization` (Any, AnyHashable, sorting) costs more than the rest of the line.
public enum JSONText {
    /// `{"a":"1","b":"2"}` with keys sorted by their UTF-8 bytes; the same map always gives the same text.
    public static func object(_ fields: [String: String]) -> String {
        var text = "{"
        for (index, key) in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
            if index > 0 { text += "," }
            appendQuoted(key, to: &text)
            text += ":"
            appendQuoted(fields[key] ?? "", to: &text)
        }
        return text + "}"
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped (RFC 8259 §7).
    public static func quoted(_ value: String) -> String {
        var text = ""
        appendQuoted(value, to: &text)
        return text
    }

    private static func appendQuoted(_ value: String, to text: inout String) {
        text += "\""
        var clean = value.utf8.startIndex
        let utf8 = value.utf8
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C {
                text += String(value[clean..<index])
                switch byte {
                case 0x22: text += "\\\""
                case 0x5C: text += "\\\\"
                case 0x0A: text += "\\n"
                case 0x0D: text += "\\r"
                case 0x09: text += "\\t"
                default:
                    let hex = String(byte, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
                clean = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        text += String(value[clean..<utf8.endIndex])
        text += "\""
    }
}
