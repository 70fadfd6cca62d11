import Cashier
import CashierStore
import Foundation
import TestSupport
import Testing

/// A new SQLite database (orders, payments, client secrets) and its write-ahead log are 0600.
@Suite struct SQLiteFileModeTests {
    @Test func aNewDatabaseAndItsLogAreTheOwnersAlone() async throws {
        let (store, folder, _) = try await OrderStoreTests.storeInNewFolder("sqlite-mode")
        defer { try? FileManager.default.removeItem(at: folder) }
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(file).path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file): \(String(mode ?? -1, radix: 8))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains("cashier.db-wal"))
        await store.close()
    }
}
