import Foundation

/// Opens the store a `--db` value or a config's `database` names: a `postgres://` URL for
/// PostgreSQL (several instances), anything else a SQLite file.
public enum OrderStoreOpener {
    /// - Parameters:
    ///   - location: a `postgres://` URL, or a SQLite file's path.
    ///   - poolSize: PostgreSQL connections for reads.
    ///   - writers: PostgreSQL connections that group-commit the writes.
    /// - Throws: `StoreError.unavailable` saying what is wrong (file, host, password, database).
    public static func open(_ location: String, poolSize: Int = 10, writers: Int = 2) async throws -> any OrderStore {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            return try await PostgresOrderStore(url: location, poolSize: poolSize, writers: writers)
        }
        return try SQLiteOrderStore(path: location)
    }

    /// `location` fit for a log line: a URL's password hidden.
    public static func describe(_ location: String) -> String { PostgresConnection.redacted(location) }

    /// The migrations the database at `location` has and lacks, read without changing it (no
    /// migration applied, no table created, a SQLite file not created when missing).
    /// - Throws: `StoreError.unavailable` when the database cannot be reached.
    public static func migrationStatus(_ location: String) async throws -> MigrationStatus {
        let connection: any SQLConnection
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            connection = try PostgresConnection(url: location)
        } else {
            guard FileManager.default.fileExists(atPath: location) else {
                throw StoreError(.unavailable, "there is no SQLite database at \(location) (cashier serve creates it at start)")
            }
            connection = try SQLiteConnection(existing: location, readOnly: true)
        }
        let table =
            location.hasPrefix("postgres")
            ? "SELECT 1 AS name WHERE to_regclass('schema_migrations') IS NOT NULL"
            : "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        guard try !connection.query(table).isEmpty else { return MigrationStatus(applied: []) }
        let applied = try connection.query("SELECT name FROM schema_migrations ORDER BY name").map { try $0.required("name", \.text) }
        return MigrationStatus(applied: applied)
    }
}
