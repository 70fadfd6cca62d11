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
}
