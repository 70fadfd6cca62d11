import Cashier
import CashierStore
import Foundation
import TestSupport
import Testing

/// A new SQLite database (orders, payments, client secrets) and its write-ahead log are 0600.
@Suite struct SQLiteFileModeTests {
    @Test func aNewDatabaseAndItsLogAreTheOwnersAlone() async throws {
        let folder = Scratch.url("sqlite-mode-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cashier.db").path
        let store = try SQLiteOrderStore(path: path)
        try await store.migrate()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(file).path)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(file): \(String(mode ?? -1, radix: 8))")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains("cashier.db-wal"))
    }
}
