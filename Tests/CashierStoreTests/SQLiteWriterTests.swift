import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierStore

/// Group commit: transactions queued while one commit is running share the next one; each runs
/// in its own savepoint, so one failure rolls back alone; nothing returns before its commit.
@Suite struct SQLiteWriterTests {
    static func writer() throws -> (GroupCommitWriter<SQLiteConnection>, String) {
        let path = OrderStoreTests.temporaryPath()
        try SQLiteOrderStore.writerConnection(path).execute("CREATE TABLE t (n INTEGER PRIMARY KEY)")
        return (try GroupCommitWriter(name: "test-writer", maximumBatch: 256) { try SQLiteOrderStore.writerConnection(path) }, path)
    }

    static func rows(_ path: String) throws -> [Int64] {
        try SQLiteConnection(path: path).query("SELECT n FROM t ORDER BY n").compactMap { try $0.integer("n") }
    }

    @Test func transactionsQueuedDuringACommitShareTheNextOne() async throws {
        let (writer, path) = try Self.writer()
        let holder = await GroupCommitHold.hold(writer, until: 50)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 1...50 {
                group.addTask { try await writer.write { _ = try $0.query("INSERT INTO t (n) VALUES (?)", [.integer(Int64(n))]) } }
            }
            try await group.waitForAll()
        }
        try await holder.value
        // The held transaction's commit, then one for the fifty that queued behind it.
        #expect(writer.commitCount == 2)
        #expect(try Self.rows(path) == Array(0...50))  // and every one is on disk, readable by another connection
    }

    @Test func aFailingTransactionRollsBackAloneInItsBatch() async throws {
        let (writer, path) = try Self.writer()
        let holder = await GroupCommitHold.hold(writer, until: 3)
        let good1 = Task { try await writer.write { _ = try $0.query("INSERT INTO t (n) VALUES (1)") } }
        let bad = Task {
            try await writer.write { connection in
                try connection.query("INSERT INTO t (n) VALUES (2)")
                throw StoreError(.illegalTransition, "refused after a good insert: all of it goes")
            }
        }
        let good3 = Task { try await writer.write { _ = try $0.query("INSERT INTO t (n) VALUES (3)") } }
        try await holder.value
        try await good1.value
        try await good3.value
        await #expect(throws: StoreError.self) { try await bad.value }
        #expect(writer.commitCount == 2)
        #expect(try Self.rows(path) == [0, 1, 3])
    }

    /// The writer hands a committed batch's callers to its finisher and goes on: what a caller
    /// does with its answer (resume a connection, wake a task) is not time the next batch waits
    /// for. Here a caller that never returns from its answer does not stop the next commit.
    @Test func theNextBatchCommitsWhileTheLastOnesCallersAreStillBeingTold() async throws {
        let (writer, path) = try Self.writer()
        let told = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        writer.submit(
            { _ = try $0.query("INSERT INTO t (n) VALUES (1)") },
            then: { _ in
                told.signal()
                release.wait()  // a caller still busy with its answer
            })
        try await onOwnThread { told.wait() }
        writer.submit({ _ = try $0.query("INSERT INTO t (n) VALUES (2)") }, then: { _ in })
        // The rows show once COMMIT returns; the count, just after it.
        let committed = await eventually(timeout: .seconds(10)) { (try? Self.rows(path)) == [1, 2] && writer.commitCount == 2 }
        release.signal()
        #expect(committed)
    }

    /// Every caller hears how its transaction went, including those queued just before the
    /// writer is dropped: the finisher stops only after the writer's last batch.
    @Test func everyCallerIsToldWhenTheWriterIsDropped() async throws {
        let told = Tally()
        let path: String
        do {
            let (writer, scratch) = try Self.writer()
            path = scratch
            for n in 1...200 {
                writer.submit(
                    { _ = try $0.query("INSERT INTO t (n) VALUES (?)", [.integer(Int64(n))]) },
                    then: { result in
                        if case .success = result { told.add() }
                    })
            }
        }
        #expect(await told.wait(atLeast: 200, within: .seconds(10)))
        #expect(told.value == 200)
        #expect(try Self.rows(path) == Array(1...200))
    }

    /// Each transaction's savepoint makes SQLite keep the pages it changes as they were, for
    /// `ROLLBACK TO`; that copy (the sub-journal) belongs in memory, not in a temporary file
    /// written page by page on the writer thread (four of every five writes a batch made, in
    /// `server-flow`, before `temp_store=MEMORY`). Nothing in it is needed after a crash.
    @Test func savepointsKeepTheirJournalInMemory() async throws {
        let (writer, _) = try Self.writer()
        try await writer.write { connection in
            _ = try connection.query("CREATE TABLE wide (n INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            _ = try connection.query(
                "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 200) "
                    + "INSERT INTO wide SELECT n, zeroblob(2000) FROM k")
        }
        // Rewriting 400 KB of committed pages inside the transaction's savepoint: well past the
        // 64 KiB SQLite holds in memory before it spills a sub-journal to a file.
        let temporaryFiles = try await writer.write { connection in
            _ = try connection.query("UPDATE wide SET body = randomblob(2000)")
            return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)
            }.filter { $0.contains("etilqs_") }
        }
        #expect(temporaryFiles == [])
    }
}
