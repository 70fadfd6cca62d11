import Cashier
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierStore

/// `cashier backup` and `cashier restore` on SQLite: a copy taken while writes go on is one
/// moment of the database and checks out; a restore refuses a database another process (a
/// running server) holds, keeps the one it replaces, and leaves everything as it was when the
/// backup does not check out.
@Suite struct SQLiteBackupTests {
    /// Orders written on eight tasks while backups are taken: each backup checks out, holds every
    /// order acknowledged before it started and only whole orders, and the writes never fail.
    @Test(.timeLimit(.minutes(2)))
    func backupsOfABusyStoreAreConsistent() async throws {
        let (store, folder, path) = try await OrderStoreTests.storeInNewFolder("backup")
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = Counter()
        let backups = try await withThrowingTaskGroup(of: [(before: Int, report: SQLiteBackup.Report)].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<40 {
                        _ = try await store.create(OrderStoreTests.newOrder("ord_b\(worker)_\(index)"))
                        written.add()
                    }
                    return []
                }
            }
            group.addTask {
                var taken: [(Int, SQLiteBackup.Report)] = []
                for round in 0..<5 {
                    let before = written.value
                    let target = folder.appendingPathComponent("backup-\(round).db").path
                    taken.append((before, try SQLiteBackup.backup(database: path, to: target)))
                    await Task.yield()
                }
                return taken
            }
            var all: [(Int, SQLiteBackup.Report)] = []
            for try await result in group { all += result }
            return all
        }
        #expect(written.value == 320)
        #expect(backups.count == 5)
        for (before, report) in backups {
            #expect(report.orders >= before, "a backup started after \(before) acknowledged orders holds \(report.orders)")
            #expect(report.latestMigration == MigrationStatus.latest)
            // Checked again from the file: whole, and each order with its client secret.
            let again = try SQLiteBackup.check(report.path)
            #expect(again.orders == report.orders)
            let copy = try SQLiteOrderStore(path: report.path)
            let orders = try await copy.orders(status: nil, before: nil, limit: 1000).count
            #expect(orders == report.orders)
            await copy.close()
        }
        // The backups' partial files never stay behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".partial") }
        #expect(left.isEmpty)
        await store.close()
    }

    /// A restore is refused while another connection holds the database; once it is closed, the
    /// backup takes its place and the database it replaced is kept beside it.
    @Test func restoreRefusesADatabaseInUseAndKeepsTheOneItReplaces() async throws {
        let (store, folder, path) = try await OrderStoreTests.storeInNewFolder("restore")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await store.create(OrderStoreTests.newOrder("ord_kept"))
        let backup = folder.appendingPathComponent("backup.db").path
        _ = try SQLiteBackup.backup(database: path, to: backup)
        _ = try await store.create(OrderStoreTests.newOrder("ord_after_backup"))

        let refused = #expect(throws: StoreError.self) { try SQLiteBackup.restore(from: backup, to: path) }
        #expect(refused?.code == .busy && refused?.message.contains("stop it before restoring") == true, "\(String(describing: refused))")
        #expect(try await store.order(id: "ord_after_backup") != nil, "the running store was left alone")
        await store.close()

        let restored = try SQLiteBackup.restore(from: backup, to: path, now: Date(timeIntervalSince1970: 1_800_000_000))
        #expect(restored.report.orders == 1)
        let previous = try #require(restored.previous)
        #expect(previous.hasSuffix("cashier.db.replaced-20270115T080000Z"))
        let reopened = try SQLiteOrderStore(path: path)
        #expect(try await reopened.order(id: "ord_kept") != nil)
        #expect(try await reopened.order(id: "ord_after_backup") == nil)
        await reopened.close()
        let old = try SQLiteOrderStore(path: previous)
        #expect(try await old.order(id: "ord_after_backup") != nil, "the replaced database is kept whole")
        await old.close()
    }

    /// A file that is not a Cashier database is refused by the check, the backup and the restore,
    /// and the database a restore would have replaced stays where it was.
    @Test func aBadBackupChangesNothing() async throws {
        let (store, folder, path) = try await OrderStoreTests.storeInNewFolder("badbackup")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await store.create(OrderStoreTests.newOrder("ord_stays"))
        await store.close()
        let garbage = folder.appendingPathComponent("garbage.db").path
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: StoreError.self) { try SQLiteBackup.check(garbage) }
        #expect(throws: StoreError.self) { try SQLiteBackup.restore(from: garbage, to: path) }
        // An empty SQLite file is a database, but not Cashier's.
        let empty = folder.appendingPathComponent("empty.db").path
        _ = try SQLiteConnection(path: empty)
        let notCashier = #expect(throws: StoreError.self) { try SQLiteBackup.check(empty) }
        #expect(notCashier?.message.contains("schema_migrations") == true)
        let reopened = try SQLiteOrderStore(path: path)
        #expect(try await reopened.order(id: "ord_stays") != nil)
        await reopened.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).allSatisfy { !$0.contains("replaced") })
        // A backup to an existing file leaves it as it was when the source is missing.
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: garbage))
        #expect(throws: StoreError.self) { try SQLiteBackup.backup(database: folder.appendingPathComponent("nope.db").path, to: garbage) }
        #expect(try String(contentsOfFile: garbage, encoding: .utf8) == "keep me")
    }

    /// A backup is its owner's alone (0600), like the database.
    @Test func aBackupIsTheOwnersAlone() async throws {
        let (store, folder, path) = try await OrderStoreTests.storeInNewFolder("backupmode")
        defer { try? FileManager.default.removeItem(at: folder) }
        await store.close()
        let target = folder.appendingPathComponent("copy.db").path
        _ = try SQLiteBackup.backup(database: path, to: target)
        let mode = try FileManager.default.attributesOfItem(atPath: target)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// Doctor's view of the migrations: current, pending (an older database), unknown (a newer
    /// Cashier's), without changing the file.
    @Test func migrationStatusReadsWithoutChanging() async throws {
        let (store, folder, path) = try await OrderStoreTests.storeInNewFolder("migrations")
        defer { try? FileManager.default.removeItem(at: folder) }
        await store.close()
        var status = try await OrderStoreOpener.migrationStatus(path)
        #expect(status.pending.isEmpty && status.unknown.isEmpty && status.applied.count == Migration.all.count)
        let connection = try SQLiteConnection(path: path)
        try connection.execute("DELETE FROM schema_migrations WHERE name = '\(Migration.all.last!.name)'")
        try connection.execute("INSERT INTO schema_migrations (name, applied_at) VALUES ('999_from_the_future', 0)")
        status = try await OrderStoreOpener.migrationStatus(path)
        #expect(status.pending == [Migration.all.last!.name])
        #expect(status.unknown == ["999_from_the_future"])
        let missing = await #expect(throws: StoreError.self) {
            try await OrderStoreOpener.migrationStatus(folder.appendingPathComponent("none.db").path)
        }
        #expect(missing?.code == .unavailable)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("none.db").path))
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }
}
