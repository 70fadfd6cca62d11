internal import CSQLite
internal import CSQLiteShims
import Cashier
import Foundation

/// One SQLite connection: prepared statements (kept and reused: parsing a statement costs more
/// than running it on the single writer thread), typed binding, and errors that say what failed.
/// Not thread-safe by itself; ``SQLiteOrderStore`` serialises every use behind a lock.
final class SQLiteConnection: SQLConnection {

    /// The connection's handle: the online backup (``SQLiteBackup``) copies between two.
    let handle: OpaquePointer
    /// Prepared statements by their text, each with its result's column names; statements built
    /// per call (lists of `?`) are few and the cache is bounded.
    private var statements: [String: Statement] = [:]
    /// A prepared statement and the names of the columns it returns (read once, when prepared).
    private struct Statement {
        let pointer: OpaquePointer
        let columns: SQLColumnIndex
    }
    static let maximumCachedStatements = 128
    /// What ``checkpointElsewhere(_:)`` hands the WAL's length to, kept alive with the connection.
    private var walObserver: SQLiteCheckpointer?

    /// Opens (creating) the database at `path`; `:memory:` for a private in-memory one.
    init(path: String) throws {
        var handle: OpaquePointer?
        // Orders, payments and client secrets: a new database is its owner's alone (0600), and
        // SQLite gives its -wal and -shm files the same permissions.
        if path != ":memory:" && !path.hasPrefix("file:") { PrivateFile.createIfMissing(path) }
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw StoreError(.unavailable, "cannot open the SQLite database at \(path): \(message)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
    }

    /// Opens a database file that must exist already (nothing is created), read-only when
    /// `readOnly`, with a busy timeout of `busyMilliseconds` (0: a lock held elsewhere is `busy` at once).
    /// - Throws: `StoreError.unavailable` naming the path.
    init(existing path: String, readOnly: Bool, busyMilliseconds: Int32 = 5_000) throws {
        var handle: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            if let handle { sqlite3_close_v2(handle) }
            throw StoreError(.unavailable, "cannot open the SQLite database at \(path): \(message)")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, busyMilliseconds)
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement.pointer) }
        sqlite3_close_v2(handle)
    }

    /// The prepared statement for `sql`, from the cache or prepared now (and kept, with the
    /// names of its columns: every row it returns shares them).
    private func prepared(_ sql: String) throws -> Statement {
        if let statement = statements[sql] { return statement }
        var pointer: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil) == SQLITE_OK, let pointer else {
            throw StoreError(.failed, "SQLite cannot prepare a statement: \(lastError)")
        }
        if statements.count >= Self.maximumCachedStatements {
            for old in statements.values { sqlite3_finalize(old.pointer) }
            statements.removeAll()
        }
        // A select list never says `*`, so a schema change (which makes SQLite prepare the
        // statement again) cannot change these names.
        let names = (0..<sqlite3_column_count(pointer)).map { column in
            sqlite3_column_name(pointer, column).map { String(cString: $0) } ?? ""
        }
        let statement = Statement(pointer: pointer, columns: names.isEmpty ? .none : SQLColumnIndex(names: names))
        statements[sql] = statement
        return statement
    }

    /// Runs statements that return no rows (several, separated by `;`).
    func execute(_ sql: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let message = error.map { String(cString: $0) } ?? lastError
            sqlite3_free(error)
            throw StoreError(.failed, "SQLite: \(message)")
        }
    }

    /// Runs one statement with `parameters` and returns its rows.
    @discardableResult
    func query(_ sql: String, _ parameters: [SQLValue]) throws -> [SQLRow] {
        let prepared = try prepared(sql)
        let statement = prepared.pointer
        // Ready for the next use whatever happens: rows read, bindings (and their copies) released.
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(parameters, to: statement)
        var rows: [SQLRow] = []
        while try step(statement) {
            let values: [SQLValue] = (0..<sqlite3_column_count(statement)).map { column in
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
                case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(statement, column)))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
                    return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
                default: return .null
                }
            }
            rows.append(SQLRow(values: values, index: prepared.columns))
        }
        return rows
    }

    func stream(_ sql: String, _ parameters: [SQLValue], _ row: (any StreamedRow) throws -> Void) throws {
        let statement = try prepared(sql).pointer
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(parameters, to: statement)
        let current = Row(statement: statement)
        while try step(statement) { try row(current) }
    }

    /// The row a statement has stepped to, read in place.
    private struct Row: StreamedRow {
        let statement: OpaquePointer

        func bytes(_ column: Int) -> UnsafeBufferPointer<UInt8>? {
            let index = Int32(column)
            // The text first, then its length (SQLite's order: the length is of the converted text).
            guard let text = sqlite3_column_text(statement, index) else { return nil }
            return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, index)))
        }

        func integer(_ column: Int) -> Int64? {
            let index = Int32(column)
            guard sqlite3_column_type(statement, index) == SQLITE_INTEGER else { return nil }
            return sqlite3_column_int64(statement, index)
        }
    }

    private func bind(_ parameters: [SQLValue], to statement: OpaquePointer) throws {
        for (offset, value) in parameters.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let number): status = sqlite3_bind_int64(statement, index, number)
            case .text(let text): status = cashier_sqlite3_bind_text(statement, index, text, -1)
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { cashier_sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count)) }
            }
            guard status == SQLITE_OK else { throw StoreError(.failed, "SQLite cannot bind parameter \(index): \(lastError)") }
        }
    }

    /// Steps `statement`: `true` at a row, `false` when it is done. - Throws: its failure, typed.
    private func step(_ statement: OpaquePointer) throws -> Bool {
        let status = sqlite3_step(statement)
        if status == SQLITE_DONE { return false }
        guard status == SQLITE_ROW else {
            let code: StoreError.Code =
                (status & 0xFF) == SQLITE_CONSTRAINT ? .conflict : ((status & 0xFF) == SQLITE_BUSY ? .busy : .failed)
            throw StoreError(code, "SQLite: \(lastError)")
        }
        return true
    }

    /// Hands this connection's WAL checkpoints to `checkpointer` in place of SQLite's automatic
    /// one: after each commit it hears the WAL's length, and this connection checkpoints only
    /// when it says so. The connection keeps it as long as it lives.
    func checkpointElsewhere(_ checkpointer: SQLiteCheckpointer) {
        walObserver = checkpointer
        sqlite3_wal_hook(
            handle,
            { context, database, name, pages in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<SQLiteCheckpointer>.fromOpaque(context).takeUnretainedValue()
                if checkpointer.walCommitted(pages: Int(pages)) {
                    // What SQLite's automatic checkpoint does here: passive, and its result ignored.
                    sqlite3_wal_checkpoint_v2(database, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                }
                return SQLITE_OK
            }, Unmanaged.passUnretained(checkpointer).toOpaque())
    }

    /// Copies what it can of the WAL into the database file, waiting for nobody.
    /// - Returns: whether the checkpoint ran on a WAL (not refused as busy by another one, nor
    ///   run on a database this connection does not know to be in WAL mode, which copies nothing).
    func checkpointPassively() -> Bool {
        var walPages: Int32 = -1
        var copied: Int32 = -1
        let status = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &walPages, &copied)
        return status == SQLITE_OK && walPages >= 0
    }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// SQLite locks the whole database for a writer (`BEGIN IMMEDIATE`): no row locks.
    var dialect: SQLDialect { .sqlite }

    var lockingClause: String { "" }

    private var lastError: String { String(cString: sqlite3_errmsg(handle)) }
}
