public import Cashier
import CashierWire
public import Foundation

/// Transfers out: one row per `out_bill_no` (unique by provider), reserved with an insert that
/// does nothing when another request reserved it first, moved under the row's lock and only by
/// compare-and-set on its version, never out of a final status.
extension SQLOrderStore {
    public func reserveTransfer(_ transfer: NewTransfer, now: Date) async throws -> (transfer: StoredTransfer, reserved: Bool) {
        try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            let id = "tr_" + RandomText.alphanumeric(count: 24)
            try connection.query(
                """
                INSERT INTO transfers (id, merchant, provider, out_bill_no, app_id, openid, currency, amount_minor, remark, scene,
                    user_name, status, version, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 1, ?, ?) ON CONFLICT (provider, out_bill_no) DO NOTHING
                """,
                [
                    .text(id), transfer.merchant.map { .text($0) } ?? .null, .text(transfer.provider), .text(transfer.outBillNo),
                    .text(transfer.appID), .text(transfer.openID), .text(transfer.amount.currency.code),
                    .integer(transfer.amount.minorUnits), .text(transfer.remark), .text(transfer.scene),
                    transfer.userName.map { .text($0) } ?? .null, .integer(at), .integer(at),
                ])
            let reserved = connection.changes == 1
            guard
                let found = try SQLOrderStoreTransfers.fetch(
                    connection, "provider = ? AND out_bill_no = ?", [.text(transfer.provider), .text(transfer.outBillNo)])
            else { throw StoreError(.busy, "transfer \(transfer.outBillNo) changed underneath; retry") }
            return (found, reserved)
        }
    }

    public func moveTransfer(_ id: String, to progress: TransferProgress, now: Date) async throws -> TransferMoved {
        try await withTransaction { session in
            let connection = session.connection
            guard let current = try SQLOrderStoreTransfers.fetch(connection, "id = ?", [.text(id)], locking: true) else {
                throw StoreError(.notFound, "no transfer \(id)")
            }
            // A final status is final; a later word about an earlier state does not move it back.
            guard !current.status.isFinal, SQLOrderStoreTransfers.rank(progress.status) >= SQLOrderStoreTransfers.rank(current.status)
            else { return .unchanged(current) }
            let packageInfo = progress.status == .waitingForPayee ? (progress.packageInfo ?? current.packageInfo) : nil
            guard
                current.status != progress.status || current.providerState != progress.providerState
                    || (progress.providerBillNo != nil && current.providerBillNo != progress.providerBillNo)
                    || current.packageInfo != packageInfo || current.failureReason != progress.failureReason
            else { return .unchanged(current) }
            let at = SQLStatements.stamp(now)
            try connection.query(
                """
                UPDATE transfers SET status = ?, provider_state = ?, provider_bill_no = COALESCE(?, provider_bill_no), package_info = ?,
                    failure_reason = ?, finished_at = ?, version = version + 1, updated_at = ?
                WHERE id = ? AND version = ?
                """,
                [
                    .text(progress.status.rawValue), .text(progress.providerState), progress.providerBillNo.map { .text($0) } ?? .null,
                    packageInfo.map { .text($0) } ?? .null, progress.failureReason.map { .text($0) } ?? .null,
                    progress.status.isFinal ? .integer(at) : .null, .integer(at), .text(id), .integer(current.version),
                ])
            guard connection.changes == 1, let moved = try SQLOrderStoreTransfers.fetch(connection, "id = ?", [.text(id)]) else {
                throw StoreError(.busy, "transfer \(id) changed underneath; retry")
            }
            // Its webhooks, in the same transaction: accepted by the provider (it has the bill), then how it ended.
            if current.providerBillNo == nil, moved.providerBillNo != nil {
                try SQLOrderStoreTransfers.enqueue("transfer.created", moved, at: at, connection)
            }
            if moved.status.isFinal {
                let type =
                    moved.status == .succeeded ? "transfer.succeeded" : moved.status == .failed ? "transfer.failed" : "transfer.cancelled"
                try SQLOrderStoreTransfers.enqueue(type, moved, at: at, connection)
            }
            return .changed(from: current, to: moved)
        }
    }

    public func transfer(id: String) async throws -> StoredTransfer? {
        try await withReading { try SQLOrderStoreTransfers.fetch($0.connection, "id = ?", [.text(id)]) }
    }

    public func transfer(provider: String, outBillNo: String) async throws -> StoredTransfer? {
        try await withReading {
            try SQLOrderStoreTransfers.fetch($0.connection, "provider = ? AND out_bill_no = ?", [.text(provider), .text(outBillNo)])
        }
    }

    public func transfers(merchant: String?, limit: Int, offset: Int) async throws -> [StoredTransfer] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(TransferColumn.list) FROM transfers \(merchant == nil ? "" : "WHERE merchant = ?")
                ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?
                """, (merchant.map { [SQLValue.text($0)] } ?? []) + [.integer(Int64(limit)), .integer(Int64(offset))]
            ).map(StoredTransfer.init(row:))
        }
    }

    public func finishedTransfers(from: Date, until: Date) async throws -> [StoredTransfer] {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(TransferColumn.list) FROM transfers WHERE finished_at >= ? AND finished_at < ? ORDER BY finished_at, id",
                [.integer(SQLStatements.stamp(from)), .integer(SQLStatements.stamp(until))]
            ).map(StoredTransfer.init(row:))
        }
    }

    public func transfers(createdFrom from: Date, until: Date, merchant: String?, limit: Int, offset: Int) async throws -> [StoredTransfer]
    {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(TransferColumn.list) FROM transfers WHERE created_at >= ? AND created_at < ?\(merchant == nil ? "" : " AND merchant = ?")
                ORDER BY created_at, id LIMIT ? OFFSET ?
                """,
                [.integer(SQLStatements.stamp(from)), .integer(SQLStatements.stamp(until))] + (merchant.map { [SQLValue.text($0)] } ?? [])
                    + [.integer(Int64(limit)), .integer(Int64(offset))]
            ).map(StoredTransfer.init(row:))
        }
    }

    public func unfinishedTransfers(before: Date, limit: Int) async throws -> [StoredTransfer] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(TransferColumn.list) FROM transfers
                WHERE status IN ('pending', 'waiting_for_payee', 'processing') AND updated_at < ?
                ORDER BY updated_at, id LIMIT ?
                """, [.integer(SQLStatements.stamp(before)), .integer(Int64(limit))]
            ).map(StoredTransfer.init(row:))
        }
    }
}

/// The statements and the migration of ``TransferRecords`` on SQL.
enum SQLOrderStoreTransfers {
    /// Migration `022_transfers`.
    static func migration(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE transfers (
            \(dialect.rowidColumn)id TEXT PRIMARY KEY, merchant TEXT, provider TEXT NOT NULL, out_bill_no TEXT NOT NULL,
            provider_bill_no TEXT, app_id TEXT NOT NULL, openid TEXT NOT NULL, currency TEXT NOT NULL,
            amount_minor \(dialect.bigint) NOT NULL CHECK (amount_minor > 0), remark TEXT NOT NULL, scene TEXT NOT NULL, user_name TEXT,
            status TEXT NOT NULL, provider_state TEXT, package_info TEXT, failure_reason TEXT,
            version \(dialect.bigint) NOT NULL DEFAULT 1, created_at \(dialect.bigint) NOT NULL, updated_at \(dialect.bigint) NOT NULL,
            finished_at \(dialect.bigint),
            UNIQUE (provider, out_bill_no)
        );
        CREATE INDEX transfers_unfinished ON transfers(status, updated_at);
        CREATE INDEX transfers_merchant ON transfers(merchant, created_at)
        """
    }

    /// Migration `022_transfers`'s change to the outbox: its `order_id` no longer references
    /// `orders`, so a transfer's webhooks queue under the transfer's id (what a subject's webhooks
    /// are kept in order by). SQLite cannot drop a reference: the table is copied, rowids and all.
    static func outboxForTransfers(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .postgres: "ALTER TABLE outbox DROP CONSTRAINT outbox_order_id_fkey"
        case .sqlite:
            """
            CREATE TABLE outbox_022 (
                id TEXT PRIMARY KEY, order_id TEXT NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, delivered_at INTEGER, created_at INTEGER NOT NULL,
                last_error TEXT
            );
            INSERT INTO outbox_022 (rowid, id, order_id, type, payload, attempts, next_attempt_at, delivered_at, created_at, last_error)
                SELECT rowid, id, order_id, type, payload, attempts, next_attempt_at, delivered_at, created_at, last_error FROM outbox;
            DROP TABLE outbox;
            ALTER TABLE outbox_022 RENAME TO outbox;
            CREATE INDEX outbox_due ON outbox(delivered_at, next_attempt_at);
            CREATE INDEX outbox_created ON outbox(created_at);
            \(SQLStatements.outboxWaiting)
            """
        }
    }

    /// Queues webhook `type` about `transfer` under its id (the provider's merchant id is not known here).
    static func enqueue(_ type: String, _ transfer: StoredTransfer, at stamp: Int64, _ connection: any SQLConnection) throws {
        let id = SQLStatements.eventID()
        let payload = TransferEventJSON(
            id: id, type: type, created: stamp / 1000, data: .init(transfer: TransferJSON(transfer, mchID: nil)))
        try connection.query(
            "INSERT INTO outbox (id, order_id, type, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(id), .text(transfer.id), .text(type), .text(String(decoding: try JSONEncoder.sorted.encode(payload), as: UTF8.self)),
                .integer(stamp), .integer(stamp),
            ])
    }

    /// How far along a status is: a word about an earlier one never moves a transfer back.
    static func rank(_ status: StoredTransfer.Status) -> Int {
        switch status {
        case .pending: 0
        case .waitingForPayee: 1
        case .processing: 2
        case .succeeded, .failed, .cancelled: 3
        }
    }

    static func fetch(_ connection: any SQLConnection, _ condition: String, _ values: [SQLValue], locking: Bool = false) throws
        -> StoredTransfer?
    {
        let lock = locking ? connection.lockingClause : ""
        return try connection.query("SELECT \(TransferColumn.list) FROM transfers WHERE \(condition)\(lock)", values).first.map(
            StoredTransfer.init(row:))
    }
}
