public import Foundation

/// Dashboard sessions, sign-in failures and API keys: small tables every instance sharing the
/// database reads, so a session survives a request to another instance and a revoked key is
/// refused everywhere at once.
extension SQLOrderStore {
    public func createDashboardSession(_ session: DashboardSessionRecord, now: Date) async throws {
        try await withTransaction { transaction in
            let connection = transaction.connection
            try connection.query("DELETE FROM dashboard_sessions WHERE expires_at <= ?", [.integer(SQLStatements.stamp(now))])
            try connection.query(
                "INSERT INTO dashboard_sessions (id_hash, csrf, expires_at, key_id) VALUES (?, ?, ?, ?)",
                [
                    .text(session.idHash), .text(session.csrf), .integer(SQLStatements.stamp(session.expires)),
                    session.keyID.map(SQLValue.text) ?? .null,
                ])
        }
    }

    public func dashboardSession(idHash: String, now: Date) async throws -> DashboardSessionRecord? {
        try await withReading { session in
            // A session signed in with a key made by `cashier keys` lasts only while the key does;
            // one signed in with the configured key (`configured:…`) is judged by the server.
            let rows = try session.connection.query(
                "SELECT \(DashboardSessionColumn.list) FROM dashboard_sessions WHERE id_hash = ? AND expires_at > ? AND (key_id IS NULL "
                    + "OR key_id LIKE 'configured:%' OR EXISTS (SELECT 1 FROM api_keys WHERE api_keys.id = dashboard_sessions.key_id AND api_keys.revoked_at IS NULL))",
                [.text(idHash), .integer(SQLStatements.stamp(now))])
            guard let row = rows.first?.fields(DashboardSessionColumn.self), let csrf = try row.text(.csrf),
                let expires = try row.integer(.expiresAt)
            else { return nil }
            return DashboardSessionRecord(idHash: idHash, csrf: csrf, expires: SQLStatements.date(expires), keyID: try row.text(.keyID))
        }
    }

    public func endDashboardSession(idHash: String) async throws {
        try await withTransaction { session in
            try session.connection.query("DELETE FROM dashboard_sessions WHERE id_hash = ?", [.text(idHash)])
        }
    }

    public func recordSignInFailure(source: String, now: Date, since: Date) async throws -> Int {
        try await withTransaction { session in
            let connection = session.connection
            // Old failures go as new ones come: the table holds about one window's worth.
            try connection.query("DELETE FROM sign_in_failures WHERE at < ?", [.integer(SQLStatements.stamp(since))])
            try connection.query(
                "INSERT INTO sign_in_failures (source, at) VALUES (?, ?)", [.text(source), .integer(SQLStatements.stamp(now))])
            return try Self.signInFailures(source: source, since: since, connection)
        }
    }

    public func takeSignInAttempt(source: String, now: Date, since: Date, limit: Int) async throws -> Bool {
        try await withTransaction { session in
            let connection = session.connection
            // One address's attempts taken one at a time, however many instances and connections
            // take them at once: PostgreSQL holds a lock on the address until the transaction ends
            // (SQLite's one writer does so already).
            if connection.dialect == .postgres {
                try connection.query("SELECT pg_advisory_xact_lock(?)", [.integer(Self.signInLock(source))])
            }
            try connection.query("DELETE FROM sign_in_failures WHERE at < ?", [.integer(SQLStatements.stamp(since))])
            guard try Self.signInFailures(source: source, since: since, connection) < limit else { return false }
            try connection.query(
                "INSERT INTO sign_in_failures (source, at) VALUES (?, ?)", [.text(source), .integer(SQLStatements.stamp(now))])
            return true
        }
    }

    private static func signInFailures(source: String, since: Date, _ connection: any SQLConnection) throws -> Int {
        let rows = try connection.query(
            "SELECT COUNT(*) AS failures FROM sign_in_failures WHERE source = ? AND at >= ?",
            [.text(source), .integer(SQLStatements.stamp(since))])
        return Int(try rows.first?.integer("failures") ?? 0)
    }

    public func clearSignInFailures(source: String) async throws {
        try await withTransaction { session in
            try session.connection.query("DELETE FROM sign_in_failures WHERE source = ?", [.text(source)])
        }
    }

    public func signInFailures(source: String, since: Date) async throws -> Int {
        try await withReading { session in
            let rows = try session.connection.query(
                "SELECT COUNT(*) AS failures FROM sign_in_failures WHERE source = ? AND at >= ?",
                [.text(source), .integer(SQLStatements.stamp(since))])
            return Int(try rows.first?.integer("failures") ?? 0)
        }
    }

    public func createAPIKey(_ key: APIKeyRecord) async throws {
        try await withTransaction { session in
            try session.connection.query(
                "INSERT INTO api_keys (id, hash, prefix, label, created_at, merchant) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    .text(key.id), .text(key.hash), .text(key.prefix), .text(key.label), .integer(SQLStatements.stamp(key.createdAt)),
                    key.merchant.map { .text($0) } ?? .null,
                ])
        }
    }

    public func apiKeys() async throws -> [APIKeyRecord] {
        try await withReading { session in
            try session.connection.query("SELECT \(APIKeyColumn.list) FROM api_keys ORDER BY created_at DESC, id DESC").map(
                APIKeyRecord.init(row:))
        }
    }

    public func activeAPIKey(hash: String) async throws -> APIKeyRecord? {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(APIKeyColumn.list) FROM api_keys WHERE hash = ? AND revoked_at IS NULL", [.text(hash)]
            ).first.map(APIKeyRecord.init(row:))
        }
    }

    public func revokeAPIKey(id: String, now: Date) async throws -> APIKeyRecord? {
        try await withTransaction { session in
            let connection = session.connection
            try connection.query(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.integer(SQLStatements.stamp(now)), .text(id)])
            return try connection.query("SELECT \(APIKeyColumn.list) FROM api_keys WHERE id = ?", [.text(id)]).first.map(
                APIKeyRecord.init(row:))
        }
    }

    public func touchAPIKey(id: String, at: Date) async throws {
        try await withTransaction { session in
            try session.connection.query(
                "UPDATE api_keys SET last_used_at = ? WHERE id = ?", [.integer(SQLStatements.stamp(at)), .text(id)])
        }
    }

    /// The advisory lock that counts `source`'s sign-ins: a 64-bit FNV-1a of it, apart from the
    /// migrations' lock. (A lock shared by two addresses only makes them wait for each other.)
    static func signInLock(_ source: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in ("sign-in " + source).utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return Int64(bitPattern: hash)
    }
}
