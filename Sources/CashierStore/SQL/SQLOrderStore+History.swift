import Cashier
import Foundation

/// The bulk path behind ``HistoricalOrder``: a benchmark's history written many thousand rows to
/// a transaction, in multi-row `INSERT`s of one text each (prepared once), as the rows the
/// server's own paths leave — so that what is measured afterwards reads a store shaped as a
/// real one.
extension SQLOrderStore {
    /// Writes `orders` and every row they imply, in one transaction.
    ///
    /// Each order gets its payment (succeeded, or pending when ``HistoricalOrder/paidAt`` is
    /// `nil`), its refunds (succeeded), the event log's lines (payment started, the notification
    /// that paid it, each refund) and its webhooks (`order.paid` delivered or waiting, and a
    /// delivered `refund.succeeded` for each refund).
    /// - Throws: `StoreError.conflict` when an id or number is taken; nothing is written then.
    public func insertHistory(_ orders: [HistoricalOrder]) async throws {
        let rows = SQLHistoryRows(orders)
        try await withTransaction { session in
            let connection = session.connection
            try SQLHistoryRows.insert(rows.orders, into: "orders", SQLHistoryRows.orderColumns, connection)
            try SQLHistoryRows.insert(rows.payments, into: "payments", SQLHistoryRows.paymentColumns, connection)
            try SQLHistoryRows.insert(rows.refunds, into: "refunds", SQLHistoryRows.refundColumns, connection)
            try SQLHistoryRows.insert(rows.events, into: "events", SQLHistoryRows.eventColumns, connection)
            try SQLHistoryRows.insert(rows.outbox, into: "outbox", SQLHistoryRows.outboxColumns, connection)
        }
    }
}

/// ``HistoricalOrder``s as the rows of each table, and the statements that insert them.
struct SQLHistoryRows: Sendable {
    var orders: [[SQLValue]] = []
    var payments: [[SQLValue]] = []
    var refunds: [[SQLValue]] = []
    var events: [[SQLValue]] = []
    var outbox: [[SQLValue]] = []

    static let orderColumns = [
        "id", "out_trade_no", "status", "currency", "total_minor", "refunded_minor", "description", "metadata", "items",
        "client_secret", "created_at", "updated_at", "settled_payment_id", "merchant",
    ]
    static let paymentColumns = [
        "id", "order_id", "method", "provider", "wallet", "out_trade_no", "app_id", "merchant_id", "transaction_id", "currency",
        "amount_minor", "refunded_minor", "reserved_minor", "status", "created_at", "updated_at", "succeeded_at",
    ]
    static let refundColumns = [
        "id", "order_id", "payment_id", "out_refund_no", "currency", "amount_minor", "status", "provider_refund_id", "reason",
        "created_at", "updated_at", "finished_at", "confirmed_at",
    ]
    static let eventColumns = ["order_id", "kind", "from_status", "to_status", "detail", "created_at"]
    static let outboxColumns = ["id", "order_id", "type", "payload", "attempts", "next_attempt_at", "delivered_at", "created_at"]

    init(_ history: [HistoricalOrder]) {
        for order in history { add(order) }
    }

    private mutating func add(_ order: HistoricalOrder) {
        let created = SQLStatements.stamp(order.createdAt)
        let paid = order.paidAt.map(SQLStatements.stamp)
        let refunded = order.refunded
        let status = order.status
        let currency = SQLValue.text(order.total.currency.code)
        let updated = order.refunds.last.map { SQLStatements.stamp($0.at) } ?? paid ?? created
        let payment = order.paymentID
        let amount = order.total.minorUnits
        let items = #"[{"amount":"\#(order.total.decimalString)","label":"Order \#(order.outTradeNo)"}]"#
        orders.append([
            .text(order.id), .text(order.outTradeNo), .text(status.rawValue), currency, .integer(amount), .integer(refunded),
            .text("Order \(order.outTradeNo)"), .text(#"{"channel":"app"}"#), .text(items), .text("cs_" + order.id), .integer(created),
            .integer(updated), paid == nil ? .null : .text(payment), order.merchant.map(SQLValue.text) ?? .null,
        ])
        payments.append([
            .text(payment), .text(order.id), .text(order.method.rawValue), .text(order.provider.rawValue),
            .text(order.method.wallet.rawValue), .text(order.outTradeNo), .text("app_" + order.provider.wallet.rawValue),
            .text("mch_" + (order.merchant ?? "direct")), order.transactionID.map(SQLValue.text) ?? .null, currency, .integer(amount),
            .integer(refunded), .integer(refunded), .text(paid == nil ? "pending" : "succeeded"), .integer(created), .integer(updated),
            paid.map(SQLValue.integer) ?? .null,
        ])
        events.append([
            .text(order.id), .text(EventKind.paymentStarted.rawValue), .text("created"), .text("pending"),
            .text(#"{"method":"\#(order.method.rawValue)","payment_id":"\#(payment)","provider":"\#(order.provider.rawValue)"}"#),
            .integer(created),
        ])
        guard let paid else { return }
        events.append([
            .text(order.id), .text(EventKind.notification.rawValue), .text("pending"), .text("paid"),
            .text(#"{"payment_id":"\#(payment)","transaction_id":"\#(order.transactionID ?? "")"}"#), .integer(paid),
        ])
        outbox.append(webhook("order.paid", id: "evt_paid_" + order.id, order: order, at: paid, delivered: order.webhookDelivered))
        var total: Int64 = 0
        var from = PaymentStatus.paid
        for (index, refund) in order.refunds.enumerated() {
            total += refund.amount
            let at = SQLStatements.stamp(refund.at)
            let id = "re_\(index)_" + order.id
            refunds.append([
                .text(id), .text(order.id), .text(payment), .text("R\(index)" + order.outTradeNo), currency, .integer(refund.amount),
                .text("succeeded"), .text("50\(index)" + (order.transactionID ?? order.outTradeNo)), .text("requested by the payer"),
                .integer(at), .integer(at), .integer(at), .integer(at),
            ])
            let to: PaymentStatus = total >= amount ? .refunded : .partiallyRefunded
            events.append([
                .text(order.id), .text(EventKind.refund.rawValue), .text(from.rawValue), .text(to.rawValue),
                .text(#"{"amount_minor":\#(refund.amount),"refund_id":"\#(id)"}"#), .integer(at),
            ])
            from = to
            outbox.append(webhook("refund.succeeded", id: "evt_\(id)", order: order, at: at, delivered: true))
        }
    }

    /// An outbox row: delivered a second after it was queued, or waiting with no attempt yet.
    private func webhook(_ type: String, id: String, order: HistoricalOrder, at: Int64, delivered: Bool) -> [SQLValue] {
        let payload =
            #"{"created":\#(at / 1000),"data":{"order":{"amount":"\#(order.total.decimalString)","currency":"\#(order.total.currency.code)","#
            + #""id":"\#(order.id)","out_trade_no":"\#(order.outTradeNo)"}},"id":"\#(id)","type":"\#(type)"}"#
        return [
            .text(id), .text(order.id), .text(type), .text(payload), .integer(delivered ? 1 : 0), .integer(at),
            delivered ? .integer(at + 1000) : .null, .integer(at),
        ]
    }

    /// Rows a multi-row `INSERT` carries: full statements share one text, prepared once.
    static let rowsPerStatement = 100

    /// Inserts `rows` (each in `columns`' order) into `table`, ``rowsPerStatement`` a statement.
    static func insert(_ rows: [[SQLValue]], into table: String, _ columns: [String], _ connection: any SQLConnection) throws {
        let row = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        let head = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + rowsPerStatement, rows.count)]
            try connection.query(head + Array(repeating: row, count: chunk.count).joined(separator: ", "), chunk.flatMap { $0 })
            start += chunk.count
        }
    }
}
