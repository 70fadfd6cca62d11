public import Foundation

/// Receivers: one row per merchant, provider, type and account; adding one again makes it active.
extension SQLOrderStore {
    public func saveReceiver(_ receiver: StoredReceiver, now: Date) async throws -> (receiver: StoredReceiver, created: Bool) {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let key: [SQLValue] = [.text(receiver.merchant ?? ""), .text(receiver.provider), .text(receiver.type), .text(receiver.account)]
            let condition = "merchant_key = ? AND provider = ? AND type = ? AND account = ?"
            if let existing = try Self.receiver(connection, condition, key) {
                try connection.query(
                    "UPDATE receivers SET status = 'active', relation_type = ?, custom_relation = ?, updated_at = ? WHERE id = ?",
                    [
                        .text(receiver.relationType), receiver.customRelation.map { .text($0) } ?? .null, .integer(at), .text(existing.id),
                    ])
                return (try Self.receiver(connection, "id = ?", [.text(existing.id)]) ?? existing, false)
            }
            try connection.query(
                """
                INSERT INTO receivers (id, merchant, merchant_key, provider, type, account, relation_type, custom_relation, status,
                    created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?) ON CONFLICT (merchant_key, provider, type, account) DO NOTHING
                """,
                [
                    .text(receiver.id), receiver.merchant.map { .text($0) } ?? .null, .text(receiver.merchant ?? ""),
                    .text(receiver.provider), .text(receiver.type), .text(receiver.account), .text(receiver.relationType),
                    receiver.customRelation.map { .text($0) } ?? .null, .integer(at), .integer(at),
                ])
            let created = connection.changes == 1
            guard let saved = try Self.receiver(connection, condition, key) else {
                throw StoreError(.busy, "receiver \(receiver.account) changed underneath; retry")
            }
            return (saved, created)
        }
    }

    public func removeReceiver(_ id: String, now: Date) async throws -> StoredReceiver {
        try await withTransaction { session in
            let connection = session.connection
            try connection.query(
                "UPDATE receivers SET status = 'removed', updated_at = ? WHERE id = ?", [.integer(SQLStatements.stamp(now)), .text(id)])
            guard let removed = try Self.receiver(connection, "id = ?", [.text(id)]) else {
                throw StoreError(.notFound, "no receiver \(id)")
            }
            return removed
        }
    }

    public func receiver(merchant: String?, provider: String, type: String, account: String) async throws -> StoredReceiver? {
        try await withReading {
            try Self.receiver(
                $0.connection, "merchant_key = ? AND provider = ? AND type = ? AND account = ?",
                [.text(merchant ?? ""), .text(provider), .text(type), .text(account)])
        }
    }

    public func receiver(id: String) async throws -> StoredReceiver? {
        try await withReading { try Self.receiver($0.connection, "id = ?", [.text(id)]) }
    }

    public func receivers(merchant: String?, includingRemoved: Bool, limit: Int, offset: Int) async throws -> [StoredReceiver] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(ReceiverColumn.list) FROM receivers WHERE merchant_key = ?\(includingRemoved ? "" : " AND status = 'active'")
                ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?
                """, [.text(merchant ?? ""), .integer(Int64(limit)), .integer(Int64(offset))]
            ).map(StoredReceiver.init(row:))
        }
    }

    private static func receiver(_ connection: any SQLConnection, _ condition: String, _ values: [SQLValue]) throws -> StoredReceiver? {
        try connection.query("SELECT \(ReceiverColumn.list) FROM receivers WHERE \(condition)", values).first.map(StoredReceiver.init(row:))
    }
}
