import CashierStore
import Foundation

/// The two stores `cashier-bench scale` compares: the one it fills, and an empty one.
///
/// On SQLite, two files in the run's folder. On PostgreSQL, the database `--db` names (which
/// must be empty) and one made beside it for the run (`CREATE DATABASE`, dropped at the end).
struct ScaleStores: Sendable {
    let full: any SQLOrderStore
    let empty: any SQLOrderStore
    let database: ScaleDatabase
    /// Applies the full store's migrations up to a name (``SQLiteOrderStore/migrate(through:)``).
    let migrateFull: @Sendable (String) async throws -> Void
    /// The PostgreSQL database made for the empty store, to drop, and the URL it was made through.
    private let madeDatabase: (name: String, url: String)?

    static func open(_ url: String?, folder: URL) async throws -> ScaleStores {
        guard let url else {
            let path = folder.appendingPathComponent("scale.db").path
            let full = try SQLiteOrderStore(path: path, reportLinesPerOrder: ServerSuite.reportLinesPerOrder)
            let empty = try SQLiteOrderStore(
                path: folder.appendingPathComponent("empty.db").path, reportLinesPerOrder: ServerSuite.reportLinesPerOrder)
            return ScaleStores(
                full: full, empty: empty, database: .sqlite(path: path), migrateFull: { try await full.migrate(through: $0) },
                madeDatabase: nil)
        }
        let name = "cashier_scale_empty_" + UUID().uuidString.prefix(8).lowercased()
        _ = try Subprocess.run("/usr/bin/env", ["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", "CREATE DATABASE \(name)"])
        guard var components = URLComponents(string: url) else { throw Subprocess.Failure("--db \(url) is not a URL") }
        components.path = "/" + name
        let full = try await PostgresOrderStore(url: url, reportLinesPerOrder: ServerSuite.reportLinesPerOrder)
        let empty = try await PostgresOrderStore(url: components.string ?? url, reportLinesPerOrder: ServerSuite.reportLinesPerOrder)
        return ScaleStores(
            full: full, empty: empty, database: .postgres(url: url), migrateFull: { try await full.migrate(through: $0) },
            madeDatabase: (name, url))
    }

    /// Closes both stores and drops the database made for the empty one.
    func close() async {
        await full.close()
        await empty.close()
        if let made = madeDatabase {
            _ = try? Subprocess.run("/usr/bin/env", ["psql", "-q", made.url, "-c", "DROP DATABASE IF EXISTS \(made.name) WITH (FORCE)"])
        }
    }

    /// On PostgreSQL, what autovacuum would have done over the two years the fill wrote at once:
    /// `VACUUM ANALYZE`, so the planner knows the tables' sizes. Nothing on SQLite, whose planner
    /// the server leaves to its defaults.
    func analyze() throws {
        guard case .postgres(let url) = database else { return }
        _ = try Subprocess.run("/usr/bin/env", ["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", "VACUUM ANALYZE"])
    }
}

/// Where `cashier-bench scale` keeps its store.
enum ScaleDatabase: Sendable {
    case sqlite(path: String)
    case postgres(url: String)

    var isPostgres: Bool {
        if case .postgres = self { true } else { false }
    }
}
