import Cashier
import CashierWire
import Foundation

/// The statements and the migration of ``SplitRecords`` on SQL.
enum SQLOrderStoreSplits {
    /// Migration `023_profit_sharing`: orders placed for sharing, what a payment's splits hold,
    /// receivers (one per merchant, provider, type and account), splits (one per `out_order_no`)
    /// and returns (one per `out_return_no`).
    static func migration(_ dialect: SQLDialect) -> String {
        """
        ALTER TABLE orders ADD COLUMN profit_sharing INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE payments ADD COLUMN shared_minor \(dialect.bigint) NOT NULL DEFAULT 0;
        CREATE TABLE receivers (
            \(dialect.rowidColumn)id TEXT PRIMARY KEY, merchant TEXT, merchant_key TEXT NOT NULL, provider TEXT NOT NULL,
            type TEXT NOT NULL, account TEXT NOT NULL, relation_type TEXT NOT NULL, custom_relation TEXT, status TEXT NOT NULL,
            created_at \(dialect.bigint) NOT NULL, updated_at \(dialect.bigint) NOT NULL,
            UNIQUE (merchant_key, provider, type, account)
        );
        CREATE TABLE splits (
            \(dialect.rowidColumn)id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), payment_id TEXT NOT NULL,
            merchant TEXT, provider TEXT NOT NULL, out_order_no TEXT NOT NULL UNIQUE, transaction_id TEXT NOT NULL,
            provider_order_id TEXT, shares TEXT NOT NULL, currency TEXT NOT NULL,
            amount_minor \(dialect.bigint) NOT NULL CHECK (amount_minor >= 0), finish INTEGER NOT NULL DEFAULT 0,
            description TEXT NOT NULL, status TEXT NOT NULL, provider_state TEXT, failure_reason TEXT,
            version \(dialect.bigint) NOT NULL DEFAULT 1, created_at \(dialect.bigint) NOT NULL, updated_at \(dialect.bigint) NOT NULL,
            finished_at \(dialect.bigint)
        );
        CREATE INDEX splits_order ON splits(order_id, created_at);
        CREATE INDEX splits_unfinished ON splits(status, updated_at);
        CREATE INDEX splits_finished ON splits(finished_at);
        CREATE INDEX splits_merchant ON splits(merchant, created_at);
        CREATE TABLE split_returns (
            \(dialect.rowidColumn)id TEXT PRIMARY KEY, split_id TEXT NOT NULL REFERENCES splits(id), order_id TEXT NOT NULL,
            out_return_no TEXT NOT NULL UNIQUE, account TEXT NOT NULL, currency TEXT NOT NULL,
            amount_minor \(dialect.bigint) NOT NULL CHECK (amount_minor > 0), description TEXT NOT NULL, status TEXT NOT NULL,
            provider_return_id TEXT, provider_state TEXT, failure_reason TEXT,
            created_at \(dialect.bigint) NOT NULL, updated_at \(dialect.bigint) NOT NULL
        );
        CREATE INDEX split_returns_order ON split_returns(order_id, created_at);
        CREATE INDEX split_returns_pending ON split_returns(status, updated_at);
        CREATE INDEX splits_created ON splits(created_at);
        CREATE INDEX transfers_created ON transfers(created_at);
        CREATE INDEX transfers_finished ON transfers(finished_at)
        """
    }

    static func encode(_ shares: [StoredSplit.Share]) throws -> String {
        String(decoding: try JSONEncoder.sorted.encode(shares), as: UTF8.self)
    }

    static func fetch(_ connection: any SQLConnection, _ condition: String, _ values: [SQLValue]) throws -> StoredSplit? {
        try connection.query("SELECT \(SplitColumn.list) FROM splits WHERE \(condition)", values).first.map(StoredSplit.init(row:))
    }

    static func all(_ connection: any SQLConnection, _ condition: String, _ values: [SQLValue]) throws -> [StoredSplit] {
        try connection.query("SELECT \(SplitColumn.list) FROM splits WHERE \(condition) ORDER BY created_at, id", values).map(
            StoredSplit.init(row:))
    }

    /// Split `id` read again after its order's row is locked: what refunds and other splits of the
    /// order wait on, so a split's shares and its payment's count change together.
    static func locked(_ connection: any SQLConnection, _ id: String) throws -> StoredSplit {
        guard let found = try fetch(connection, "id = ?", [.text(id)]) else { throw StoreError(.notFound, "no split \(id)") }
        _ = try SQLLedger.lockOrder(connection, found.orderID)
        guard let split = try fetch(connection, "id = ?", [.text(id)]) else { throw StoreError(.notFound, "no split \(id)") }
        return split
    }

    static func fetchReturn(_ connection: any SQLConnection, _ condition: String, _ values: [SQLValue]) throws -> StoredSplitReturn? {
        try connection.query("SELECT \(SplitReturnColumn.list) FROM split_returns WHERE \(condition)", values).first.map(
            StoredSplitReturn.init(row:))
    }

    /// Writes `split`'s shares (a return's counts), by compare-and-set on its version.
    @discardableResult
    static func rewrite(_ connection: any SQLConnection, _ split: StoredSplit, shares: [StoredSplit.Share], at: Int64) throws -> StoredSplit
    {
        try connection.query(
            "UPDATE splits SET shares = ?, version = version + 1, updated_at = ? WHERE id = ? AND version = ?",
            [.text(try encode(shares)), .integer(at), .text(split.id), .integer(split.version)])
        guard connection.changes == 1, let rewritten = try fetch(connection, "id = ?", [.text(split.id)]) else {
            throw StoreError(.busy, "split \(split.id) changed underneath; retry")
        }
        return rewritten
    }

    /// Counts again what a payment's splits hold, from the splits themselves (the order is locked).
    /// Only ever lowers the count after a reservation raised it, so the bound with refunds holds.
    static func recount(_ connection: any SQLConnection, paymentID: String, at: Int64) throws {
        let held = try all(connection, "payment_id = ?", [.text(paymentID)]).reduce(Int64(0)) { $0 + $1.heldMinor }
        try connection.query(
            "UPDATE payments SET shared_minor = ?, updated_at = ? WHERE id = ? AND reserved_minor + ? <= amount_minor",
            [.integer(held), .integer(at), .text(paymentID), .integer(held)])
        guard connection.changes == 1 else {
            throw StoreError(.failed, "payment \(paymentID) would hold more in refunds and shares than it took")
        }
    }

    /// How far along a status is: a word about an earlier one never moves a split back.
    static func rank(_ status: StoredSplit.Status) -> Int {
        switch status {
        case .pending: 0
        case .processing: 1
        case .finished, .failed: 2
        }
    }

    /// Queues webhook `type` about `split` under its order, so the order's events leave in order.
    static func enqueue(
        _ type: String, _ split: StoredSplit, splitReturn: StoredSplitReturn? = nil, at stamp: Int64, _ connection: any SQLConnection
    ) throws {
        let id = SQLStatements.eventID()
        let payload = SplitEventJSON(
            id: id, type: type, created: stamp / 1000, data: .init(split: SplitJSON(split), return: splitReturn.map(SplitReturnJSON.init)))
        try connection.query(
            "INSERT INTO outbox (id, order_id, type, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(id), .text(split.orderID), .text(type),
                .text(String(decoding: try JSONEncoder.sorted.encode(payload), as: UTF8.self)),
                .integer(stamp), .integer(stamp),
            ])
    }
}
