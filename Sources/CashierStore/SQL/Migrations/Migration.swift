import Foundation

/// One named change to the schema, applied once (its name is recorded in `schema_migrations`)
/// and never edited after release: a database migrated by an earlier text keeps it. Each is
/// written once for both databases, its dialect's differences filled in by ``SQLDialect``;
/// ``all`` lists them in the order they apply.
///
/// ```swift
/// Migration.same("014_checkout", "ALTER TABLE orders ADD COLUMN return_url TEXT")
/// Migration(name: "006_job_leases") { dialect in
///     "CREATE TABLE job_leases (job TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at \(dialect.bigint) NOT NULL);"
/// }
/// ```
struct Migration: Sendable {
    /// What `schema_migrations` records: `001_orders`, …
    let name: String
    /// The statements, `;`-separated, as `dialect` runs them.
    let sql: @Sendable (SQLDialect) -> String

    init(name: String, sql: @escaping @Sendable (SQLDialect) -> String) {
        self.name = name
        self.sql = sql
    }

    /// A migration whose text is the same on SQLite and PostgreSQL.
    static func same(_ name: String, _ sql: String) -> Migration {
        Migration(name: name) { _ in sql }
    }

    /// A migration with a text of its own for each database, where they differ by more than the
    /// dialect's names (or were released laid out differently, and so stay as released).
    static func dialects(_ name: String, sqlite: String, postgres: String) -> Migration {
        Migration(name: name) { dialect in
            switch dialect {
            case .sqlite: sqlite
            case .postgres: postgres
            }
        }
    }

    /// Applies, in order, the migrations of `migrations` not yet recorded in
    /// `schema_migrations` (inside the caller's transaction).
    /// - Returns: the names applied now.
    /// - Throws: `StoreError.newerSchema`, before applying anything, when the database records a
    ///   migration that `migrations` does not have: a newer version of Cashier migrated it, and
    ///   this one would run on tables it does not know.
    static func apply(_ migrations: [Migration], as dialect: SQLDialect, on connection: any SQLConnection) throws -> [String] {
        try connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
        let applied = try connection.query("SELECT name FROM schema_migrations ORDER BY name").map { try $0.required("name", \.text) }
        let known = Set(migrations.map(\.name))
        let unknown = applied.filter { !known.contains($0) }
        guard unknown.isEmpty else { throw Self.newer(unknown, newest: migrations.last?.name) }
        let done = Set(applied)
        var now: [String] = []
        for migration in migrations where !done.contains(migration.name) {
            try connection.execute(migration.sql(dialect))
            try connection.query(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                [.text(migration.name), .integer(Int64(Date().timeIntervalSince1970))])
            now.append(migration.name)
        }
        return now
    }

    /// The refusal of a database that holds the migrations `unknown`, past `newest`.
    static func newer(_ unknown: [String], newest: String?) -> StoreError {
        StoreError(
            .newerSchema,
            "the database was migrated by a newer version of Cashier: it holds \(unknown.joined(separator: ", ")), which this "
                + "version does not know (its last migration is \(newest ?? "none")). Run that newer version against this database, "
                + "or restore a backup taken before the upgrade; nothing was changed")
    }
}

extension Migration {
    /// ``all`` up to and including the migration named `last`.
    /// - Throws: `StoreError.notFound` when there is none of that name.
    static func all(through last: String) throws -> [Migration] {
        guard let index = all.firstIndex(where: { $0.name == last }) else {
            throw StoreError(.notFound, "there is no migration named \(last)")
        }
        return Array(all[...index])
    }
}

extension [Migration] {
    /// Each migration's name and its text as `dialect` runs it, in order.
    func rendered(for dialect: SQLDialect) -> [(name: String, sql: String)] {
        map { ($0.name, $0.sql(dialect)) }
    }
}
