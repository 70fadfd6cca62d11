public import Cashier
public import Foundation
import Synchronization

/// The SQLite ``OrderStore``: one file, WAL, `synchronous=FULL` — a committed change (and so an
/// acknowledged notification) is on disk before the call returns. One connection, used by one
/// caller at a time; SQLite's own lock guards the file against other processes.
///
/// ```swift
/// let store = try SQLiteOrderStore(path: "cashier.db")
/// try await store.migrate()
/// ```
public final class SQLiteOrderStore: SQLOrderStore {
    /// Every write, grouped into shared commits on its own thread.
    private let writer: SQLiteWriter
    /// Reads, on a second connection (WAL readers never wait for a commit); `nil` for an
    /// in-memory database, whose reads go through the writer (it has only one connection).
    private let reader: Reader?

    private final class Reader: Sendable {
        let connection: Mutex<SQLiteConnection>
        init(_ connection: consuming sending SQLiteConnection) { self.connection = Mutex(connection) }
    }

    /// The named migrations, applied once each, in this order.
    static let migrations: [(name: String, sql: String)] = [
        (
            "001_orders",
            """
            CREATE TABLE orders (
                id TEXT PRIMARY KEY, out_trade_no TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
                currency TEXT NOT NULL, total_minor INTEGER NOT NULL, refunded_minor INTEGER NOT NULL DEFAULT 0,
                description TEXT NOT NULL, metadata TEXT NOT NULL, items TEXT NOT NULL, client_secret TEXT NOT NULL,
                refund_required INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 1,
                created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER
            );
            CREATE INDEX orders_status ON orders(status, created_at);
            CREATE INDEX orders_expiry ON orders(status, expires_at);
            """
        ),
        (
            "002_events",
            """
            CREATE TABLE events (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL REFERENCES orders(id),
                kind TEXT NOT NULL, from_status TEXT, to_status TEXT, detail TEXT NOT NULL, body_sha256 TEXT,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX events_order ON events(order_id, sequence);
            CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
            CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
            """
        ),
        (
            "003_idempotency_keys",
            """
            CREATE TABLE idempotency_keys (
                key TEXT PRIMARY KEY, request_sha256 TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL,
                created_at INTEGER NOT NULL
            );
            """
        ),
        (
            "004_outbox",
            """
            CREATE TABLE outbox (
                id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), type TEXT NOT NULL, payload TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, delivered_at INTEGER, created_at INTEGER NOT NULL
            );
            CREATE INDEX outbox_due ON outbox(delivered_at, next_attempt_at);
            """
        ),
        (
            "005_events_by_transition",
            "CREATE INDEX events_transition ON events(to_status, created_at);"
        ),
        (
            "006_job_leases",
            "CREATE TABLE job_leases (job TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL);"
        ),
    ]

    /// Opens (or creates) the database file. `:memory:` gives a private in-memory store for tests.
    /// - Throws: `StoreError.unavailable` naming the path.
    public init(path: String) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
        writer = SQLiteWriter(connection: connection, name: "cashier-sqlite-writer")
        if path == ":memory:" || path.isEmpty || path.contains("mode=memory") {
            reader = nil
        } else {
            let reading = try SQLiteConnection(path: path)
            try reading.execute("PRAGMA foreign_keys=ON;")
            reader = Reader(reading)
        }
    }

    /// Commits made so far: each is one fsync, and carries every transaction queued while the
    /// previous one was being written.
    public var commitCount: Int { writer.commitCount }

    /// The baseline for `cashier-bench server`: durable single-row commits per second on this
    /// disk — one `INSERT` per `BEGIN IMMEDIATE … COMMIT`, WAL and `synchronous=FULL` as the
    /// store uses, one caller, no grouping — measured for `duration` in a scratch file at `path`.
    public static func singleRowCommitRate(path: String, duration: Duration) throws -> Double {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE IF NOT EXISTS baseline (n INTEGER)")
        return try SQLStatements.singleRowCommitRate(connection, table: "baseline", begin: "BEGIN IMMEDIATE", duration: duration)
    }

    /// Concurrent transactions share a commit (see ``SQLiteWriter``).
    @discardableResult
    public func withTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await writer.write { try body(SQLSession(connection: $0)) }
    }

    /// On the reader connection, or through the writer for an in-memory database.
    public func withReading<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        if let reader { return try reader.connection.withLock { try body(SQLSession(connection: $0)) } }
        return try await writer.write { try body(SQLSession(connection: $0)) }
    }

    @discardableResult
    public func migrate() async throws -> [String] {
        try await withTransaction { try SQLStatements.migrate($0.connection, Self.migrations) }
    }
}
