internal import CSQLite
import Cashier
public import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Copies of a SQLite store taken while the server runs (`cashier backup`), and a copy put back
/// in place of the database (`cashier restore`), through SQLite's online backup API.
///
/// A backup reads the database in one read transaction: in WAL mode it sees one commit, the
/// last before it started, and never stops the server's writer (WAL readers do not block
/// writers). It is written to a temporary file beside the destination (0600), checked there —
/// `PRAGMA integrity_check` and the migrations table — synced, and only then renamed onto the
/// destination: whoever reads the destination sees the previous backup or the new one, whole.
///
/// ```swift
/// let copy = try SQLiteBackup.backup(database: "cashier.db", to: "/backups/cashier-2026-12-07.db")
/// print(copy.latestMigration ?? "empty", copy.bytes)
/// ```
public enum SQLiteBackup {
    /// What a backup or a check found in a database file.
    public struct Report: Sendable, Equatable {
        /// The file checked.
        public let path: String
        /// Its size in bytes.
        public let bytes: Int
        /// The migrations it records, in order.
        public let migrations: [String]
        /// Rows in `orders`.
        public let orders: Int

        /// The last migration it records, `nil` for a database never migrated.
        public var latestMigration: String? { migrations.last }
    }

    /// Copies the database at `database` to `destination` while other connections (a running
    /// server's) keep reading and writing it, then checks the copy.
    /// - Parameters:
    ///   - database: the store's SQLite file (it must exist).
    ///   - destination: where the copy goes; an existing file there is replaced only once the new
    ///     copy has been checked.
    /// - Returns: what the copy holds.
    /// - Throws: `StoreError` saying what failed (the database cannot be opened, the folder
    ///   cannot be written, the copy did not check out); the destination is then untouched.
    public static func backup(database: String, to destination: String) throws -> Report {
        guard FileManager.default.fileExists(atPath: database) else {
            throw StoreError(.unavailable, "there is no SQLite database at \(database)")
        }
        let source = try SQLiteConnection(existing: database, readOnly: true)
        let temporary = try temporaryFile(beside: destination)
        do {
            try copy(from: source, toFile: temporary)
            let report = try check(temporary)
            try install(temporary, at: destination)
            return Report(path: destination, bytes: report.bytes, migrations: report.migrations, orders: report.orders)
        } catch {
            unlink(temporary)
            throw error
        }
    }

    /// Checks a database file without changing it: SQLite's `PRAGMA integrity_check`, then its
    /// `schema_migrations` — present, and naming no migration this version does not know.
    /// - Throws: `StoreError.failed` saying what is wrong; `.newerSchema` for a file a newer
    ///   Cashier migrated.
    public static func check(_ path: String) throws -> Report {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError(.unavailable, "there is no file at \(path)") }
        let connection = try SQLiteConnection(existing: path, readOnly: true)
        let integrity: [String]
        do {
            integrity = try connection.query("PRAGMA integrity_check").compactMap { $0.values.first?.text }
        } catch let error as StoreError {
            throw StoreError(.failed, "\(path) is not a SQLite database Cashier can read: \(error.message)")
        }
        guard integrity == ["ok"] else {
            throw StoreError(.failed, "\(path) failed SQLite's integrity check: \(integrity.prefix(3).joined(separator: "; "))")
        }
        let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
        guard !tables.isEmpty else {
            throw StoreError(.failed, "\(path) has no schema_migrations table: it is not a Cashier database (or was never migrated)")
        }
        let migrations = try connection.query("SELECT name FROM schema_migrations ORDER BY name").map { try $0.required("name", \.text) }
        let known = Set(Migration.all.map(\.name))
        let unknown = migrations.filter { !known.contains($0) }
        guard unknown.isEmpty else { throw Migration.newer(unknown, newest: Migration.all.last?.name) }
        let hasOrders = try !connection.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'orders'").isEmpty
        let orders = hasOrders ? Int(try connection.query("SELECT COUNT(*) AS n FROM orders").first?.values.first?.integer ?? 0) : 0
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        return Report(path: path, bytes: size, migrations: migrations, orders: orders)
    }

    /// What ``restore(from:to:now:)`` did.
    public struct Restored: Sendable, Equatable {
        /// The backup's contents, as now at the database's path.
        public let report: Report
        /// Where the database that was there before now is, or `nil` when there was none.
        public let previous: String?
    }

    /// Puts the backup at `backup` in place of the database at `database`, which must not be
    /// open anywhere (a running server's store holds it: stop the server first). The backup is
    /// checked first; the database it replaces is kept beside it as `DATABASE.replaced-<time>`
    /// (with its `-wal` checkpointed into it), never deleted.
    /// - Throws: `StoreError.busy` when another process holds the database; `StoreError` when
    ///   the backup does not check out or a file cannot be written — the database is then
    ///   untouched.
    public static func restore(from backup: String, to database: String, now: Date = Date()) throws -> Restored {
        _ = try check(backup)
        var previous: String?
        if FileManager.default.fileExists(atPath: database) {
            let aside = database + ".replaced-" + stamp(now)
            try moveAside(database, to: aside)
            previous = aside
        }
        let temporary = try temporaryFile(beside: database)
        do {
            let source = try SQLiteConnection(existing: backup, readOnly: true)
            try copy(from: source, toFile: temporary)
            let report = try check(temporary)
            try install(temporary, at: database)
            return Restored(
                report: Report(path: database, bytes: report.bytes, migrations: report.migrations, orders: report.orders),
                previous: previous)
        } catch {
            unlink(temporary)
            // The database that was there goes back: nothing was restored.
            if let previous { rename(previous, database) }
            throw error
        }
    }

    /// Takes the database for this process alone (refused while any other connection has it
    /// open, as a running server's store does), folds its WAL in, and renames it to `aside`.
    private static func moveAside(_ database: String, to aside: String) throws {
        do {
            let only = try SQLiteConnection(existing: database, readOnly: false, busyMilliseconds: 0)
            try only.execute("PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; SELECT COUNT(*) FROM sqlite_master; COMMIT;")
            try only.execute("PRAGMA wal_checkpoint(TRUNCATE);")
        } catch let error as StoreError where error.code == .busy || error.message.contains("locked") {
            throw StoreError(
                .busy,
                "\(database) is open in another process (a running `cashier serve`?): stop it before restoring, "
                    + "or restore to another path and point the server at it")
        }
        // The connection is closed: SQLite has removed the -wal and -shm files it kept.
        guard rename(database, aside) == 0 else {
            throw StoreError(.failed, "cannot move \(database) aside to \(aside): \(String(cString: strerror(errno)))")
        }
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
            rename(database + suffix, aside + suffix)
        }
    }

    /// Copies every page of `source` into a new database at `path` in one step: one read
    /// transaction on the source, so the copy is one consistent state of it.
    private static func copy(from source: SQLiteConnection, toFile path: String) throws {
        let destination = try SQLiteConnection(path: path)
        guard let backup = sqlite3_backup_init(destination.handle, "main", source.handle, "main") else {
            throw StoreError(.failed, "SQLite cannot start the backup: \(String(cString: sqlite3_errmsg(destination.handle)))")
        }
        var status = SQLITE_OK
        repeat {
            status = sqlite3_backup_step(backup, -1)
            // Another connection's write lock on the source (a checkpoint) lasts milliseconds: wait it out.
            if status == SQLITE_BUSY || status == SQLITE_LOCKED { sqlite3_sleep(20) }
        } while status == SQLITE_OK || status == SQLITE_BUSY || status == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            throw StoreError(
                .failed, "the SQLite backup failed: \(String(cString: sqlite3_errstr(status == SQLITE_DONE ? finished : status)))")
        }
        // The copy is written in rollback-journal mode: one file, nothing beside it.
        try destination.execute("PRAGMA journal_mode=DELETE;")
    }

    /// A new, empty, owner-only file in `destination`'s folder (a rename within one file system is atomic).
    private static func temporaryFile(beside destination: String) throws -> String {
        let temporary = destination + ".\(UUID().uuidString.prefix(8)).partial"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.unavailable, "cannot write beside \(destination): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        return temporary
    }

    /// Syncs `temporary`, renames it onto `destination`, and syncs the folder, so the rename
    /// survives a crash.
    private static func install(_ temporary: String, at destination: String) throws {
        let descriptor = open(temporary, O_RDONLY | O_CLOEXEC)
        let synced = descriptor >= 0 && fsync(descriptor) == 0
        if descriptor >= 0 { close(descriptor) }
        guard synced, rename(temporary, destination) == 0 else {
            throw StoreError(.failed, "cannot put the copy at \(destination): \(String(cString: strerror(errno)))")
        }
        let parent = (destination as NSString).deletingLastPathComponent
        let folder = open(parent.isEmpty ? "." : parent, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// `20261207T051500Z`.
    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
