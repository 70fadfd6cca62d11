import Cashier
import Foundation
import Synchronization

/// The SQLite ``OrderStore``: one file, WAL, `synchronous=FULL` — a committed change (and so an
/// acknowledged notification) is on disk before the call returns. One connection, used by one
/// caller at a time; SQLite's own lock guards the file against other processes.
///
/// ```swift
/// let store = try SQLiteOrderStore(path: "cashier.db")
/// try await store.migrate()
/// // …
/// await store.close()  // before the file is copied, moved or removed
/// ```
public final class SQLiteOrderStore: SQLOrderStore {
    /// Every write, grouped into shared commits on its own thread.
    private let writer: GroupCommitWriter<SQLiteConnection>
    /// Reads, on connections of their own (WAL readers never wait for a commit), one per
    /// core so concurrent reads do not queue behind one lock; empty for an in-memory database,
    /// whose reads go through the writer (it has only one connection).
    private let readers: [ConnectionSeat<SQLiteConnection>]

    /// Checkpoints the WAL off the writer's thread (none for an in-memory database).
    let checkpointer: SQLiteCheckpointer?

    /// Spreads reads that find every reader busy.
    private let nextReader = Atomic<Int>(0)

    public let reportLines: ReportLineLimit

    /// Opens (or creates) the database file.
    /// - Parameters:
    ///   - path: the database file; `:memory:` gives a private in-memory store for tests.
    ///   - reportLinesPerOrder: lines of reports from outside that changed nothing kept in each
    ///     order's log (``ReportLineLimit``).
    /// - Throws: `StoreError.unavailable` naming the path.
    public convenience init(path: String, reportLinesPerOrder: Int = ReportLineLimit.defaultPerOrder) throws {
        try self.init(
            path: path, wakeCheckpointerEvery: SQLiteCheckpointer.defaultWakePages,
            checkpointOnWriterPast: SQLiteCheckpointer.defaultWriterPages, reportLinesPerOrder: reportLinesPerOrder)
    }

    /// The store with its WAL checkpointed by a thread of its own every `wakePages` pages, and by
    /// the writer past `writerPages` (see ``SQLiteCheckpointer``).
    init(
        path: String, wakeCheckpointerEvery wakePages: Int, checkpointOnWriterPast writerPages: Int,
        reportLinesPerOrder: Int = ReportLineLimit.defaultPerOrder
    ) throws {
        reportLines = ReportLineLimit(perOrder: reportLinesPerOrder)
        let inMemory = path == ":memory:" || path.isEmpty || path.contains("mode=memory")
        let checkpointer = inMemory ? nil : try SQLiteCheckpointer(path: path, wakePages: wakePages, writerPages: writerPages)
        self.checkpointer = checkpointer
        writer = try GroupCommitWriter(name: "cashier-sqlite-writer", maximumBatch: 256) {
            let connection = try Self.writerConnection(path)
            if let checkpointer { connection.checkpointElsewhere(checkpointer) }
            return connection
        }
        readers = try (0..<(inMemory ? 0 : max(2, ProcessInfo.processInfo.activeProcessorCount))).map { _ in
            let reading = try SQLiteConnection(path: path)
            try reading.execute("PRAGMA foreign_keys=ON;")
            return ConnectionSeat(reading)
        }
    }

    /// The writer's connection: WAL, `synchronous=FULL`, foreign keys checked, and temporary
    /// storage in memory — every transaction in a batch runs in a savepoint, and SQLite keeps
    /// the pages a savepoint changes as they were (for `ROLLBACK TO`); on disk that copy was a
    /// temporary file written page by page, most of the writer's writes. It is not needed after
    /// a crash (the WAL is what makes a commit durable), and it holds no more than the pages
    /// one batch changes.
    static func writerConnection(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;")
        return connection
    }

    /// Commits made so far: each is one fsync, and carries every transaction queued while the
    /// previous one was being written.
    public var commitCount: Int { writer.commitCount }

    /// The baseline for `cashier-bench server`: durable single-row commits on this disk — one
    /// `INSERT` per `BEGIN IMMEDIATE … COMMIT`, WAL and `synchronous=FULL` as the store uses, one
    /// caller, no grouping — measured for `duration` in a scratch file at `path`: how many a
    /// second, and how long each took.
    public static func singleRowCommits(path: String, duration: Duration) throws -> CommitBaseline {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE IF NOT EXISTS baseline (n INTEGER)")
        return try SQLStatements.singleRowCommits(connection, table: "baseline", begin: "BEGIN IMMEDIATE", duration: duration)
    }

    /// Concurrent transactions share a commit (one writer thread commits every transaction queued meanwhile).
    @discardableResult
    public func withTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        try await writer.write { try body(SQLSession(connection: $0)) }
    }

    /// `done` runs on the writer's finisher thread, right after the batch's commit.
    public func withTransaction<T: Sendable>(
        _ body: @escaping @Sendable (SQLSession) throws -> T, then done: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        writer.submit({ try body(SQLSession(connection: $0)) }, then: done)
    }

    /// On a free reader connection (or the next one, when all are busy), or through the writer
    /// for an in-memory database.
    public func withReading<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T {
        guard !readers.isEmpty else { return try await writer.write { try body(SQLSession(connection: $0)) } }
        for reader in readers {
            if let result = try reader.connection.withLockIfAvailable({ try body(SQLSession(connection: try Self.open($0))) }) {
                return result
            }
        }
        let reader = readers[nextReader.add(1, ordering: .relaxed).newValue % readers.count]
        return try reader.connection.withLock { try body(SQLSession(connection: try Self.open($0))) }
    }

    /// A reader's connection, unless ``close()`` has closed it.
    private static func open(_ connection: SQLiteConnection?) throws -> SQLiteConnection {
        guard let connection else { throw StoreError(.unavailable, "the store is closed") }
        return connection
    }

    /// Finishes the writes already queued, then stops the store's threads and closes every
    /// connection to the file; returns once they are all closed (SQLite copies the WAL back and
    /// deletes the `-wal` and `-shm` files as the last one closes), so the files can be moved,
    /// copied or removed. Every later call fails as unavailable. A store that is simply dropped
    /// closes too, but on its threads' own time.
    public func close() async {
        await writer.stop()
        await checkpointer?.stop()
        for reader in readers { reader.connection.withLock { $0 = nil } }
    }

    @discardableResult
    public func migrate() async throws -> [String] {
        try await withTransaction { try Migration.apply(Migration.all, as: .sqlite, on: $0.connection) }
    }

    /// Applies the migrations up to and including `last` only, leaving the later ones for
    /// ``migrate()`` (`cashier-bench scale` times the newest on a full store).
    @discardableResult
    public func migrate(through last: String) async throws -> [String] {
        let migrations = try Migration.all(through: last)
        return try await withTransaction { try Migration.apply(migrations, as: .sqlite, on: $0.connection) }
    }
}
