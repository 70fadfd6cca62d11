/// What differs between the SQL that SQLite and PostgreSQL run: a few type names, the rowid that
/// PostgreSQL tables add to keep SQLite's insertion order, and reading a field of a JSON text.
/// Migrations are written once against it (``Migration``).
enum SQLDialect: Sendable, CaseIterable {
    case sqlite
    case postgres

    /// A 64-bit integer column: `INTEGER` (SQLite's are all 64-bit) or `BIGINT`.
    var bigint: String {
        switch self {
        case .sqlite: "INTEGER"
        case .postgres: "BIGINT"
        }
    }

    /// A byte-string column: `BLOB` or `BYTEA`.
    var blob: String {
        switch self {
        case .sqlite: "BLOB"
        case .postgres: "BYTEA"
        }
    }

    /// Put first in a table's columns: nothing on SQLite, whose tables have a `rowid` of their own;
    /// `rowid BIGSERIAL UNIQUE, ` on PostgreSQL, so lists and cursors order by insertion the same way.
    var rowidColumn: String {
        switch self {
        case .sqlite: ""
        case .postgres: "rowid BIGSERIAL UNIQUE, "
        }
    }

    /// An integer key the database numbers itself, never reusing one.
    var serialKey: String {
        switch self {
        case .sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT"
        case .postgres: "BIGSERIAL PRIMARY KEY"
        }
    }

    /// The text of field `key` of the JSON object held as text in `column`.
    func jsonField(_ column: String, _ key: String) -> String {
        switch self {
        case .sqlite: "json_extract(\(column), '$.\(key)')"
        case .postgres: "(\(column)::json ->> '\(key)')"
        }
    }
}
