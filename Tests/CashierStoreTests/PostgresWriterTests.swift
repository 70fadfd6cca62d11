import Dispatch
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// Group commit on PostgreSQL (``GroupCommitWriter`` with ``PostgresConnection``): transactions queued while a writer is busy share its next
/// `COMMIT`; each runs in a savepoint of its own, so one that fails — even with an error that
/// aborts a PostgreSQL transaction — is rolled back alone; a `COMMIT` that PostgreSQL turned
/// into a rollback is a failure; and a row lock held elsewhere makes one transaction fail as
/// busy after the writers' lock timeout instead of holding up its batch.
@Suite(.enabled(if: TestPostgres.url != nil, "needs the PostgreSQL test cluster"), .timeLimit(.minutes(1)))
struct PostgresWriterTests {
    /// One writer on a fresh database with a table `t (n bigint primary key)`.
    static func writer() async throws -> (GroupCommitWriter<PostgresConnection>, PostgresConnection) {
        let url = try await TestPostgres.freshDatabase()
        let reader = try PostgresConnection(url: url)
        try reader.execute("CREATE TABLE t (n bigint PRIMARY KEY)")
        let writer = try GroupCommitWriter(name: "test-pg-writer", maximumBatch: PostgresOrderStore.maximumBatch) {
            try PostgresOrderStore.writerConnection(url)
        }
        return (writer, reader)
    }

    static func rows(_ reader: PostgresConnection) throws -> [Int64] {
        try reader.query("SELECT n FROM t ORDER BY n").compactMap { try $0.integer("n") }
    }

    @Test func transactionsQueuedDuringACommitShareTheNextOne() async throws {
        let (writer, reader) = try await Self.writer()
        let holder = await GroupCommitHold.hold(writer, until: 30)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...30 {
                group.addTask { try await writer.write { _ = try $0.query("INSERT INTO t (n) VALUES (?)", [.integer(Int64(n))]) } }
            }
            try await group.waitForAll()
        }
        try await holder.value
        // The held transaction's commit, then one for the thirty that queued behind it.
        #expect(writer.commitCount == 2)
        #expect(try Self.rows(reader) == Array(0...30))  // committed: another session reads them
    }

    @Test func aFailingTransactionRollsBackAloneInItsBatch() async throws {
        let (writer, reader) = try await Self.writer()
        let holder = await GroupCommitHold.hold(writer, until: 4)
        let good1 = Task { try await writer.write { _ = try $0.query("INSERT INTO t (n) VALUES (1)") } }
        // Queued first, so that its row is there when `conflicting` inserts it again (tasks start
        // in no promised order: under load `conflicting` had gone first and good1 failed).
        #expect(await holder.queued.wait(atLeast: 1))
        let refused = Task {
            try await writer.write { connection in
                try connection.query("INSERT INTO t (n) VALUES (2)")
                throw StoreError(.illegalTransition, "refused after a good insert: all of it goes")
            }
        }
        // A statement PostgreSQL refuses aborts the whole transaction, unless its savepoint is rolled back.
        let conflicting = Task {
            try await writer.write { connection in
                try connection.query("INSERT INTO t (n) VALUES (3)")
                try connection.query("INSERT INTO t (n) VALUES (1)")  // good1's row, in the same transaction
            }
        }
        let good4 = Task { try await writer.write { _ = try $0.query("INSERT INTO t (n) VALUES (4)") } }
        try await holder.value
        try await good1.value
        try await good4.value
        await #expect(throws: StoreError.self) { try await refused.value }
        let conflict = await #expect(throws: StoreError.self) { try await conflicting.value }
        #expect(conflict?.code == .conflict)
        #expect(writer.commitCount == 2)
        #expect(try Self.rows(reader) == [0, 1, 4])
    }

    @Test func aCommitThatPostgreSQLRolledBackIsAFailure() async throws {
        let (_, connection) = try await Self.writer()
        connection.begin()
        try connection.query("INSERT INTO t (n) VALUES (1)")
        // The error is swallowed, but the transaction is aborted: COMMIT answers "ROLLBACK".
        _ = try? connection.query("INSERT INTO t (n) VALUES (1)")
        let error = #expect(throws: StoreError.self) { try connection.commit() }
        #expect(error?.code == .busy)
        #expect(try Self.rows(connection) == [])
        connection.begin()
        try connection.query("INSERT INTO t (n) VALUES (2)")
        try connection.commit()
        #expect(try Self.rows(connection) == [2])
    }

    /// A transaction that catches PostgreSQL's error and carries on leaves the whole transaction
    /// aborted: its batch fails (every caller hears so and may try again), and the writer's next
    /// batch starts on a clean session.
    @Test func aTransactionThatSwallowsAnErrorFailsItsBatchAndTheWriterGoesOn() async throws {
        let (writer, reader) = try await Self.writer()
        try reader.execute("INSERT INTO t (n) VALUES (1)")
        let swallowed = await #expect(throws: StoreError.self) {
            try await writer.write { connection in
                _ = try? connection.query("INSERT INTO t (n) VALUES (1)")  // refused, and ignored
            }
        }
        #expect(swallowed?.code == .busy)
        try await writer.write { _ = try $0.query("INSERT INTO t (n) VALUES (2)") }
        #expect(try Self.rows(reader) == [1, 2])
    }

    @Test func aRowLockedElsewhereFailsOneTransactionNotItsBatch() async throws {
        let (writer, reader) = try await Self.writer()
        try reader.execute("INSERT INTO t (n) VALUES (7)")
        reader.begin()
        try reader.query("SELECT n FROM t WHERE n = ? FOR UPDATE", [.integer(7)])  // held by another session
        let locked = Task { try await writer.write { _ = try $0.query("UPDATE t SET n = 70 WHERE n = 7") } }
        let other = Task { try await writer.write { _ = try $0.query("INSERT INTO t (n) VALUES (8)") } }
        let busy = await #expect(throws: StoreError.self) { try await locked.value }
        #expect(busy?.code == .busy)
        #expect(busy?.message.contains("lock timeout") == true, "PostgreSQL's own words, not an empty message")
        try await other.value  // its batch went on (were there no lock timeout, the test would wait for ever: its time limit)
        try reader.rollback()
        try await writer.write { _ = try $0.query("UPDATE t SET n = 70 WHERE n = 7") }
        #expect(try Self.rows(reader) == [8, 70])
    }

    /// The store tries a transaction that timed out on a row lock again after a pause, and counts
    /// it (`cashier-bench`'s `retries=`: the slow tail when instances write the same orders at once).
    @Test func theStoreTriesALockedOutTransactionAgainAndCountsIt() async throws {
        let url = try await TestPostgres.freshDatabase()
        let store = try await PostgresOrderStore(url: url, poolSize: 1, writers: 1)
        let reader = try PostgresConnection(url: url)
        try reader.execute("CREATE TABLE t (n bigint PRIMARY KEY)")
        try reader.execute("INSERT INTO t (n) VALUES (7)")
        reader.begin()
        try reader.query("SELECT n FROM t WHERE n = ? FOR UPDATE", [.integer(7)])
        let update = Task { try await store.withTransaction { _ = try $0.connection.query("UPDATE t SET n = 70 WHERE n = 7") } }
        // Its first attempt waits out PostgreSQL's lock timeout; the lock is let go once it has been tried again.
        #expect(await eventually { store.retryCount >= 1 })
        try reader.rollback()
        try await update.value
        #expect(try Self.rows(reader) == [70])
    }
}
