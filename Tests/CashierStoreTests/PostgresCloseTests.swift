import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// `PostgresOrderStore.close()` finishes the writes queued, then ends every session the store
/// holds (its writers' and its pool's), returning once they are closed; every later call fails
/// at once as unavailable, without the retries a dropped connection gets. (Half a second alone;
/// in the first minute of `make test`, when every suite starts at once, over a minute.)
@Suite(.enabled(if: TestPostgres.url != nil, "needs the PostgreSQL test cluster"), .timeLimit(.minutes(3)))
struct PostgresCloseTests {
    /// Sessions on the store's database other than `observer`'s own.
    static func sessions(_ observer: PostgresConnection) throws -> Int64 {
        try observer.query(
            "SELECT count(*) AS sessions FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).first?.integer("sessions") ?? -1
    }

    @Test func closeEndsEverySessionAndRefusesWhatComesAfter() async throws {
        let url = try await TestPostgres.freshDatabase()
        let store = try await PostgresOrderStore(url: url, poolSize: 4, writers: 2)
        try await store.migrate()
        let observer = try PostgresConnection(url: url)
        // Writes and reads at once, some still queued or in flight when close() begins.
        let writes = (0..<40).map { index in
            Task { try await store.create(OrderStoreTests.newOrder("ord_pg_close_\(index)")) }
        }
        for write in writes.prefix(20) { _ = try await write.value }
        let reads = (0..<20).map { index in Task { try await store.order(id: "ord_pg_close_\(index)") } }
        #expect(try Self.sessions(observer) >= 3, "the writers' two sessions and at least one of the pool's")
        await store.close()
        let retriesAtClose = store.retryCount

        let acknowledged = await OrderStoreTests.acknowledged(writes, before: 20)
        for read in reads {
            do {
                _ = try await read.value
            } catch let error as StoreError {
                #expect(error.code == .unavailable)
            }
        }
        // Each session the store held has ended (the server notices a moment after libpq says goodbye).
        // (PostgreSQL is another process: asked until then.)
        #expect(try await eventually(interval: .milliseconds(50)) { try Self.sessions(observer) == 0 }, "sessions still open after close()")

        let read = await #expect(throws: StoreError.self) { try await store.order(id: "ord_pg_close_0") }
        #expect(read?.code == .unavailable)
        let write = await #expect(throws: StoreError.self) { try await store.create(OrderStoreTests.newOrder("ord_pg_after")) }
        #expect(write?.code == .unavailable)
        #expect(store.retryCount == retriesAtClose, "a call after close() was tried again as if the connection had dropped")
        await store.close()  // a second close() does nothing

        // Everything acknowledged before close() is in the database.
        let reopened = try await PostgresOrderStore(url: url, poolSize: 1)
        for index in acknowledged {
            #expect(try await reopened.order(id: "ord_pg_close_\(index)") != nil, "ord_pg_close_\(index)")
        }
        #expect(try await reopened.order(id: "ord_pg_after") == nil)
        await reopened.close()
    }
}
