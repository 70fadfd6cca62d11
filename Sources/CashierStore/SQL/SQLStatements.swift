import Cashier
import Foundation

/// The statements inside ``SQLOrderStore``'s transactions, on any ``SQLConnection``.
enum SQLStatements {
    /// An order's columns (``OrderColumn``), in the order its rows are read back by name.
    static let orderColumns = OrderColumn.list

    /// A log line's columns (``EventColumn``).
    static let eventColumns = EventColumn.list

    /// Migration `017_transitions_only`: `events_transition` holds only the lines that moved an
    /// order, which ``EventLog/transitions(into:from:until:)`` finds by status and time. Most
    /// lines move nothing (a repeated notification, a refused one, a refund's later word), and
    /// each of those used to add an entry: about a tenth of what SQLite spends on a repeat's line
    /// (`scripts/bench/log_line_insert.py`).
    static let transitionsOnly = """
        DROP INDEX events_transition;
        CREATE INDEX events_transition ON events(to_status, created_at) WHERE to_status IS NOT NULL
        """

    /// Migration `018_outbox_waiting`: each order's undelivered webhooks by due time, for the
    /// claim's check that no earlier message of the order is claimed or waiting for a retry
    /// (``dueOutbox``). Without it that check read every message claimed or waiting — all of them
    /// while an endpoint is down — once for each message due.
    static let outboxWaiting = "CREATE INDEX outbox_waiting ON outbox(order_id, next_attempt_at) WHERE delivered_at IS NULL"

    /// Migration `021_scale_indexes`, from `cashier-bench scale` on millions of orders:
    ///
    /// - `orders_status_recent`: the dashboard's orders page by status, newest first by insertion
    ///   (`ORDER BY rowid DESC`), read the status's rows from `orders_status` and sorted them all
    ///   (every paid order); an index on the status alone holds SQLite's rowid in order behind it,
    ///   and PostgreSQL's index names its `rowid` column.
    /// - `refunds_payment`: a refund search by its payment's `out_trade_no` read every refund.
    ///
    /// The outbox's `outbox_due` stays as it is: the claim reads the range of it whose
    /// `delivered_at` is `NULL`, the backlog, however many delivered messages the index also holds
    /// (a partial index on the due time alone led SQLite's planner to walk the table in rowid
    /// order instead, from the oldest delivered message).
    static func scaleIndexes(_ dialect: SQLDialect) -> String {
        """
        CREATE INDEX orders_status_recent ON orders(\(dialect == .postgres ? "status, rowid" : "status"));
        CREATE INDEX refunds_payment ON refunds(payment_id)
        """
    }

    /// The lines that moved an order into one of `statuses` (that many `?`, then the window's
    /// `created_at >= ?` and `< ?`), oldest first: a range of `events_transition` per status.
    static func transitions(statuses: Int) -> String {
        """
        SELECT \(eventColumns) FROM events WHERE to_status IN (\(Array(repeating: "?", count: statuses).joined(separator: ", ")))
            AND created_at >= ? AND created_at < ? ORDER BY sequence
        """
    }

    /// Milliseconds since 1970, as every time column stores it.
    static func stamp(_ date: Date) -> Int64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        // Dates from the API are bounded before they get here; this keeps a wild one from trapping.
        guard milliseconds.isFinite, abs(milliseconds) < 9.0e15 else {
            return milliseconds < 0 ? -9_000_000_000_000_000 : 9_000_000_000_000_000
        }
        return Int64(milliseconds)
    }

    /// A date from a stored stamp.
    static func date(_ stamp: Int64) -> Date { Date(timeIntervalSince1970: Double(stamp) / 1000) }

    /// Durable single-row commits on `connection` — one `INSERT` into `table` per transaction
    /// opened with `begin`, one caller — for `duration`: the benchmarks' baseline, with each
    /// commit's time.
    static func singleRowCommits(_ connection: any SQLConnection, table: String, begin: String, duration: Duration) throws
        -> CommitBaseline
    {
        let clock = ContinuousClock()
        let start = clock.now
        var times: [Duration] = []
        var now = start
        while now - start < duration {
            let began = now
            try connection.execute(begin)
            try connection.query("INSERT INTO \(table) (n) VALUES (?)", [.integer(Int64(times.count))])
            try connection.execute("COMMIT")
            now = clock.now
            times.append(now - began)
        }
        times.sort()
        func percentile(_ fraction: Double) -> Double {
            times.isEmpty ? 0 : times[Int(fraction * Double(times.count - 1))] / .microseconds(1) / 1000
        }
        return CommitBaseline(
            rate: Double(times.count) / ((now - start) / .seconds(1)), p50Milliseconds: percentile(0.5),
            p99Milliseconds: percentile(0.99), commits: times.count)
    }

    static func fetch(_ connection: any SQLConnection, where condition: String, _ value: SQLValue, locking: Bool = false) throws
        -> StoredOrder?
    {
        let lock = locking ? connection.lockingClause : ""
        guard let row = try connection.query("SELECT \(orderColumns) FROM orders WHERE \(condition)\(lock)", [value]).first else {
            return nil
        }
        return try StoredOrder(row: row)
    }

    /// A webhook message's columns (``OutboxColumn``).
    static let outboxColumns = OutboxColumn.list

    /// Undelivered messages due now, in the order they were written — but none behind an earlier
    /// message of its order that is not due (claimed by a sender, or waiting to be tried again):
    /// an order's webhooks leave in order, one sender at a time. A parked message holds nothing
    /// back. Read from the `outbox_due` index's range, and each check from `outbox_waiting`'s, so
    /// its cost is what is due and waiting, not every message ever sent. Its parameters:
    /// ``dueOutboxParameters(now:limit:)``.
    static let dueOutbox = """
        SELECT \(outboxColumns) FROM outbox
        WHERE delivered_at IS NULL AND next_attempt_at <= ?
            AND NOT EXISTS (
                SELECT 1 FROM outbox AS earlier
                WHERE earlier.order_id = outbox.order_id AND earlier.rowid < outbox.rowid AND earlier.delivered_at IS NULL
                    AND earlier.next_attempt_at > ? AND earlier.next_attempt_at < ?)
        ORDER BY rowid LIMIT ?
        """

    static func dueOutboxParameters(now: Date, limit: Int) -> [SQLValue] {
        [
            .integer(stamp(now)), .integer(stamp(now)), .integer(stamp(now.addingTimeInterval(OutboxMessage.parkedHorizon))),
            .integer(Int64(limit)),
        ]
    }

    /// Inserts `order` (status `created`). - Returns: it as stored.
    /// - Throws: `StoreError.conflict` when its id or `out_trade_no` is taken.
    static func insertOrder(_ order: NewOrder, at now: Int64, _ connection: any SQLConnection) throws -> StoredOrder {
        let metadata = String(decoding: try JSONEncoder.sorted.encode(order.metadata), as: UTF8.self)
        do {
            // `profit_sharing` is named only when set: the column's default covers the rest.
            try connection.query(
                """
                INSERT INTO orders (id, out_trade_no, status, currency, total_minor, description, metadata, items, client_secret,
                    created_at, updated_at, expires_at, sheet, return_url, merchant\(order.profitSharing ? ", profit_sharing" : ""))
                VALUES (?, ?, 'created', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?\(order.profitSharing ? ", 1" : ""))
                """,
                [
                    .text(order.id), .text(order.outTradeNo), .text(order.total.currency.code), .integer(order.total.minorUnits),
                    .text(order.description), .text(metadata), .text(order.itemsJSON), .text(order.clientSecret), .integer(now),
                    .integer(now), order.expiresAt.map { .integer(stamp($0)) } ?? .null, order.sheetJSON.map { .text($0) } ?? .null,
                    order.returnURL.map { .text($0) } ?? .null, order.merchant.map { .text($0) } ?? .null,
                ])
        } catch let error as StoreError where error.code == .conflict {
            throw StoreError(.conflict, "an order with id \(order.id) or out_trade_no \(order.outTradeNo) already exists")
        }
        guard let created = try fetch(connection, where: "id = ?", .text(order.id)) else {
            throw StoreError(.failed, "order \(order.id) vanished after it was inserted")
        }
        return created
    }

    /// `evt_` and 32 random lowercase hex digits (128 bits, as the UUID it used to be, without
    /// the file Foundation's `UUID` opens on Linux for each one).
    static func eventID() -> String {
        "evt_" + RandomText.hex(byteCount: 16)
    }

    /// Queues a webhook: the order as it is now, and the payment, refund or dispute it is about.
    /// `id`: an event id the caller derived, to queue it once however often asked (a second ask
    /// changes nothing: see `connection.changes`).
    static func enqueue(
        type: String, order: StoredOrder, payment: StoredPayment? = nil, refund: StoredRefund? = nil, dispute: DisputeJSON? = nil,
        id given: String? = nil, at stamp: Int64, _ connection: any SQLConnection
    ) throws {
        let id = given ?? eventID()
        let payload = WebhookEventJSON(
            id: id, type: type, created: stamp / 1000, order: order, payment: payment, refund: refund, dispute: dispute)
        try connection.query(
            "INSERT INTO outbox (id, order_id, type, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)"
                + (given == nil ? "" : " ON CONFLICT (id) DO NOTHING"),
            [
                .text(id), .text(order.id), .text(type), .text(String(decoding: try JSONEncoder.sorted.encode(payload), as: UTF8.self)),
                .integer(stamp), .integer(stamp),
            ])
    }

    /// Logs `record`, a line that changes nothing, unless it is a report from outside (it carries
    /// the body's hash) and `limit` says the order's log has as many of those as it keeps.
    static func insertUnchanged(
        _ record: EventRecord, orderID: String, at stamp: Int64, limit: ReportLineLimit, _ connection: any SQLConnection
    ) throws {
        if record.bodySHA256 != nil {
            let admitted = try limit.admit(orderID) {
                let counted = try connection.query(
                    "SELECT count(*) AS reports FROM events WHERE order_id = ? AND body_sha256 IS NOT NULL", [.text(orderID)])
                return Int(try counted.first?.integer("reports") ?? 0)
            }
            guard admitted else { return }
        }
        try insert(record, orderID: orderID, from: nil, to: nil, at: stamp, connection)
    }

    static func insert(
        _ record: EventRecord, orderID: String, from: PaymentStatus?, to: PaymentStatus?, at stamp: Int64, _ connection: any SQLConnection
    ) throws {
        try connection.query(
            "INSERT INTO events (order_id, kind, from_status, to_status, detail, body_sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(orderID), .text(record.kind.rawValue), from.map { .text($0.rawValue) } ?? .null,
                to.map { .text($0.rawValue) } ?? .null,
                .text(record.detail), record.bodySHA256.map { .text($0) } ?? .null, .integer(stamp),
            ])
    }
}
