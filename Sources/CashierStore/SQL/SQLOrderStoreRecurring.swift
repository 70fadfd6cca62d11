import Cashier
import CashierWire
import Foundation

/// The statements and the migration of ``RecurringRecords`` on SQL.
enum SQLOrderStoreRecurring {
    /// Migration `024_recurring`: agreements, subscriptions, and one invoice per subscription and
    /// period (the unique key instances racing to open a period meet on).
    static func migration(_ dialect: SQLDialect) -> String {
        """
        CREATE TABLE agreements (
            \(dialect.rowidColumn)id TEXT PRIMARY KEY, merchant TEXT, provider TEXT NOT NULL, method TEXT NOT NULL,
            external_no TEXT NOT NULL, provider_agreement_id TEXT, payer TEXT, plan_id TEXT, description TEXT NOT NULL,
            period_unit TEXT NOT NULL, period_count INTEGER NOT NULL CHECK (period_count > 0), currency TEXT NOT NULL,
            single_limit_minor \(dialect.bigint) NOT NULL CHECK (single_limit_minor > 0), first_charge_at \(dialect.bigint),
            status TEXT NOT NULL, provider_state TEXT, end_reason TEXT, version \(dialect.bigint) NOT NULL DEFAULT 1,
            created_at \(dialect.bigint) NOT NULL, updated_at \(dialect.bigint) NOT NULL, activated_at \(dialect.bigint),
            ended_at \(dialect.bigint),
            UNIQUE (provider, external_no)
        );
        CREATE INDEX agreements_pending ON agreements(status, updated_at);
        CREATE INDEX agreements_created ON agreements(created_at);
        CREATE TABLE subscriptions (
            \(dialect.rowidColumn)id TEXT PRIMARY KEY, agreement_id TEXT NOT NULL REFERENCES agreements(id), merchant TEXT,
            currency TEXT NOT NULL, amount_minor \(dialect.bigint) NOT NULL CHECK (amount_minor > 0), description TEXT NOT NULL,
            interval_unit TEXT NOT NULL, interval_count INTEGER NOT NULL CHECK (interval_count > 0), anchor_at \(dialect.bigint) NOT NULL,
            period INTEGER NOT NULL DEFAULT 0, next_charge_at \(dialect.bigint), max_attempts INTEGER NOT NULL CHECK (max_attempts > 0),
            status TEXT NOT NULL, cancel_reason TEXT, version \(dialect.bigint) NOT NULL DEFAULT 1,
            created_at \(dialect.bigint) NOT NULL, updated_at \(dialect.bigint) NOT NULL, canceled_at \(dialect.bigint)
        );
        CREATE INDEX subscriptions_due ON subscriptions(status, next_charge_at);
        CREATE INDEX subscriptions_agreement ON subscriptions(agreement_id, created_at);
        CREATE INDEX subscriptions_created ON subscriptions(created_at);
        CREATE TABLE invoices (
            \(dialect.rowidColumn)id TEXT PRIMARY KEY, subscription_id TEXT NOT NULL REFERENCES subscriptions(id),
            period INTEGER NOT NULL CHECK (period > 0), order_id TEXT NOT NULL REFERENCES orders(id), currency TEXT NOT NULL,
            amount_minor \(dialect.bigint) NOT NULL CHECK (amount_minor > 0), status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, failures INTEGER NOT NULL DEFAULT 0,
            next_attempt_at \(dialect.bigint), last_error TEXT, period_start \(dialect.bigint) NOT NULL,
            version \(dialect.bigint) NOT NULL DEFAULT 1, created_at \(dialect.bigint) NOT NULL, updated_at \(dialect.bigint) NOT NULL,
            finished_at \(dialect.bigint),
            UNIQUE (subscription_id, period)
        );
        CREATE INDEX invoices_due ON invoices(status, next_attempt_at);
        CREATE INDEX invoices_order ON invoices(order_id)
        """
    }

    static func currency(_ code: String, table: String) throws -> Currency {
        guard let currency = try? Currency(code: code) else { throw StoreError(.failed, "\(table).currency holds \(code.prefix(8))") }
        return currency
    }

    static func decoded<Value: RawRepresentable<String>>(_ text: String, _ column: String) throws -> Value {
        guard let value = Value(rawValue: text) else { throw StoreError(.failed, "\(column) holds \(text.prefix(20))") }
        return value
    }

    static func agreement(_ connection: any SQLConnection, _ condition: String, _ values: [SQLValue], locking: Bool = false) throws
        -> StoredAgreement?
    {
        let lock = locking ? connection.lockingClause : ""
        return try connection.query("SELECT \(AgreementColumn.list) FROM agreements WHERE \(condition)\(lock)", values).first.map(
            StoredAgreement.init(row:))
    }

    static func subscription(_ connection: any SQLConnection, _ condition: String, _ values: [SQLValue], locking: Bool = false) throws
        -> StoredSubscription?
    {
        let lock = locking ? connection.lockingClause : ""
        return try connection.query("SELECT \(SubscriptionColumn.list) FROM subscriptions WHERE \(condition)\(lock)", values).first.map(
            StoredSubscription.init(row:))
    }

    static func invoice(_ connection: any SQLConnection, _ condition: String, _ values: [SQLValue], locking: Bool = false) throws
        -> StoredInvoice?
    {
        let lock = locking ? connection.lockingClause : ""
        return try connection.query("SELECT \(InvoiceColumn.list) FROM invoices WHERE \(condition)\(lock)", values).first.map(
            StoredInvoice.init(row:))
    }

    /// Queues webhook `type` under `subject` (what keeps one subject's webhooks in order: the
    /// agreement's id, the subscription's, an invoice's order).
    static func enqueue(_ type: String, subject: String, _ data: RecurringEventJSON.Data, at stamp: Int64, _ connection: any SQLConnection)
        throws
    {
        let id = SQLStatements.eventID()
        let payload = RecurringEventJSON(id: id, type: type, created: stamp / 1000, data: data)
        try connection.query(
            "INSERT INTO outbox (id, order_id, type, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(id), .text(subject), .text(type), .text(String(decoding: try JSONEncoder.sorted.encode(payload), as: UTF8.self)),
                .integer(stamp), .integer(stamp),
            ])
    }

    /// Cancels `subscription` (not canceled yet) and voids its open invoice, with their webhooks.
    @discardableResult
    static func cancel(_ subscription: StoredSubscription, reason: String, at: Int64, _ connection: any SQLConnection) throws
        -> StoredSubscription
    {
        try connection.query(
            """
            UPDATE subscriptions SET status = 'canceled', cancel_reason = ?, next_charge_at = NULL, canceled_at = ?,
                version = version + 1, updated_at = ?
            WHERE id = ? AND version = ?
            """, [.text(reason), .integer(at), .integer(at), .text(subscription.id), .integer(subscription.version)])
        guard connection.changes == 1, let canceled = try self.subscription(connection, "id = ?", [.text(subscription.id)]) else {
            throw StoreError(.busy, "subscription \(subscription.id) changed underneath; retry")
        }
        if let open = try invoice(connection, "subscription_id = ? AND status = 'open'", [.text(subscription.id)]) {
            try finish(open, as: .void(reason: reason), at: at, connection)
        }
        try enqueue("subscription.canceled", subject: canceled.id, .init(subscription: SubscriptionJSON(canceled)), at: at, connection)
        return canceled
    }

    /// Moves open `invoice` as `outcome` says (its subscription with it), with the webhooks.
    /// - Returns: the invoice after.
    @discardableResult
    static func finish(_ invoice: StoredInvoice, as outcome: InvoiceOutcome, at: Int64, _ connection: any SQLConnection) throws
        -> StoredInvoice
    {
        let status: StoredInvoice.Status
        var error: String? = invoice.lastError
        var next: Int64? = nil
        var failures = invoice.failures
        switch outcome {
        case .paid: status = .paid
        case .attemptFailed(let reason, let retryAt):
            // Each attempt fails once: a second word of the same failure changes nothing.
            guard invoice.failures < invoice.attempts else { return invoice }
            status = retryAt == nil ? .failed : .open
            error = reason
            failures = invoice.attempts
            next = retryAt.map(SQLStatements.stamp)
        case .void(let reason):
            status = .void
            error = error ?? reason
        }
        try connection.query(
            """
            UPDATE invoices SET status = ?, last_error = ?, next_attempt_at = ?, failures = ?, finished_at = ?, version = version + 1,
                updated_at = ?
            WHERE id = ? AND version = ?
            """,
            [
                .text(status.rawValue), error.map { .text($0) } ?? .null, next.map { .integer($0) } ?? .null, .integer(Int64(failures)),
                status.isFinal ? .integer(at) : .null, .integer(at), .text(invoice.id), .integer(invoice.version),
            ])
        guard connection.changes == 1, let moved = try self.invoice(connection, "id = ?", [.text(invoice.id)]) else {
            throw StoreError(.busy, "invoice \(invoice.id) changed underneath; retry")
        }
        guard let subscription = try self.subscription(connection, "id = ?", [.text(invoice.subscriptionID)], locking: true) else {
            throw StoreError(.notFound, "no subscription \(invoice.subscriptionID)")
        }
        switch outcome {
        case .paid:
            var after = subscription
            if subscription.status == .pastDue {
                after = try setStatus(subscription, .active, at: at, connection)
            }
            try enqueue(
                "invoice.paid", subject: moved.orderID, .init(subscription: SubscriptionJSON(after), invoice: InvoiceJSON(moved)), at: at,
                connection)
        case .attemptFailed(let reason, let retryAt):
            var after = subscription
            if retryAt != nil, subscription.status == .active {
                after = try setStatus(subscription, .pastDue, at: at, connection)
                try enqueue("subscription.past_due", subject: after.id, .init(subscription: SubscriptionJSON(after)), at: at, connection)
            }
            try enqueue(
                "invoice.payment_failed", subject: moved.orderID, .init(subscription: SubscriptionJSON(after), invoice: InvoiceJSON(moved)),
                at: at, connection)
            if retryAt == nil, after.status != .canceled {
                try cancel(after, reason: "every attempt of period \(moved.period) failed: \(reason)", at: at, connection)
            }
        case .void: break
        }
        return moved
    }

    /// Sets `subscription`'s status by compare-and-set on its version.
    static func setStatus(
        _ subscription: StoredSubscription, _ status: StoredSubscription.Status, at: Int64, _ connection: any SQLConnection
    )
        throws -> StoredSubscription
    {
        try connection.query(
            "UPDATE subscriptions SET status = ?, version = version + 1, updated_at = ? WHERE id = ? AND version = ?",
            [.text(status.rawValue), .integer(at), .text(subscription.id), .integer(subscription.version)])
        guard connection.changes == 1, let moved = try self.subscription(connection, "id = ?", [.text(subscription.id)]) else {
            throw StoreError(.busy, "subscription \(subscription.id) changed underneath; retry")
        }
        return moved
    }

    /// How far along an agreement's status is: a word about an earlier one never moves it back.
    static func rank(_ status: StoredAgreement.Status) -> Int {
        switch status {
        case .pending: 0
        case .active: 1
        case .terminated, .failed: 2
        }
    }
}
