/// A CSV text read back as rows of fields (RFC 4180: quoted fields may hold commas, doubled
/// quotes and line breaks; records end with CRLF or LF), so tests check what a spreadsheet reads.
public enum CSVRows {
    /// - Returns: the rows, a byte-order mark at the start removed; `nil` when a quote is left open.
    public static func parse(_ text: String) -> [[String]]? {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var characters = Substring(text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text).makeIterator()
        var pending = characters.next()
        while let character = pending {
            pending = characters.next()
            if quoted {
                if character == "\"" {
                    if pending == "\"" {
                        field.append("\"")
                        pending = characters.next()
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"": quoted = true
            case ",":
                row.append(field)
                field = ""
            case "\r\n", "\n":
                row.append(field)
                rows.append(row)
                (row, field) = ([], "")
            default: field.append(character)
            }
        }
        guard !quoted else { return nil }
        if !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
