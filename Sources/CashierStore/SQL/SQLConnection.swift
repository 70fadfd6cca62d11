/// What the order statements need from a database connection. Statements are written once with
/// `?` placeholders; a connection that numbers its parameters (`$1`) rewrites them.
protocol SQLConnection: AnyObject {
    /// Runs statements that return no rows.
    func execute(_ sql: String) throws
    /// Runs one statement with `parameters`; returns its rows, each read by column name with
    /// the statement's column index (built once per prepared statement, not once per row).
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow]
    /// Runs one statement with `parameters`, handing each row to `row` as it is read and keeping
    /// none (an export of a month): one snapshot, in bounded memory.
    func stream(_ sql: String, _ parameters: [SQLValue], _ row: (any StreamedRow) throws -> Void) throws
    /// Rows changed by the last statement.
    var changes: Int { get }
    /// Appended to a `SELECT` that reads a row about to be changed: ` FOR UPDATE` where rows
    /// can be locked (PostgreSQL), empty where the whole database is (SQLite's `BEGIN IMMEDIATE`).
    var lockingClause: String { get }
    /// Which database this is, for the few statements that differ.
    var dialect: SQLDialect { get }
}

extension SQLConnection {
    @discardableResult
    func query(_ sql: String) throws -> [SQLRow] { try query(sql, []) }
}
