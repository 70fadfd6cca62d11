import Cashier
import Foundation

/// The statements behind payments and refunds, run inside a transaction that has locked the
/// order's row first (every writer of an order's payments and refunds takes that lock, so on
/// PostgreSQL concurrent instances take turns per order, and on SQLite the one writer does).
enum SQLLedger {
    /// A payment attempt's columns (``PaymentColumn``), in the order its rows are read back by name.
    static let paymentColumns = PaymentColumn.list

    /// A refund's columns (``RefundColumn``).
    static let refundColumns = RefundColumn.list

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
        ).map(StoredPayment.init(row:))
    }

    static func payment(_ connection: any SQLConnection, where condition: String, _ values: [SQLValue]) throws -> StoredPayment? {
        try connection.query("SELECT \(paymentColumns) FROM payments WHERE \(condition)", values).first.map(StoredPayment.init(row:))
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
        return (try StoredPayment(row: row), try StoredOrder(row: row, prefix: Self.joinedOrder))
    }

    /// The payment's columns, then the order's, named `order.id`, `order.status`, … apart from the payment's.
    static let joinedColumns =
        PaymentColumn.selectList(from: "p") + ", " + OrderColumn.selectList(from: "o", prefix: joinedOrder)

    /// Put before the order's column names in ``joinedColumns``.
    static let joinedOrder = "order."

    static func refunds(_ connection: any SQLConnection, orderIDs: [String]) throws -> [StoredRefund] {
        guard !orderIDs.isEmpty else { return [] }
        return try connection.query(
            "SELECT \(refundColumns) FROM refunds WHERE order_id IN (\(placeholders(orderIDs.count))) ORDER BY created_at, rowid",
            orderIDs.map { .text($0) }
        ).map(StoredRefund.init(row:))
    }

    static func refund(_ connection: any SQLConnection, where condition: String, _ values: [SQLValue]) throws -> StoredRefund? {
        try connection.query("SELECT \(refundColumns) FROM refunds WHERE \(condition)", values).first.map(StoredRefund.init(row:))
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
