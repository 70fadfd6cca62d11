import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// `close()` finishes the writes queued, closes every connection, and returns only then: the
/// `-wal` and `-shm` files are gone (the last connection copies the WAL back and deletes them),
/// the data is in the database file, and every later call fails as unavailable.
@Suite struct SQLiteCloseTests {
    @Test func closeLeavesOnlyTheDatabaseFileAndRefusesWhatComesAfter() async throws {
        let (store, folder, path) = try await OrderStoreTests.storeInNewFolder("close")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Writes queued at once, the last of them still waiting for a writer when close() begins.
        let writes = (0..<40).map { index in
            Task { try await store.create(OrderStoreTests.newOrder("ord_close_\(index)")) }
        }
        for write in writes.prefix(20) { _ = try await write.value }
        await store.close()
        let acknowledged = await OrderStoreTests.acknowledged(writes, before: 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["cashier.db"])

        let read = await #expect(throws: StoreError.self) { try await store.order(id: "ord_close_0") }
        #expect(read?.code == .unavailable)
        let write = await #expect(throws: StoreError.self) { try await store.create(OrderStoreTests.newOrder("ord_after")) }
        #expect(write?.code == .unavailable)
        await store.close()  // a second close() does nothing

        // Everything acknowledged before close() is in the file.
        let reopened = try SQLiteOrderStore(path: path)
        for index in acknowledged {
            #expect(try await reopened.order(id: "ord_close_\(index)") != nil, "ord_close_\(index)")
        }
        #expect(try await reopened.order(id: "ord_after") == nil)
        await reopened.close()
    }
}
