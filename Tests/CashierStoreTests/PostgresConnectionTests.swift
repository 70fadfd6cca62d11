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
}
