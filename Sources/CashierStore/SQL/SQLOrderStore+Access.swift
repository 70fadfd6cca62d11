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
                "INSERT INTO dashboard_sessions (id_hash, csrf, expires_at) VALUES (?, ?, ?)",
                [.text(session.idHash), .text(session.csrf), .integer(SQLStatements.stamp(session.expires))])
        }
    }

    public func dashboardSession(idHash: String, now: Date) async throws -> DashboardSessionRecord? {
        try await withReading { session in
            let rows = try session.connection.query(
                "SELECT \(DashboardSessionColumn.list) FROM dashboard_sessions WHERE id_hash = ? AND expires_at > ?",
                [.text(idHash), .integer(SQLStatements.stamp(now))])
            guard let row = rows.first?.fields(DashboardSessionColumn.self), let csrf = try row.text(.csrf),
                let expires = try row.integer(.expiresAt)
            else { return nil }
            return DashboardSessionRecord(idHash: idHash, csrf: csrf, expires: SQLStatements.date(expires))
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
            let rows = try connection.query(
                "SELECT COUNT(*) AS failures FROM sign_in_failures WHERE source = ? AND at >= ?",
                [.text(source), .integer(SQLStatements.stamp(since))])
            return Int(try rows.first?.integer("failures") ?? 0)
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
}
