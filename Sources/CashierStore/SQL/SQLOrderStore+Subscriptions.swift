public import Cashier
import CashierWire
public import Foundation

/// Subscriptions and their invoices: a period's invoice is opened under the subscription's lock
/// and a unique (subscription, period) key, with its order, in one transaction; each attempt is
/// claimed by compare-and-set on the attempt count, so instances racing on it charge it once.
extension SQLOrderStore {
    public func createSubscription(_ subscription: NewSubscription, now: Date) async throws -> StoredSubscription {
        try await withTransaction { session in
            let connection = session.connection
            guard
                let agreement = try SQLOrderStoreRecurring.agreement(
                    connection, "id = ?", [.text(subscription.agreementID)], locking: true)
            else { throw StoreError(.notFound, "no agreement \(subscription.agreementID)") }
            guard !agreement.status.isFinal else {
                throw StoreError(.conflict, "agreement \(agreement.id) is \(agreement.status.rawValue): nothing can be charged under it")
            }
            let at = SQLStatements.stamp(now)
            let id = "sub_" + RandomText.alphanumeric(count: 24)
            try connection.query(
                """
                INSERT INTO subscriptions (id, agreement_id, merchant, currency, amount_minor, description, interval_unit, interval_count,
                    anchor_at, period, next_charge_at, max_attempts, status, version, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 'active', 1, ?, ?)
                """,
                [
                    .text(id), .text(agreement.id), agreement.merchant.map { .text($0) } ?? .null, .text(subscription.amount.currency.code),
                    .integer(subscription.amount.minorUnits), .text(subscription.description), .text(subscription.intervalUnit.rawValue),
                    .integer(Int64(subscription.intervalCount)), .integer(SQLStatements.stamp(subscription.anchor)),
                    .integer(SQLStatements.stamp(subscription.anchor)), .integer(Int64(subscription.maxAttempts)), .integer(at),
                    .integer(at),
                ])
            guard let created = try SQLOrderStoreRecurring.subscription(connection, "id = ?", [.text(id)]) else {
                throw StoreError(.failed, "subscription \(id) vanished after it was inserted")
            }
            try SQLOrderStoreRecurring.enqueue(
                "subscription.created", subject: created.id, .init(subscription: SubscriptionJSON(created)), at: at, connection)
            return created
        }
    }

    public func subscription(id: String) async throws -> StoredSubscription? {
        try await withReading { try SQLOrderStoreRecurring.subscription($0.connection, "id = ?", [.text(id)]) }
    }

    public func subscriptions(agreementID: String?, merchant: String?, limit: Int, offset: Int) async throws -> [StoredSubscription] {
        var conditions: [String] = []
        var values: [SQLValue] = []
        if let agreementID {
            conditions.append("agreement_id = ?")
            values.append(.text(agreementID))
        }
        if let merchant {
            conditions.append("merchant = ?")
            values.append(.text(merchant))
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let given = values
        return try await withReading { session in
            try session.connection.query(
                "SELECT \(SubscriptionColumn.list) FROM subscriptions \(filter) ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
                given + [.integer(Int64(limit)), .integer(Int64(offset))]
            ).map(StoredSubscription.init(row:))
        }
    }

    public func changeSubscription(_ id: String, to status: StoredSubscription.Status, reason: String?, now: Date) async throws
        -> (subscription: StoredSubscription, changed: Bool)
    {
        try await withTransaction { session in
            let connection = session.connection
            guard let current = try SQLOrderStoreRecurring.subscription(connection, "id = ?", [.text(id)], locking: true) else {
                throw StoreError(.notFound, "no subscription \(id)")
            }
            guard current.status != status else { return (current, false) }
            let at = SQLStatements.stamp(now)
            switch status {
            case .canceled:
                return (try SQLOrderStoreRecurring.cancel(current, reason: reason ?? "canceled by the merchant", at: at, connection), true)
            case .paused:
                guard current.status == .active || current.status == .pastDue else {
                    throw StoreError(.conflict, "subscription \(id) is \(current.status.rawValue): only an active or past_due one pauses")
                }
                let paused = try SQLOrderStoreRecurring.setStatus(current, .paused, at: at, connection)
                try SQLOrderStoreRecurring.enqueue(
                    "subscription.paused", subject: id, .init(subscription: SubscriptionJSON(paused)), at: at, connection)
                return (paused, true)
            case .active:
                guard current.status == .paused else {
                    throw StoreError(.conflict, "subscription \(id) is \(current.status.rawValue): only a paused one resumes")
                }
                // Periods that began while it was paused are not charged: it goes on from the next one.
                var next = current.period + 1
                while current.start(ofPeriod: next) < now, next < current.period + 10_000 { next += 1 }
                try connection.query(
                    """
                    UPDATE subscriptions SET status = 'active', period = ?, next_charge_at = ?, version = version + 1, updated_at = ?
                    WHERE id = ? AND version = ?
                    """,
                    [
                        .integer(Int64(next - 1)), .integer(SQLStatements.stamp(current.start(ofPeriod: next))), .integer(at), .text(id),
                        .integer(current.version),
                    ])
                guard connection.changes == 1, let resumed = try SQLOrderStoreRecurring.subscription(connection, "id = ?", [.text(id)])
                else { throw StoreError(.busy, "subscription \(id) changed underneath; retry") }
                try SQLOrderStoreRecurring.enqueue(
                    "subscription.resumed", subject: id, .init(subscription: SubscriptionJSON(resumed)), at: at, connection)
                return (resumed, true)
            case .pastDue:
                throw StoreError(.conflict, "a subscription becomes past_due when a charge fails, not on request")
            }
        }
    }

    public func dueSubscriptions(now: Date, limit: Int) async throws -> [StoredSubscription] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SubscriptionColumn.selectList(from: "s")) FROM subscriptions s JOIN agreements a ON a.id = s.agreement_id
                WHERE s.status = 'active' AND s.next_charge_at <= ? AND a.status = 'active'
                    AND NOT EXISTS (SELECT 1 FROM invoices i WHERE i.subscription_id = s.id AND i.status = 'open')
                ORDER BY s.next_charge_at, s.id LIMIT ?
                """, [.integer(SQLStatements.stamp(now)), .integer(Int64(limit))]
            ).map(StoredSubscription.init(row:))
        }
    }

    public func openInvoice(subscription id: String, order: NewOrder, whileSigning: Bool, now: Date) async throws -> StoredInvoice? {
        do {
            return try await withTransaction { session in
                let connection = session.connection
                guard let subscription = try SQLOrderStoreRecurring.subscription(connection, "id = ?", [.text(id)], locking: true),
                    subscription.status == .active, let due = subscription.nextChargeAt, due <= now || whileSigning,
                    let agreement = try SQLOrderStoreRecurring.agreement(connection, "id = ?", [.text(subscription.agreementID)]),
                    agreement.status == .active || (whileSigning && agreement.status == .pending && subscription.period == 0),
                    try SQLOrderStoreRecurring.invoice(connection, "subscription_id = ? AND status = 'open'", [.text(id)]) == nil
                else { return nil }
                let at = SQLStatements.stamp(now)
                let period = subscription.period + 1
                _ = try SQLStatements.insertOrder(order, at: at, connection)
                let invoiceID = "inv_" + RandomText.alphanumeric(count: 24)
                try connection.query(
                    """
                    INSERT INTO invoices (id, subscription_id, period, order_id, currency, amount_minor, status, attempts, next_attempt_at,
                        period_start, version, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, 'open', 0, ?, ?, 1, ?, ?) ON CONFLICT (subscription_id, period) DO NOTHING
                    """,
                    [
                        .text(invoiceID), .text(id), .integer(Int64(period)), .text(order.id), .text(order.total.currency.code),
                        .integer(order.total.minorUnits), .integer(at), .integer(SQLStatements.stamp(due)), .integer(at), .integer(at),
                    ])
                // The period is someone else's already: nothing of this transaction stays.
                guard connection.changes == 1 else { throw StoreError(.conflict, "period \(period) of \(id) is open already") }
                try connection.query(
                    """
                    UPDATE subscriptions SET period = ?, next_charge_at = ?, version = version + 1, updated_at = ?
                    WHERE id = ? AND version = ?
                    """,
                    [
                        .integer(Int64(period)), .integer(SQLStatements.stamp(subscription.start(ofPeriod: period + 1))), .integer(at),
                        .text(id), .integer(subscription.version),
                    ])
                guard connection.changes == 1 else { throw StoreError(.busy, "subscription \(id) changed underneath; retry") }
                return try SQLOrderStoreRecurring.invoice(connection, "id = ?", [.text(invoiceID)])
            }
        } catch let error as StoreError where error.code == .conflict {
            return nil
        }
    }

    public func claimInvoiceAttempt(_ id: String, seen attempts: Int, lookAgainAt: Date, now: Date) async throws -> StoredInvoice? {
        try await withTransaction { session in
            let connection = session.connection
            try connection.query(
                """
                UPDATE invoices SET attempts = attempts + 1, next_attempt_at = ?, version = version + 1, updated_at = ?
                WHERE id = ? AND attempts = ? AND status = 'open'
                """,
                [.integer(SQLStatements.stamp(lookAgainAt)), .integer(SQLStatements.stamp(now)), .text(id), .integer(Int64(attempts))])
            guard connection.changes == 1 else { return nil }
            return try SQLOrderStoreRecurring.invoice(connection, "id = ?", [.text(id)])
        }
    }

    public func deferInvoice(_ id: String, until at: Date, now: Date) async throws {
        try await withTransaction { session in
            try session.connection.query(
                "UPDATE invoices SET next_attempt_at = ?, updated_at = ? WHERE id = ? AND status = 'open'",
                [.integer(SQLStatements.stamp(at)), .integer(SQLStatements.stamp(now)), .text(id)])
        }
    }

    public func finishInvoice(_ id: String, as outcome: InvoiceOutcome, now: Date) async throws -> (invoice: StoredInvoice, changed: Bool) {
        try await withTransaction { session in
            let connection = session.connection
            guard let current = try SQLOrderStoreRecurring.invoice(connection, "id = ?", [.text(id)], locking: true) else {
                throw StoreError(.notFound, "no invoice \(id)")
            }
            guard !current.status.isFinal else { return (current, false) }
            return (try SQLOrderStoreRecurring.finish(current, as: outcome, at: SQLStatements.stamp(now), connection), true)
        }
    }

    public func dueInvoices(now: Date, limit: Int) async throws -> [StoredInvoice] {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(InvoiceColumn.list) FROM invoices WHERE status = 'open' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
                [.integer(SQLStatements.stamp(now)), .integer(Int64(limit))]
            ).map(StoredInvoice.init(row:))
        }
    }

    public func invoice(id: String) async throws -> StoredInvoice? {
        try await withReading { try SQLOrderStoreRecurring.invoice($0.connection, "id = ?", [.text(id)]) }
    }

    public func invoice(orderID: String) async throws -> StoredInvoice? {
        try await withReading { try SQLOrderStoreRecurring.invoice($0.connection, "order_id = ?", [.text(orderID)]) }
    }

    public func invoices(subscriptionID: String) async throws -> [StoredInvoice] {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(InvoiceColumn.list) FROM invoices WHERE subscription_id = ? ORDER BY period DESC", [.text(subscriptionID)]
            ).map(StoredInvoice.init(row:))
        }
    }
}
