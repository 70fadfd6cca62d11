import Cashier
import Foundation
import Synchronization

/// The PostgreSQL ``OrderStore``, for several `cashier serve` instances sharing one database:
/// the same statements as ``SQLiteOrderStore`` (``SQLOrderStore``), rows locked with
/// `SELECT … FOR UPDATE` for the compare-and-set, outbox rows claimed with `FOR UPDATE SKIP
/// LOCKED`, transactions retried on serialisation failures, deadlocks, lock timeouts and
/// dropped connections, and the named migrations applied once under an advisory lock even when
/// instances start together. Writes are group-committed on two writer connections of their own
/// (`GroupCommitWriter`): transactions queued together share one `COMMIT`, each in its own
/// savepoint; reads use the pool. A batch keeps every row lock its transactions took until its
/// commit, so two batches (two writers, or two instances) may wait for each other's rows: the
/// writers' sessions give up on a lock after `writerLockTimeout` (50 ms), and that transaction alone is
/// rolled back to its savepoint and tried again in a later batch.
///
/// ```swift
/// let store = try PostgresOrderStore(url: "postgres://cashier:…@db.internal:5432/cashier", poolSize: 10)
/// try await store.migrate()
/// ```
public final class PostgresOrderStore: SQLOrderStore {
    private let pool: ConnectionPool<PostgresConnection>
    public let reportLines: ReportLineLimit
    private let writer: GroupCommitWriter<PostgresConnection>
    /// How long a transaction in a group commit waits for a row lock before it is tried again later.
    static let writerLockTimeout = "50ms"
    /// The most transactions one commit carries (each a subtransaction: PostgreSQL keeps 64 per
    /// backend in shared memory before it spills to disk).
    static let maximumBatch = 32
    /// How many times a transaction is tried when the failure is transient: with the doubling
    /// backoff, about 2.5 s of waiting in all — enough for a batch holding the row to commit on a
    /// loaded machine (five tries, 0.3 s, once answered a refund race 500 under load).
    static let attempts = 8

    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database` (libpq's URI form).
    ///   - poolSize: connections kept open for reads (each instance; PostgreSQL's `max_connections`
    ///     bounds the sum, with the writers).
    ///   - writers: connections that commit the writes in groups, each on a thread of its own.
    ///   - reportLinesPerOrder: lines of reports from outside that changed nothing kept in each
    ///     order's log, counted by this instance (``ReportLineLimit``).
    /// - Throws: `StoreError.unavailable` with libpq's reason (wrong host, password or database),
    ///   the password never in the message.
    public init(url: String, poolSize: Int = 10, writers: Int = 2, reportLinesPerOrder: Int = ReportLineLimit.defaultPerOrder)
        async throws
    {
        reportLines = ReportLineLimit(perOrder: reportLinesPerOrder)
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            throw StoreError(.unavailable, "a PostgreSQL URL starts with postgres:// (postgres://user:password@host:5432/database)")
        }
        pool = ConnectionPool(
            size: poolSize,
            // Connecting waits on the network: off the cooperative threads.
            connect: { try await OwnThread.run { try Self.readerConnection(url) } }, isHealthy: { $0.isHealthy })
        // Connect once now: a wrong URL, password or database is reported at start, not at the first order.
        pool.release(try await pool.acquire())
        writer = try await OwnThread.run {
            try GroupCommitWriter(name: "cashier-pg-writer", threads: writers, maximumBatch: Self.maximumBatch) {
                try Self.writerConnection(url)
            }
        }
    }

    /// A writer's session: a row lock not had within ``writerLockTimeout`` fails the statement as busy.
    static func writerConnection(_ url: String) throws -> PostgresConnection {
        let connection = try PostgresConnection(url: url)
        try connection.execute("SET lock_timeout = '\(writerLockTimeout)'")
        return connection
    }

    /// A pooled session, for reads: no parallel plans. The store's reads are pages of a list
    /// (`LIMIT 51` along an index), single records and a day's or a month's figures; for a page
    /// filtered by a condition on another table (one merchant's refunds or payments) PostgreSQL
    /// judges the walk along the index long, plans it over parallel workers, and each worker then
    /// checks its own share of rows before the leader has its 51: at ten million orders, 11,598
    /// orders checked and 214 ms for a page the serial plan reads in 859 checks and 8.8 ms
    /// (`cashier-bench scale`, `scale-dashboard-page-refunds-merchant`; docs/performance.md).
    /// Set here rather than in the database (`ALTER DATABASE … SET`) so it holds wherever Cashier
    /// is deployed, and only for Cashier's own sessions.
    static func readerConnection(_ url: String) throws -> PostgresConnection {
        let connection = try PostgresConnection(url: url)
        try connection.execute("SET max_parallel_workers_per_gather = 0")
        return connection
    }

    /// Batches of writes committed so far (each one WAL flush).
    public var commitCount: Int { writer.commitCount }

    /// Transactions and reads tried again so far after a transient failure: a row lock not had
    /// within the writers' 50 ms lock timeout (writers of several instances changing the same
    /// orders at once) or a dropped connection. Each waited for its backoff: the slow tail.
    public var retryCount: Int { retries.load(ordering: .relaxed) }
    private let retries = Atomic<Int>(0)
    /// Set by ``close()``: nothing is tried again after it.
    private let closed = Atomic<Bool>(false)

    /// Finishes the writes already queued, then closes the writers' connections and the pool's,
    /// returning once every one is closed (a read in progress finishes first). Every later call
    /// fails at once as unavailable, without the retries a dropped connection gets.
    public func close() async {
        closed.store(true, ordering: .releasing)
        await writer.stop()
        await pool.close()
    }

    /// The baseline for `cashier-bench server --db`: durable single-row commits — one `INSERT`
    /// per `BEGIN … COMMIT` on one connection, `synchronous_commit` as the server has it —
    /// measured for `duration` in a scratch table (`cashier_bench_baseline`, dropped afterwards):
    /// how many a second, and how long each took.
    public static func singleRowCommits(url: String, duration: Duration) throws -> CommitBaseline {
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE IF NOT EXISTS cashier_bench_baseline (n BIGINT)")
        defer { try? connection.execute("DROP TABLE IF EXISTS cashier_bench_baseline") }
        return try SQLStatements.singleRowCommits(connection, table: "cashier_bench_baseline", begin: "BEGIN", duration: duration)
    }

    /// In the next group commit; transient failures are tried again.
    public func withTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await retrying { try await self.writer.write { try body(SQLSession(connection: $0)) } }
    }

    public func withReading<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await retrying { try await self.run(transaction: false, body) }
    }

    /// `operation`, tried again with a short backoff while it fails transiently (a compare-and-set
    /// re-reads the row, so a retry never applies a change twice).
    private func retrying<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await operation()
            } catch let error as StoreError
                where (error.code == .busy || error.code == .unavailable) && attempt < Self.attempts && !closed.load(ordering: .acquiring)
            {
                retries.add(1, ordering: .relaxed)
                try await Task.sleep(for: .milliseconds(10 * (1 << attempt) + Int.random(in: 0..<10)))
                attempt += 1
            }
        }
    }

    /// Runs `body` once on a pooled connection's own thread (in a transaction of its own, or not).
    private func run<T: Sendable>(transaction: Bool, _ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        let connection = try await pool.acquire()
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            connection.queue.async {
                continuation.resume(
                    returning: Result {
                        guard transaction else { return try body(SQLSession(connection: connection)) }
                        connection.begin()
                        do {
                            let value = try body(SQLSession(connection: connection))
                            try connection.commit()
                            return value
                        } catch {
                            if connection.isHealthy { try? connection.rollback() }
                            throw error
                        }
                    })
            }
        }
        pool.release(connection)
        return try result.get()
    }

    /// Applies the migrations once, even when several instances start at the same moment: the
    /// transaction holds an advisory lock, so the second instance waits and then finds them
    /// applied. It runs on a pooled connection, in a transaction of its own, not in a group
    /// commit: waiting for another instance's migrations may take longer than a writer's lock timeout.
    @discardableResult
    public func migrate() async throws -> [String] {
        try await retrying {
            try await self.run(transaction: true) { session in
                try session.connection.query("SELECT pg_advisory_xact_lock(?)", [.integer(0x4361_7368_6965_72)])  // "Cashier"
                return try Migration.apply(Migration.all, as: .postgres, on: session.connection)
            }
        }
    }

    /// Applies the migrations up to and including `last` only, leaving the later ones for
    /// ``migrate()`` (`cashier-bench scale` times the newest on a full store).
    @discardableResult
    public func migrate(through last: String) async throws -> [String] {
        let migrations = try Migration.all(through: last)
        return try await retrying {
            try await self.run(transaction: true) { session in
                try session.connection.query("SELECT pg_advisory_xact_lock(?)", [.integer(0x4361_7368_6965_72)])  // "Cashier"
                return try Migration.apply(migrations, as: .postgres, on: session.connection)
            }
        }
    }
}
