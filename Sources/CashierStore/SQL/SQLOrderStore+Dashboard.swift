import Cashier
public import Foundation

/// What the dashboard and the exports read: the overview's figures, lists of orders, payments
/// and refunds with filters, and webhook deliveries — each an indexed query.
extension SQLOrderStore {
    public func overview(from: Date, until: Date, bucket: TimeInterval) async throws -> LedgerOverview {
        let start = SQLStatements.stamp(from)
        let end = SQLStatements.stamp(until)
        let slice = max(1, Int64(bucket * 1000))
        return try await withReading { session in
            let connection = session.connection
            /// The money in `row`: its `currency` and the sum in `amount` (`nil` for a currency this version does not know).
            func money(_ row: SQLRow, _ amount: String) throws -> Money? {
                guard let currency = try row.text("currency").flatMap({ try? Currency(code: $0) }) else { return nil }
                return Money(minorUnits: try row.integer(amount) ?? 0, currency: currency)
            }
            let range: [SQLValue] = [.integer(start), .integer(end)]
            var totals: [String: (payments: Int, gross: Money, refunds: Int, refunded: Money)] = [:]
            for row in try connection.query(SQLOverview.gross, range) {
                guard let gross = try money(row, "gross_minor") else { continue }
                totals[gross.currency.code] = (
                    Int(try row.integer("payments") ?? 0), gross, 0, Money(minorUnits: 0, currency: gross.currency)
                )
            }
            for row in try connection.query(SQLOverview.refunded, range) {
                guard let refunded = try money(row, "refunded_minor") else { continue }
                var entry = totals[refunded.currency.code] ?? (0, Money(minorUnits: 0, currency: refunded.currency), 0, refunded)
                entry.refunds = Int(try row.integer("refunds") ?? 0)
                entry.refunded = refunded
                totals[refunded.currency.code] = entry
            }
            let orders = try connection.query(SQLOverview.orders, range).first
            let attempts = try connection.query(SQLOverview.attempts, range).first
            let owed = try connection.query(SQLOverview.refundRequired).first
            let buckets = try connection.query(SQLOverview.buckets, [.integer(start), .integer(slice)] + range).compactMap {
                row -> LedgerOverview.Bucket? in
                guard let index = try row.integer("slice"), let gross = try money(row, "gross_minor") else { return nil }
                return .init(
                    start: SQLStatements.date(start + index * slice), payments: Int(try row.integer("payments") ?? 0), gross: gross)
            }
            let methods = try connection.query(SQLOverview.methods, range).compactMap { row -> LedgerOverview.MethodTotal? in
                guard let method = try row.text("method").flatMap(PaymentMethod.init),
                    let provider = try row.text("provider").flatMap(PaymentProvider.init), let gross = try money(row, "gross_minor")
                else { return nil }
                return .init(method: method, provider: provider, payments: Int(try row.integer("payments") ?? 0), gross: gross)
            }
            return LedgerOverview(
                from: from, until: until,
                totals: totals.values.sorted { $0.gross.currency.code < $1.gross.currency.code }.map {
                    .init(currency: $0.gross.currency, payments: $0.payments, gross: $0.gross, refunds: $0.refunds, refunded: $0.refunded)
                },
                orders: Int(try orders?.integer("orders") ?? 0), paymentsStarted: Int(try attempts?.integer("started") ?? 0),
                paymentsSucceeded: Int(try attempts?.integer("succeeded") ?? 0), refundRequired: Int(try owed?.integer("owed") ?? 0),
                buckets: buckets, bucket: bucket, byMethod: methods)
        }
    }

    public func orders(matching query: RecordQuery) async throws -> [StoredOrder] {
        try await withReading { session in
            var filter = try SQLFilter(table: "orders", alias: nil, query: query, session.connection)
            if let search = query.search { filter.add("(id = ? OR out_trade_no = ?)", [.text(search), .text(search)]) }
            return try session.connection.query(
                "SELECT \(SQLStatements.orderColumns) FROM orders \(filter.whereClause) \(filter.orderClause)", filter.parameters
            ).map(StoredOrder.init(row:))
        }
    }

    public func payments(matching query: RecordQuery) async throws -> [StoredPayment] {
        try await withReading { session in
            let filter = try SQLFilter(payments: query, session.connection)
            return try session.connection.query(
                "SELECT \(SQLLedger.paymentColumns) FROM payments \(filter.whereClause) \(filter.orderClause)", filter.parameters
            ).map(StoredPayment.init(row:))
        }
    }

    public func exportPayments(matching query: RecordQuery, _ row: @escaping @Sendable (any StreamedRow) throws -> Void) async throws {
        var query = query
        (query.after, query.search, query.oldestFirst) = (nil, nil, true)
        try await withReading { [query] session in
            let filter = try SQLFilter(payments: query, session.connection)
            let columns = PaymentExportColumn.allCases.map(\.name).joined(separator: ", ")
            try session.connection.stream(
                "SELECT \(columns) FROM payments \(filter.whereClause) ORDER BY created_at ASC, rowid ASC", filter.parameters, row)
        }
    }

    public func refunds(matching query: RecordQuery) async throws -> [StoredRefund] {
        try await withReading { session in
            var filter = try SQLFilter(table: "refunds", alias: "r", query: query, session.connection)
            if let provider = query.provider { filter.add("p.provider = ?", [.text(provider.rawValue)]) }
            if let method = query.method { filter.add("p.method = ?", [.text(method.rawValue)]) }
            if let search = query.search {
                // The payments with that out_trade_no first, then each condition one of the
                // refunds' indexes, so both databases join their lookups (PostgreSQL read every
                // refund when one of the conditions was a subquery on payments: 26 ms a search at a
                // million orders, cashier-bench scale).
                let payments = try session.connection.query(
                    "SELECT id FROM payments WHERE out_trade_no = ?", [.text(search)]
                ).map { SQLValue.text(try $0.required("id", \.text)) }
                let byPayment = payments.isEmpty ? "" : " OR r.payment_id IN (\(SQLLedger.placeholders(payments.count)))"
                filter.add(
                    "(r.id = ? OR r.out_refund_no = ? OR r.provider_refund_id = ? OR r.order_id = ?\(byPayment))",
                    Array(repeating: .text(search), count: 4) + payments)
            }
            let sql = """
                SELECT \(RefundColumn.selectList(from: "r")) FROM refunds r JOIN payments p ON p.id = r.payment_id
                    \(filter.whereClause) \(filter.orderClause)
                """
            return try session.connection.query(sql, filter.parameters).map(StoredRefund.init(row:))
        }
    }

    // MARK: Webhooks

    public func webhooks(matching query: WebhookQuery) async throws -> [OutboxMessage] {
        try await withReading { session in
            var conditions: [String] = []
            var parameters: [SQLValue] = []
            switch query.state {
            case .delivered?: conditions.append("delivered_at IS NOT NULL")
            case .failed?: conditions.append("delivered_at IS NULL AND attempts > 0")
            case .pending?: conditions.append("delivered_at IS NULL AND attempts = 0")
            case nil: break
            }
            if let from = query.from {
                conditions.append("created_at >= ?")
                parameters.append(.integer(SQLStatements.stamp(from)))
            }
            if let until = query.until {
                conditions.append("created_at < ?")
                parameters.append(.integer(SQLStatements.stamp(until)))
            }
            if let order = query.orderID {
                conditions.append("order_id = ?")
                parameters.append(.text(order))
            }
            if let after = query.after {
                conditions.append("rowid < ?")
                parameters.append(.integer(try SQLCursor(after, table: "outbox", merchant: nil, session.connection).rowid))
            }
            parameters.append(.integer(Int64(query.limit)))
            let sql =
                "SELECT \(SQLStatements.outboxColumns) FROM outbox "
                + (conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")) + " ORDER BY rowid DESC LIMIT ?"
            return try session.connection.query(sql, parameters).map(OutboxMessage.init(row:))
        }
    }

    public func resendWebhook(_ id: String, now: Date) async throws -> OutboxMessage? {
        try await withTransaction { session in
            try session.connection.query(
                "UPDATE outbox SET delivered_at = NULL, next_attempt_at = ? WHERE id = ? RETURNING \(SQLStatements.outboxColumns)",
                [.integer(SQLStatements.stamp(now)), .text(id)]
            ).first.map(OutboxMessage.init(row:))
        }
    }

    public func resendFailedWebhooks(from: Date, until: Date, now: Date) async throws -> [OutboxMessage] {
        try await withTransaction { session in
            try session.connection.query(
                """
                UPDATE outbox SET next_attempt_at = ? WHERE delivered_at IS NULL AND attempts > 0 AND created_at >= ? AND created_at < ?
                RETURNING \(SQLStatements.outboxColumns)
                """,
                [.integer(SQLStatements.stamp(now)), .integer(SQLStatements.stamp(from)), .integer(SQLStatements.stamp(until))]
            ).map(OutboxMessage.init(row:))
        }
    }
}

/// The conditions a ``RecordQuery`` puts on one table (creation time, status, cursor), with the
/// order and limit that close the statement. Records come in creation order (`created_at`, then
/// `rowid`), which the table's `created_at` index serves; a page after a cursor starts where the
/// cursor's record was (keyset paging), so every page of an export costs the same.
struct SQLFilter {
    private(set) var conditions: [String] = []
    private(set) var parameters: [SQLValue] = []
    private let prefix: String
    private let query: RecordQuery

    /// - Parameter connection: reads the cursor's position (`query.after`).
    /// - Throws: `StoreError.notFound` when the cursor names no record of the table (of `query.merchant`'s).
    init(table: String, alias: String?, query: RecordQuery, _ connection: any SQLConnection) throws {
        self.query = query
        prefix = alias.map { $0 + "." } ?? ""
        var from = query.from.map(SQLStatements.stamp)
        var until = query.until.map(SQLStatements.stamp)
        if let after = query.after {
            let cursor = try SQLCursor(after, table: table, merchant: query.merchant, connection)
            let (created, rowid) = (cursor.created, cursor.rowid)
            // One bound the index can start from, then the records after the cursor's within that instant.
            if query.oldestFirst {
                from = max(from ?? created, created)
                add("(\(prefix)created_at > ? OR \(prefix)rowid > ?)", [.integer(created), .integer(rowid)])
            } else {
                until = min(until ?? created + 1, created + 1)
                add("(\(prefix)created_at < ? OR \(prefix)rowid < ?)", [.integer(created), .integer(rowid)])
            }
        }
        if let from { add("\(prefix)created_at >= ?", [.integer(from)]) }
        if let until { add("\(prefix)created_at < ?", [.integer(until)]) }
        if let status = query.status { add("\(prefix)status = ?", [.text(status)]) }
        if let merchant = query.merchant {
            if table == "orders" {
                add("\(prefix)merchant = ?", [.text(merchant)])
            } else {
                // Each record's order looked up as the time index is walked: the page stops at its
                // limit. (`order_id IN (SELECT …)` listed every order of the merchant first.)
                add(
                    "EXISTS (SELECT 1 FROM orders AS owner WHERE owner.id = \(alias ?? table).order_id AND owner.merchant = ?)",
                    [.text(merchant)])
            }
        }
    }

    /// The payments' conditions: ``init(table:alias:query:_:)``'s, and the provider, the method,
    /// a refund owed and the search.
    init(payments query: RecordQuery, _ connection: any SQLConnection) throws {
        self = try SQLFilter(table: "payments", alias: nil, query: query, connection)
        if let provider = query.provider { add("provider = ?", [.text(provider.rawValue)]) }
        if let method = query.method { add("method = ?", [.text(method.rawValue)]) }
        if query.refundRequired { add(SQLOverview.owed, []) }
        if let search = query.search {
            add("(id = ? OR out_trade_no = ? OR transaction_id = ? OR order_id = ?)", Array(repeating: .text(search), count: 4))
        }
    }

    mutating func add(_ condition: String, _ values: [SQLValue]) {
        conditions.append(condition)
        parameters += values
    }

    var whereClause: String { conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") }

    /// `ORDER BY created_at, rowid … LIMIT n`, newest or oldest first (the limit is a checked integer).
    var orderClause: String {
        let direction = query.oldestFirst ? "ASC" : "DESC"
        return "ORDER BY \(prefix)created_at \(direction), \(prefix)rowid \(direction) LIMIT \(max(1, min(query.limit, 10_000)))"
    }
}
