import Cashier
import Foundation

/// The statements behind payments and refunds, run inside a transaction that has locked the
/// order's row first (every writer of an order's payments and refunds takes that lock, so on
/// PostgreSQL concurrent instances take turns per order, and on SQLite the one writer does).
enum SQLLedger {
    static let paymentColumns = """
        id, order_id, method, provider, out_trade_no, app_id, merchant_id, payer, transaction_id, wallet_token, currency, amount_minor,
        refunded_minor, reserved_minor, status, refund_required, failure_reason, created_at, updated_at, succeeded_at, capture, contacts
        """

    static let refundColumns = """
        id, order_id, payment_id, out_refund_no, currency, amount_minor, status, provider_refund_id, reason, failure_reason, created_at,
        updated_at, finished_at, confirmed_at, requested_by
        """

    // MARK: Rows

    static func payment(_ row: [SQLValue]) throws -> StoredPayment {
        guard row.count == 22, let id = row[0].text, let orderID = row[1].text, let method = row[2].text.flatMap(PaymentMethod.init),
            let provider = row[3].text.flatMap(PaymentProvider.init), let outTradeNo = row[4].text,
            let currency = row[10].text.flatMap({ try? Currency(code: $0) }), let amount = row[11].integer, let refunded = row[12].integer,
            let reserved = row[13].integer, let status = row[14].text.flatMap(PaymentAttemptStatus.init), let created = row[17].integer,
            let updated = row[18].integer
        else { throw StoreError(.failed, "a payments row does not have the expected columns") }
        var stored = StoredPayment(
            id: id, orderID: orderID, method: method, provider: provider, outTradeNo: outTradeNo, appID: row[5].text,
            merchantID: row[6].text, payer: row[7].text, transactionID: row[8].text, walletToken: row[9].text,
            amount: Money(minorUnits: amount, currency: currency), refunded: Money(minorUnits: refunded, currency: currency),
            reserved: Money(minorUnits: reserved, currency: currency), status: status,
            refundRequired: row[15].integer == 1 && refunded < amount,
            failureReason: row[16].text, createdAt: SQLStatements.date(created), updatedAt: SQLStatements.date(updated),
            succeededAt: row[19].integer.map(SQLStatements.date))
        stored.capture = row[20].text.flatMap(CaptureState.init)
        stored.contacts = row[21].text.flatMap { try? JSONDecoder().decode(PaymentContacts.self, from: Data($0.utf8)) }
        return stored
    }

    static func refund(_ row: [SQLValue]) throws -> StoredRefund {
        guard row.count == 15, let id = row[0].text, let orderID = row[1].text, let paymentID = row[2].text, let number = row[3].text,
            let currency = row[4].text.flatMap({ try? Currency(code: $0) }), let amount = row[5].integer,
            let status = row[6].text.flatMap(RefundStatus.init), let created = row[10].integer, let updated = row[11].integer
        else { throw StoreError(.failed, "a refunds row does not have the expected columns") }
        return StoredRefund(
            id: id, orderID: orderID, paymentID: paymentID, outRefundNo: number, amount: Money(minorUnits: amount, currency: currency),
            status: status, providerRefundID: row[7].text, reason: row[8].text, failureReason: row[9].text,
            createdAt: SQLStatements.date(created), updatedAt: SQLStatements.date(updated),
            finishedAt: row[12].integer.map(SQLStatements.date), confirmedAt: row[13].integer.map(SQLStatements.date),
            requestedBy: row[14].text)
    }

    // MARK: Reads

    /// The order, locked for the rest of the transaction. - Throws: `StoreError.notFound`.
    static func lockOrder(_ connection: any SQLConnection, _ id: String) throws -> StoredOrder {
        guard let order = try SQLStatements.fetch(connection, where: "id = ?", .text(id), locking: true) else {
            throw StoreError(.notFound, "no order \(id)")
        }
        return order
    }

    static func payments(_ connection: any SQLConnection, orderIDs: [String]) throws -> [StoredPayment] {
        guard !orderIDs.isEmpty else { return [] }
        return try connection.query(
            "SELECT \(paymentColumns) FROM payments WHERE order_id IN (\(placeholders(orderIDs.count))) ORDER BY created_at, rowid",
            orderIDs.map { .text($0) }
        ).map(payment)
    }

    static func payment(_ connection: any SQLConnection, where condition: String, _ values: [SQLValue]) throws -> StoredPayment? {
        try connection.query("SELECT \(paymentColumns) FROM payments WHERE \(condition)", values).first.map(payment)
    }

    /// A payment and its order in one statement (read, not locked): what a repeated
    /// notification needs, in one round trip.
    static func paymentAndOrder(_ connection: any SQLConnection, where condition: String, _ values: [SQLValue]) throws -> (
        payment: StoredPayment, order: StoredOrder
    )? {
        guard
            let row = try connection.query(
                "SELECT \(joinedColumns) FROM payments p JOIN orders o ON o.id = p.order_id WHERE \(condition)", values
            ).first
        else { return nil }
        return (try payment(Array(row.prefix(22))), try SQLStatements.order(Array(row.dropFirst(22))))
    }

    /// The payment's columns, then the order's, each qualified by its table's alias.
    static let joinedColumns = qualified(paymentColumns, "p") + ", " + qualified(SQLStatements.orderColumns, "o")

    /// `a, b` as `alias.a, alias.b`.
    static func qualified(_ columns: String, _ alias: String) -> String {
        columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespacesAndNewlines))" }.joined(separator: ", ")
    }

    static func refunds(_ connection: any SQLConnection, orderIDs: [String]) throws -> [StoredRefund] {
        guard !orderIDs.isEmpty else { return [] }
        return try connection.query(
            "SELECT \(refundColumns) FROM refunds WHERE order_id IN (\(placeholders(orderIDs.count))) ORDER BY created_at, rowid",
            orderIDs.map { .text($0) }
        ).map(refund)
    }

    static func refund(_ connection: any SQLConnection, where condition: String, _ values: [SQLValue]) throws -> StoredRefund? {
        try connection.query("SELECT \(refundColumns) FROM refunds WHERE \(condition)", values).first.map(refund)
    }

    static func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }

    // MARK: The order from its records

    /// Derives the locked `order`'s status, refunded total and refund flag from its records,
    /// writes what changed (compare-and-set on its version) and logs `record` — with the
    /// transition when the status moved, which the state machine must allow (a transition is
    /// always logged, under a plain `transition` line when no record is given).
    /// - Returns: the order as it is now, and the transition taken (if any).
    static func settle(
        _ connection: any SQLConnection, _ order: StoredOrder, settledPaymentID: String? = nil, record: EventRecord?, at: Int64
    ) throws -> (order: StoredOrder, transition: PaymentTransition?) {
        let logged = record ?? EventRecord(kind: .transition)
        let payments = try payments(connection, orderIDs: [order.id])
        let settledID = order.settledPaymentID ?? settledPaymentID
        let settled = payments.first { $0.id == settledID }
        let status = PaymentStatus.derived(
            settled: settled.map { .init(amount: $0.amount.minorUnits, refunded: $0.refunded.minorUnits) },
            closed: order.status == .closed, attempts: payments.map(\.status), everStarted: order.status != .created)
        let refundRequired = payments.contains { $0.refundRequired && $0.refunded.minorUnits < $0.amount.minorUnits }
        let refunded = settled?.refunded.minorUnits ?? 0
        var transition: PaymentTransition?
        if status != order.status {
            guard let event = PaymentStateMachine.event(from: order.status, to: status) else {
                throw StoreError(.illegalTransition, "order \(order.id) is \(order.status.rawValue) and cannot become \(status.rawValue)")
            }
            transition = try? PaymentStateMachine.transition(from: order.status, on: event)
        }
        let changed =
            status != order.status || refunded != order.refunded.minorUnits || refundRequired != order.refundRequired
            || settledID != order.settledPaymentID
        guard changed else {
            if let record { try SQLStatements.insert(record, orderID: order.id, from: nil, to: nil, at: at, connection) }
            return (order, nil)
        }
        try connection.query(
            """
            UPDATE orders SET status = ?, refunded_minor = ?, refund_required = ?, settled_payment_id = ?, version = version + 1,
                updated_at = ? WHERE id = ? AND version = ?
            """,
            [
                .text(status.rawValue), .integer(refunded), .integer(refundRequired ? 1 : 0), settledID.map { .text($0) } ?? .null,
                .integer(at), .text(order.id), .integer(order.version),
            ])
        guard connection.changes == 1 else { throw StoreError(.busy, "order \(order.id) changed underneath; retry") }
        if record != nil || transition != nil {
            try SQLStatements.insert(logged, orderID: order.id, from: transition?.from, to: transition?.to, at: at, connection)
        }
        guard let updated = try SQLStatements.fetch(connection, where: "id = ?", .text(order.id)) else {
            throw StoreError(.failed, "order \(order.id) vanished during its transition")
        }
        return (updated, transition)
    }
}
