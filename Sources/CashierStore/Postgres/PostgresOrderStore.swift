import Cashier
import Foundation

/// The PostgreSQL ``OrderStore``, for several `cashier serve` instances sharing one database:
/// the same statements as ``SQLiteOrderStore`` (``SQLOrderStore``), rows locked with
/// `SELECT … FOR UPDATE` for the compare-and-set, outbox rows claimed with `FOR UPDATE SKIP
/// LOCKED`, transactions retried on serialisation failures, deadlocks and dropped connections,
/// and the named migrations applied once under an advisory lock even when instances start together.
///
/// ```swift
/// let store = try PostgresOrderStore(url: "postgres://cashier:…@db.internal:5432/cashier", poolSize: 10)
/// try await store.migrate()
/// ```
public final class PostgresOrderStore: SQLOrderStore {
    private let pool: ConnectionPool<PostgresConnection>
    /// How many times a transaction is tried when the failure is transient.
    static let attempts = 5

    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database` (libpq's URI form).
    ///   - poolSize: connections kept open (each instance; PostgreSQL's `max_connections` bounds the sum).
    /// - Throws: `StoreError.unavailable` with libpq's reason (wrong host, password or database),
    ///   the password never in the message.
    public init(url: String, poolSize: Int = 10) async throws {
        guard url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
            throw StoreError(.unavailable, "a PostgreSQL URL starts with postgres:// (postgres://user:password@host:5432/database)")
        }
        pool = ConnectionPool(
            size: poolSize,
            // Connecting waits on the network: off the cooperative threads.
            connect: { try await OwnThread.run { try PostgresConnection(url: url) } }, isHealthy: { $0.isHealthy })
        // Connect once now: a wrong URL, password or database is reported at start, not at the first order.
        pool.release(try await pool.acquire())
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

    public func withTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await run(transaction: true, body)
    }

    public func withReading<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await run(transaction: false, body)
    }

    /// Runs `body` on a pooled connection's own thread; transient failures are retried with a
    /// short backoff (a compare-and-set re-reads the row, so a retry never applies a change twice).
    private func run<T: Sendable>(transaction: Bool, _ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        var attempt = 1
        while true {
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
            switch result {
            case .success(let value): return value
            case .failure(let error as StoreError) where (error.code == .busy || error.code == .unavailable) && attempt < Self.attempts:
                try await Task.sleep(for: .milliseconds(10 * (1 << attempt) + Int.random(in: 0..<10)))
                attempt += 1
            case .failure(let error): throw error
            }
        }
    }

    /// Applies the migrations once, even when several instances start at the same moment: the
    /// transaction holds an advisory lock, so the second instance waits and then finds them applied.
    @discardableResult
    public func migrate() async throws -> [String] {
        try await withTransaction { session in
            try session.connection.query("SELECT pg_advisory_xact_lock(?)", [.integer(0x4361_7368_6965_72)])  // "Cashier"
            return try SQLStatements.migrate(session.connection, Self.migrations)
        }
    }
}
