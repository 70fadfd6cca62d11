import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// The WAL is copied back into the database file by a thread of its own, not by the writer after
/// its commits; and it stays bounded when that thread cannot keep up.
@Suite struct SQLiteCheckpointerTests {
    /// A store with a table `t` of 4 KB rows: each transaction below adds at least one page to the WAL.
    static func store(wakePages: Int, writerPages: Int) async throws -> (SQLiteOrderStore, String) {
        let path = OrderStoreTests.temporaryPath()
        let store = try SQLiteOrderStore(path: path, wakeCheckpointerEvery: wakePages, checkpointOnWriterPast: writerPages)
        try await store.withTransaction { _ = try $0.connection.query("CREATE TABLE t (n INTEGER PRIMARY KEY, body BLOB NOT NULL)", []) }
        return (store, path)
    }

    static func insert(_ count: Int, into store: SQLiteOrderStore) async throws {
        for n in 1...count {
            try await store.withTransaction {
                _ = try $0.connection.query("INSERT INTO t (n, body) VALUES (?, randomblob(4000))", [.integer(Int64(n))])
            }
        }
    }

    static func size(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    @Test func theCheckpointerCopiesTheWALIntoTheDatabase() async throws {
        // The writer would checkpoint only past a million pages: any copying is the checkpointer's.
        let (store, path) = try await Self.store(wakePages: 16, writerPages: 1_000_000)
        let before = Self.size(path)
        try await Self.insert(120, into: store)
        let checkpointer = try #require(store.checkpointer)
        #expect(await eventually(timeout: .seconds(10)) { checkpointer.checkpointCount > 0 && Self.size(path) > before + 16 * 4096 })
        // Every row committed is there, read by a connection of its own.
        let rows = try SQLiteConnection(path: path).query("SELECT count(*) AS n FROM t", [])
        #expect(try rows.first?.integer("n") == 120)
    }

    @Test func theWriterCheckpointsItselfPastItsLimitSoTheWALStaysBounded() async throws {
        // A checkpointer that is never woken: only the writer's own checkpoints bound the WAL.
        let (store, path) = try await Self.store(wakePages: Int.max / 4, writerPages: 64)
        try await Self.insert(400, into: store)
        #expect(store.checkpointer?.checkpointCount == 0)
        // 400 transactions of a page or more each; the WAL starts over once the writer has
        // copied it back, so it never holds much more than 64 pages (4 KiB and a 24-byte header each).
        let wal = Self.size(path + "-wal")
        #expect(wal > 0)
        #expect(wal < 96 * (4096 + 24))
        #expect(Self.size(path) > 300 * 4096)
        _ = store
    }
}
