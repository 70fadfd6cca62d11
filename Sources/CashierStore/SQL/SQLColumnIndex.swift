import Synchronization

/// The names of one prepared statement's result columns and where each is: built once, when
/// SQLite prepares the statement or the first time PostgreSQL answers it, and shared by every
/// row the statement returns. A name that appears twice is found at its leftmost place (as GRDB's
/// `Row` does); a select list that joins two tables names the second one's columns apart
/// (``SQLColumn/selectList(from:prefix:)``).
///
/// A record's columns (an ``SQLColumn`` enum) are looked up by name once per statement, the first
/// time one of its rows is read as that record (``positions(of:prefix:)``); after that, each
/// field of each row is two array reads.
final class SQLColumnIndex: Sendable {
    /// The names, in the order the statement returns them.
    let names: [String]
    private let positions: [String: Int]
    /// Where each column enum's cases are in this statement's rows, resolved on first use.
    private let resolved = Mutex<[Resolved]>([])

    /// One column enum's places: by its case's raw value, the position in the row (`-1`: absent).
    private struct Resolved: Sendable {
        let type: ObjectIdentifier
        let prefix: String
        let positions: [Int]
    }

    init(names: [String]) {
        self.names = names
        var positions: [String: Int] = [:]
        for (position, name) in names.enumerated() where positions[name] == nil { positions[name] = position }
        self.positions = positions
    }

    /// The columns of a statement that returns no rows.
    static let none = SQLColumnIndex(names: [])

    /// Where the column named `name` is (its leftmost place), if the statement returns it.
    func position(of name: String) -> Int? { positions[name] }

    /// Where each of `Column`'s cases is in this statement's rows, by the case's raw value
    /// (`-1` for a column the statement does not return), each name read with `prefix` before it.
    func positions<Column: SQLColumn>(of column: Column.Type, prefix: String) -> [Int] {
        let type = ObjectIdentifier(column)
        let known = resolved.withLock { resolved in
            resolved.first { $0.type == type && $0.prefix == prefix }?.positions
        }
        if let known { return known }
        var places = Array(repeating: -1, count: Column.allCases.count)
        for column in Column.allCases { places[column.rawValue] = positions[prefix + column.name] ?? -1 }
        resolved.withLock { $0.append(Resolved(type: type, prefix: prefix, positions: places)) }
        return places
    }

    /// `names` for a message: `id, order_id, …`.
    var described: String { names.isEmpty ? "no columns" : names.joined(separator: ", ") }
}
