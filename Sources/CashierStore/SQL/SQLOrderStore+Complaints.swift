public import Cashier
public import CashierWire
public import Foundation

/// Payers' complaints: each provider's complaint one row (unique by provider and its id), changed
/// under its row's lock, its webhook queued in the same transaction.
extension SQLOrderStore {
    public func recordComplaint(_ snapshot: ComplaintSnapshot, wallet: PaymentMethod.Wallet, now: Date) async throws
        -> ComplaintRecorded
    {
        let text = String(decoding: try JSONEncoder.sorted.encode(snapshot), as: UTF8.self)
        return try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let payment = try snapshot.outTradeNo.flatMap {
                try SQLLedger.payment(connection, where: "wallet = ? AND out_trade_no = ?", [.text(wallet.rawValue), .text($0)])
            }
            let order = try payment.flatMap { try SQLStatements.fetch(connection, where: "id = ?", .text($0.orderID)) }
            let key: [SQLValue] = [.text(snapshot.provider), .text(snapshot.providerComplaintID)]
            var existing = try SQLOrderStoreComplaints.fetch(connection, "provider = ? AND provider_complaint_id = ?", key, locking: true)
            if existing == nil {
                let id = "cmp_" + RandomText.alphanumeric(count: 24)
                try connection.query(
                    """
                    INSERT INTO complaints (id, provider, provider_complaint_id, provider_merchant_id, merchant, order_id, payment_id,
                        out_trade_no, state, complained_at, respond_by, settle_by, snapshot, version, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (provider, provider_complaint_id) DO NOTHING
                    """,
                    [
                        .text(id), .text(snapshot.provider), .text(snapshot.providerComplaintID), .text(snapshot.providerMerchantID),
                        order?.merchant.map { .text($0) } ?? .null, order.map { .text($0.id) } ?? .null,
                        payment.map { .text($0.id) } ?? .null, snapshot.outTradeNo.map { .text($0) } ?? .null,
                        .text(snapshot.state.rawValue), .integer(SQLStatements.stamp(snapshot.complainedAt)),
                        .integer(SQLStatements.stamp(snapshot.respondBy)), .integer(SQLStatements.stamp(snapshot.settleBy)), .text(text),
                        .integer(at), .integer(at),
                    ])
                if connection.changes == 1 {
                    guard let created = try SQLOrderStoreComplaints.fetch(connection, "id = ?", [.text(id)]) else {
                        throw StoreError(.failed, "complaint \(id) vanished after it was inserted")
                    }
                    try SQLOrderStoreComplaints.enqueue("complaint.created", created, order: order, at: at, connection)
                    return .created(created)
                }
                // Another instance recorded it first (PostgreSQL waited for its commit): as a change to that.
                existing = try SQLOrderStoreComplaints.fetch(connection, "provider = ? AND provider_complaint_id = ?", key, locking: true)
            }
            guard let existing else { throw StoreError(.busy, "complaint \(snapshot.providerComplaintID) changed underneath; retry") }
            let linked = existing.orderID == nil && order != nil
            guard existing.snapshot != snapshot || linked else { return .unchanged(existing) }
            // A repeat complaint moves the deadlines: their misses are announced anew.
            let deadlinesMoved = existing.snapshot.respondBy != snapshot.respondBy || existing.snapshot.settleBy != snapshot.settleBy
            try connection.query(
                """
                UPDATE complaints SET state = ?, complained_at = ?, respond_by = ?, settle_by = ?, snapshot = ?,
                    merchant = COALESCE(merchant, ?), order_id = COALESCE(order_id, ?), payment_id = COALESCE(payment_id, ?),
                    respond_overdue_at = \(deadlinesMoved ? "NULL" : "respond_overdue_at"),
                    settle_overdue_at = \(deadlinesMoved ? "NULL" : "settle_overdue_at"), version = version + 1, updated_at = ?
                WHERE id = ? AND version = ?
                """,
                [
                    .text(snapshot.state.rawValue), .integer(SQLStatements.stamp(snapshot.complainedAt)),
                    .integer(SQLStatements.stamp(snapshot.respondBy)), .integer(SQLStatements.stamp(snapshot.settleBy)), .text(text),
                    order?.merchant.map { .text($0) } ?? .null, order.map { .text($0.id) } ?? .null, payment.map { .text($0.id) } ?? .null,
                    .integer(at), .text(existing.id), .integer(existing.version),
                ])
            guard connection.changes == 1, let updated = try SQLOrderStoreComplaints.fetch(connection, "id = ?", [.text(existing.id)])
            else {
                throw StoreError(.busy, "complaint \(existing.id) changed underneath; retry")
            }
            let linkedOrder = try order ?? updated.orderID.flatMap { try SQLStatements.fetch(connection, where: "id = ?", .text($0)) }
            try SQLOrderStoreComplaints.enqueue(
                linked ? "complaint.created" : "complaint.updated", updated, order: linkedOrder, at: at, connection)
            return .updated(updated)
        }
    }

    public func complaint(id: String) async throws -> StoredComplaint? {
        try await withReading { try SQLOrderStoreComplaints.fetch($0.connection, "id = ?", [.text(id)]) }
    }

    public func complaint(provider: String, providerComplaintID: String) async throws -> StoredComplaint? {
        try await withReading {
            try SQLOrderStoreComplaints.fetch(
                $0.connection, "provider = ? AND provider_complaint_id = ?", [.text(provider), .text(providerComplaintID)])
        }
    }

    public func complaints(merchant: String?, states: Set<StoredComplaint.State>, limit: Int, offset: Int) async throws
        -> [StoredComplaint]
    {
        try await withReading { session in
            var conditions: [String] = []
            var parameters: [SQLValue] = []
            if let merchant {
                conditions.append("merchant = ?")
                parameters.append(.text(merchant))
            }
            if !states.isEmpty {
                let names = states.map(\.rawValue).sorted()
                conditions.append("state IN (\(Array(repeating: "?", count: names.count).joined(separator: ", ")))")
                parameters += names.map { .text($0) }
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            return try session.connection.query(
                """
                SELECT \(ComplaintColumn.list) FROM complaints \(filter)
                ORDER BY CASE state WHEN 'processed' THEN 1 ELSE 0 END,
                    CASE state WHEN 'pending' THEN respond_by WHEN 'processing' THEN settle_by ELSE -complained_at END, rowid
                LIMIT ? OFFSET ?
                """, parameters + [.integer(Int64(limit)), .integer(Int64(offset))]
            ).map(StoredComplaint.init(row:))
        }
    }

    public func complaints(orderID: String) async throws -> [StoredComplaint] {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(ComplaintColumn.list) FROM complaints WHERE order_id = ? ORDER BY complained_at, rowid", [.text(orderID)]
            ).map(StoredComplaint.init(row:))
        }
    }

    public func decideComplaintRefund(_ id: String, decision: String, refundID: String?, now: Date) async throws -> StoredComplaint {
        try await withTransaction { session in
            let connection = session.connection
            guard let complaint = try SQLOrderStoreComplaints.fetch(connection, "id = ?", [.text(id)], locking: true) else {
                throw StoreError(.notFound, "no complaint \(id)")
            }
            if let decided = complaint.refundDecision, decided != decision || (refundID != nil && complaint.refundID != refundID) {
                throw StoreError(.conflict, "complaint \(id)'s refund was \(decided) already")
            }
            try connection.query(
                """
                UPDATE complaints SET refund_decision = ?, refund_id = COALESCE(refund_id, ?), version = version + 1, updated_at = ?
                WHERE id = ?
                """, [.text(decision), refundID.map { .text($0) } ?? .null, .integer(SQLStatements.stamp(now)), .text(id)])
            guard let decided = try SQLOrderStoreComplaints.fetch(connection, "id = ?", [.text(id)]) else {
                throw StoreError(.notFound, "no complaint \(id)")
            }
            return decided
        }
    }

    public func overdueComplaints(now: Date, limit: Int) async throws -> [StoredComplaint] {
        let at = SQLStatements.stamp(now)
        return try await withReading { session in
            try session.connection.query(
                """
                SELECT \(ComplaintColumn.list) FROM complaints WHERE state != 'processed' AND (
                    (state = 'pending' AND respond_by < ? AND respond_overdue_at IS NULL) OR (settle_by < ? AND settle_overdue_at IS NULL))
                ORDER BY respond_by, rowid LIMIT ?
                """, [.integer(at), .integer(at), .integer(Int64(limit))]
            ).map(StoredComplaint.init(row:))
        }
    }

    @discardableResult
    public func announceOverdueComplaint(_ id: String, now: Date) async throws -> Bool {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            guard let complaint = try SQLOrderStoreComplaints.fetch(connection, "id = ?", [.text(id)], locking: true),
                complaint.state != .processed
            else { return false }
            let respond = complaint.state == .pending && now > complaint.snapshot.respondBy && complaint.respondOverdueAt == nil
            let settle = now > complaint.snapshot.settleBy && complaint.settleOverdueAt == nil
            guard respond || settle else { return false }
            try connection.query(
                """
                UPDATE complaints SET respond_overdue_at = \(respond ? "?" : "respond_overdue_at"),
                    settle_overdue_at = \(settle ? "?" : "settle_overdue_at"), version = version + 1, updated_at = ? WHERE id = ?
                """, (respond ? [.integer(at)] : []) + (settle ? [.integer(at)] : []) + [.integer(at), .text(id)])
            guard let marked = try SQLOrderStoreComplaints.fetch(connection, "id = ?", [.text(id)]) else { return false }
            let order = try marked.orderID.flatMap { try SQLStatements.fetch(connection, where: "id = ?", .text($0)) }
            try SQLOrderStoreComplaints.enqueue("complaint.overdue", marked, order: order, at: at, connection)
            return true
        }
    }

    public func complaintCounts(merchant: String?, now: Date) async throws -> (open: Int, overdue: Int) {
        let at = SQLStatements.stamp(now)
        return try await withReading { session in
            let rows = try session.connection.query(
                """
                SELECT count(*) AS open, COALESCE(sum(CASE WHEN (state = 'pending' AND respond_by < ?) OR settle_by < ? THEN 1 ELSE 0 END), 0)
                    AS overdue FROM complaints WHERE state != 'processed'\(merchant == nil ? "" : " AND merchant = ?")
                """, [.integer(at), .integer(at)] + (merchant.map { [.text($0)] } ?? []))
            return (Int(try rows.first?.integer("open") ?? 0), Int(try rows.first?.integer("overdue") ?? 0))
        }
    }
}

/// The statements and the migration of ``ComplaintRecords`` on SQL.
enum SQLOrderStoreComplaints {
    /// Migration `020_complaints`.
    static func migration(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE complaints (
            \(dialect.rowidColumn)id TEXT PRIMARY KEY, provider TEXT NOT NULL, provider_complaint_id TEXT NOT NULL,
            provider_merchant_id TEXT NOT NULL, merchant TEXT, order_id TEXT REFERENCES orders(id),
            payment_id TEXT REFERENCES payments(id), out_trade_no TEXT, state TEXT NOT NULL,
            complained_at \(dialect.bigint) NOT NULL, respond_by \(dialect.bigint) NOT NULL, settle_by \(dialect.bigint) NOT NULL,
            snapshot TEXT NOT NULL, refund_decision TEXT, refund_id TEXT, respond_overdue_at \(dialect.bigint),
            settle_overdue_at \(dialect.bigint), version \(dialect.bigint) NOT NULL DEFAULT 1, created_at \(dialect.bigint) NOT NULL,
            updated_at \(dialect.bigint) NOT NULL,
            UNIQUE (provider, provider_complaint_id)
        );
        CREATE INDEX complaints_open ON complaints(state, respond_by, settle_by);
        CREATE INDEX complaints_order ON complaints(order_id);
        CREATE INDEX complaints_merchant ON complaints(merchant, state)
        """
    }

    static func fetch(_ connection: any SQLConnection, _ condition: String, _ values: [SQLValue], locking: Bool = false) throws
        -> StoredComplaint?
    {
        let lock = locking ? connection.lockingClause : ""
        return try connection.query("SELECT \(ComplaintColumn.list) FROM complaints WHERE \(condition)\(lock)", values).first.map(
            StoredComplaint.init(row:))
    }

    /// Queues webhook `type` about `complaint` when it concerns an order of Cashier's (the outbox is per order).
    static func enqueue(_ type: String, _ complaint: StoredComplaint, order: StoredOrder?, at stamp: Int64, _ connection: any SQLConnection)
        throws
    {
        guard let order else { return }
        let id = SQLStatements.eventID()
        let payload = WebhookEventJSON(
            id: id, type: type, created: stamp / 1000, order: order, complaint: complaint.json(now: SQLStatements.date(stamp), full: false))
        try connection.query(
            "INSERT INTO outbox (id, order_id, type, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(id), .text(order.id), .text(type), .text(String(decoding: try JSONEncoder.sorted.encode(payload), as: UTF8.self)),
                .integer(stamp), .integer(stamp),
            ])
    }
}
