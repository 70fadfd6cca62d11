import Cashier
import CashierServer
import CashierStore
import Foundation

/// `cashier backup` and `cashier restore`: a consistent copy of a SQLite store taken while the
/// server runs (SQLite's online backup API), checked before it is put in place, and that copy put
/// back with the server stopped. PostgreSQL has its own tools (`pg_dump`, WAL archiving): the
/// commands say so and point at `docs/deploy/backup.md`.
enum BackupCommand {
    static let backup = Command(
        name: "backup",
        summary: "Copy a running server's SQLite database to FILE, consistently, and check the copy.",
        discussion: """
            The copy is one moment of the database (one read transaction: the server keeps writing meanwhile), written to a
            temporary file beside FILE, checked (PRAGMA integrity_check, the migrations table), synced and renamed onto FILE.
            Exit 0: FILE holds a good copy; 1: nothing was written (why on stderr); 2: usage. PostgreSQL: use pg_dump
            (docs/deploy/backup.md).
            """,
        options: [
            .value("to", "FILE", "Where the copy goes (replaced only by a copy that checked out).", required: true),
            .flag("json", "Print what the copy holds as JSON."),
        ] + KeysCommand.databaseOptions
    ) { arguments, io in
        let database = try sqliteDatabase(arguments, verb: "backup")
        let report: SQLiteBackup.Report
        do {
            report = try SQLiteBackup.backup(database: database, to: arguments.required("to"))
        } catch let error as StoreError {
            throw CommandFailure("backup: \(error.message)")
        }
        try print(report, io, json: arguments.flag("json"), verb: "backed up \(database) to")
        return 0
    }

    static let restore = Command(
        name: "restore",
        summary: "Put a backup in place of a SQLite database (the server stopped); the old file is kept beside it.",
        discussion: """
            The backup is checked first (integrity, migrations this version knows). The database at --db is refused while any
            process has it open (stop `cashier serve` first: a server would go on with the file it had open, and the two
            would diverge); otherwise it is moved to DB.replaced-<time> (its WAL folded in), never deleted, and the backup is
            copied in its place. Exit 0: restored; 1: nothing changed (why on stderr); 2: usage.
            """,
        options: [
            .value("from", "FILE", "The backup (from `cashier backup`, or any copy of a Cashier SQLite database).", required: true),
            .flag("json", "Print what was restored as JSON."),
        ] + KeysCommand.databaseOptions
    ) { arguments, io in
        let database = try sqliteDatabase(arguments, verb: "restore")
        let restored: SQLiteBackup.Restored
        do {
            restored = try SQLiteBackup.restore(from: arguments.required("from"), to: database)
        } catch let error as StoreError {
            throw CommandFailure("restore: \(error.message)")
        }
        try print(
            restored.report, io, json: arguments.flag("json"), verb: "restored \(arguments.required("from")) to",
            previous: restored.previous)
        if !arguments.flag("json") {
            io.write("start the server again: it applies any migration the backup lacks\n")
        }
        return 0
    }

    /// The SQLite file `--db` or `--config` names. - Throws: ``CommandFailure`` (2) for PostgreSQL or neither.
    static func sqliteDatabase(_ arguments: ParsedArguments, verb: String) throws -> String {
        var location = try CommandInput.database(arguments.value("db"))
        if location == nil, let file = arguments.value("config") {
            do {
                location = try ConfigurationFile.database(contentsOf: URL(fileURLWithPath: file)).location
            } catch let problem as ConfigurationFile.Problem {
                throw CommandFailure(problem.description, status: 2)
            }
        }
        guard let location else { throw CommandFailure("give --db PATH or --config FILE", status: 2) }
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            throw CommandFailure(
                "\(verb) copies SQLite databases; for PostgreSQL use pg_dump -Fc / pg_restore and WAL archiving for "
                    + "point-in-time recovery (docs/deploy/backup.md)", status: 2)
        }
        return location
    }

    private static func print(
        _ report: SQLiteBackup.Report, _ io: CommandIO, json: Bool, verb: String, previous: String? = nil
    ) throws {
        if json {
            var object: [String: Any] = [
                "path": report.path, "bytes": report.bytes, "orders": report.orders, "migrations": report.migrations.count,
                "latest_migration": report.latestMigration ?? NSNull(), "integrity": "ok",
            ]
            if let previous { object["previous"] = previous }
            try CommandInput.printJSON(object, io)
            return
        }
        io.write(
            "\(verb) \(report.path): \(report.bytes) bytes, \(report.orders) orders, integrity ok, "
                + "migrations up to \(report.latestMigration ?? "none")\n")
        if let previous { io.write("the database it replaced is kept at \(previous)\n") }
    }
}
