/// Escaping for text placed in HTML content or a quoted attribute value.
public enum HTMLText {
    /// Escapes `& < > " '`, the characters that end content or an attribute. Works on Unicode
    /// scalars, as an HTML parser reads: a `"` followed by a combining mark is one `Character`
    /// to Swift but still ends the attribute in the browser, so it must be escaped on its own.
    public static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            case "'": out.append(contentsOf: "&#39;".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
