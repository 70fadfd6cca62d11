import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// `begin()` sends nothing by itself: `BEGIN` goes out in one pipeline with the transaction's first
/// statement, and everything a transaction promises still holds — its statements are inside it,
/// a failing first statement leaves a transaction to roll back, and the connection goes on working.
@Suite(.enabled(if: TestPostgres.url != nil, "needs the PostgreSQL test cluster"))
struct PostgresConnectionTests {
    /// A connection on a fresh database with a table `t (id text primary key)`, and a second
    /// connection that watches the first through `pg_stat_activity`.
    func connections() async throws -> (connection: PostgresConnection, watcher: PostgresConnection, pid: Int64) {
        let url = try await TestPostgres.freshDatabase()
        let connection = try PostgresConnection(url: url)
        try connection.execute("CREATE TABLE t (id text PRIMARY KEY)")
        let pid = try #require(try connection.query("SELECT pg_backend_pid() AS pid", []).first?.integer("pid"))
        return (connection, try PostgresConnection(url: url), pid)
    }

    /// The backend's state as PostgreSQL reports it: `idle`, `idle in transaction`, …
    func state(of pid: Int64, _ watcher: PostgresConnection) throws -> String? {
        try watcher.query("SELECT state FROM pg_stat_activity WHERE pid = ?", [.integer(pid)]).first?.text("state")
    }

    @Test func theFirstStatementRunsInsideTheTransactionBegunWithIt() async throws {
        let (connection, watcher, pid) = try await connections()
        connection.begin()
        #expect(try state(of: pid, watcher) == "idle", "begin() alone sent nothing")
        try connection.query("INSERT INTO t (id) VALUES (?)", [.text("a")])
        #expect(try state(of: pid, watcher) == "idle in transaction")
        try connection.query("INSERT INTO t (id) VALUES (?)", [.text("b")])
        try connection.rollback()
        #expect(try connection.query("SELECT count(*) AS n FROM t", []).first?.integer("n") == 0, "both rows were in the transaction")

        connection.begin()
        try connection.query("INSERT INTO t (id) VALUES (?)", [.text("c")])
        try connection.commit()
        #expect(try connection.query("SELECT id FROM t", []).map { try $0.text("id") } == ["c"])
        #expect(try state(of: pid, watcher) == "idle")
    }

    @Test func aTransactionWithoutStatementsSendsNothing() async throws {
        let (connection, watcher, pid) = try await connections()
        connection.begin()
        try connection.commit()
        connection.begin()
        try connection.rollback()
        #expect(try state(of: pid, watcher) == "idle")
        // Another statement through execute() opens the transaction first.
        connection.begin()
        try connection.execute("INSERT INTO t (id) VALUES ('x')")
        #expect(try state(of: pid, watcher) == "idle in transaction")
        try connection.rollback()
        #expect(try connection.query("SELECT count(*) AS n FROM t", []).first?.integer("n") == 0)
    }

    @Test func aFailingFirstStatementLeavesATransactionToRollBack() async throws {
        let (connection, watcher, pid) = try await connections()
        try connection.query("INSERT INTO t (id) VALUES (?)", [.text("taken")])
        connection.begin()
        let error = #expect(throws: StoreError.self) { try connection.query("INSERT INTO t (id) VALUES (?)", [.text("taken")]) }
        #expect(error?.code == .conflict)
        #expect(try state(of: pid, watcher) == "idle in transaction (aborted)")
        try connection.rollback()
        // Out of the pipeline and the transaction: the next statements, and the next transaction, work.
        #expect(try connection.query("SELECT count(*) AS n FROM t", []).first?.integer("n") == 1)
        connection.begin()
        try connection.query("INSERT INTO t (id) VALUES (?)", [.text("next")])
        try connection.commit()
        #expect(try connection.query("SELECT count(*) AS n FROM t", []).first?.integer("n") == 2)
        #expect(connection.isHealthy)
    }

    @Test func aStatementPreparedForTheFirstTimeAndOneThatCannotBeAreBothFine() async throws {
        let (connection, _, _) = try await connections()
        connection.begin()
        // New text: prepared (outside the transaction), then run in the pipeline with BEGIN.
        #expect(try connection.query("SELECT ? || 'x' AS joined", [.text("new")]).first?.text("joined") == "newx")
        try connection.commit()
        connection.begin()
        #expect(throws: StoreError.self) { try connection.query("SELECT * FROM no_such_table", []) }
        try connection.rollback()
        #expect(try connection.query("SELECT ? || 'y' AS joined", [.text("still")]).first?.text("joined") == "stilly")
    }

    /// Rows read by `stream` as `[text or nil, integer or nil]` pairs of its two columns.
    static func streamed(_ connection: any SQLConnection, _ sql: String, _ parameters: [SQLValue] = []) throws
        -> [(String?, Int64?)]
    {
        var rows: [(String?, Int64?)] = []
        try connection.stream(sql, parameters) { row in
            rows.append((row.bytes(0).map { String(decoding: $0, as: UTF8.self) }, row.integer(1)))
        }
        return rows
    }

    @Test func aStreamedReadFetchesEveryBatchInOrderAndLeavesTheConnectionAsItWas() async throws {
        let (connection, watcher, pid) = try await connections()
        let count = Int(PostgresConnection.streamBatch) * 2 + 3
        let rows = try Self.streamed(
            connection,
            "SELECT CASE WHEN n % 7 = 0 THEN NULL ELSE 'r' || n END AS t, CASE WHEN n % 5 = 0 THEN NULL ELSE n - 3 END AS i "
                + "FROM generate_series(1, ?) AS n WHERE n > ? ORDER BY n",
            [.integer(Int64(count)), .integer(0)])
        #expect(rows.count == count)
        #expect(
            rows.enumerated().allSatisfy { index, row in
                let n = Int64(index + 1)
                return row.0 == (n % 7 == 0 ? nil : "r\(n)") && row.1 == (n % 5 == 0 ? nil : n - 3)
            })
        #expect(try Self.streamed(connection, "SELECT 'x' AS t, -9223372036854775808 AS i").map(\.1) == [.min])
        #expect(try Self.streamed(connection, "SELECT 'x' AS t, true AS i").map(\.1) == [1])
        #expect(try Self.streamed(connection, "SELECT 'x' AS t, 'ab' AS i").map(\.1) == [nil], "text is not an integer")
        #expect(try state(of: pid, watcher) == "idle", "the cursor's transaction ended")

        // A failure in the middle (a row that cannot be computed) ends the read and the transaction.
        #expect(throws: StoreError.self) {
            try Self.streamed(connection, "SELECT 'x' AS t, 10 / (n - 6000) AS i FROM generate_series(1, 7000) AS n")
        }
        struct Stop: Error {}
        #expect(throws: Stop.self) { try connection.stream("SELECT 1 AS i", []) { _ in throw Stop() } }
        #expect(try state(of: pid, watcher) == "idle")
        #expect(try connection.query("SELECT count(*) AS n FROM t", []).first?.integer("n") == 0)

        // Inside a transaction it refuses: its COMMIT would end the caller's transaction.
        connection.begin()
        try connection.query("INSERT INTO t (id) VALUES (?)", [.text("a")])
        #expect(throws: StoreError.self) { try connection.stream("SELECT 1 AS i", []) { _ in } }
        try connection.rollback()
        #expect(try connection.query("SELECT count(*) AS n FROM t", []).first?.integer("n") == 0)
    }

    @Test func theStoresReadsArePlannedWithoutParallelWorkers() async throws {
        let store = try await PostgresOrderStore(url: try await TestPostgres.freshDatabase(), poolSize: 2)
        let setting = try await store.withReading {
            try $0.connection.query("SHOW max_parallel_workers_per_gather", []).first?.text("max_parallel_workers_per_gather")
        }
        #expect(setting == "0")
        await store.close()
    }
}
