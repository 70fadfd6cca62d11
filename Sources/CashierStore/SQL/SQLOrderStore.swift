public import Cashier
public import Foundation

/// An ``OrderStore`` on a SQL database: the statements are written once, here, and shared by
/// ``SQLiteOrderStore`` and ``PostgresOrderStore``, which only say how a transaction and a read
/// run (group commit on one SQLite writer; a pool with retries on PostgreSQL) and how their
/// schema is migrated.
public protocol SQLOrderStore: OrderStore {
    /// Runs `body` as one transaction, all or nothing, durable when this returns.
    @discardableResult
    func withTransaction<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T
    /// Runs `body` in a transaction and calls `done` once with its result, after the commit
    /// (by default from a task that waits for ``withTransaction(_:)``).
    func withTransaction<T: Sendable>(
        _ body: @escaping @Sendable (SQLSession) throws -> T, then done: @escaping @Sendable (Result<T, any Error>) -> Void)
    /// Runs a read outside any write.
    func withReading<T: Sendable>(_ body: @escaping @Sendable (SQLSession) throws -> T) async throws -> T
    /// How many lines of reports from outside that changed nothing each order's log keeps.
    var reportLines: ReportLineLimit { get }
}

extension SQLOrderStore {
    public func withTransaction<T: Sendable>(
        _ body: @escaping @Sendable (SQLSession) throws -> T, then done: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        Task {
            do { done(.success(try await withTransaction(body))) } catch { done(.failure(error)) }
        }
    }
}

extension SQLOrderStore {
    // MARK: Orders

    public func create(_ order: NewOrder, now date: Date) async throws -> StoredOrder {
        try await withTransaction { session in try SQLStatements.insertOrder(order, at: SQLStatements.stamp(date), session.connection) }
    }

    public func order(id: String) async throws -> StoredOrder? {
        try await withReading { try SQLStatements.fetch($0.connection, where: "id = ?", .text(id)) }
    }

    public func versions(ofOrders ids: [String]) async throws -> [String: Int64] {
        guard let first = ids.first else { return [:] }
        // Fixed-size batches (the last padded with a repeat): one statement text, prepared once.
        let size = 100
        let marks = Array(repeating: "?", count: size).joined(separator: ", ")
        return try await withReading { session in
            var found: [String: Int64] = [:]
            for start in stride(from: 0, to: ids.count, by: size) {
                var batch = Array(ids[start..<min(start + size, ids.count)])
                batch += Array(repeating: first, count: size - batch.count)
                for row in try session.connection.query("SELECT id, version FROM orders WHERE id IN (\(marks))", batch.map { .text($0) }) {
                    found[try row.required("id", \.text)] = try row.required("version", \.integer)
                }
            }
            return found
        }
    }

    public func order(outTradeNo: String) async throws -> StoredOrder? {
        try await withReading { try SQLStatements.fetch($0.connection, where: "out_trade_no = ?", .text(outTradeNo)) }
    }

    public func orders(status: PaymentStatus?, merchant: String?, before cursor: String?, limit: Int) async throws -> [StoredOrder] {
        try await withReading { session in
            var conditions: [String] = []
            var parameters: [SQLValue] = []
            if let status {
                conditions.append("status = ?")
                parameters.append(.text(status.rawValue))
            }
            if let merchant {
                conditions.append("merchant = ?")
                parameters.append(.text(merchant))
            }
            if let cursor {
                // Newest first by insertion order (rowid): the page continues strictly after the cursor's order.
                conditions.append("rowid < ?")
                parameters.append(.integer(try SQLCursor(cursor, table: "orders", merchant: merchant, session.connection).rowid))
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            parameters.append(.integer(Int64(limit)))
            return try session.connection.query(
                "SELECT \(SQLStatements.orderColumns) FROM orders \(filter) ORDER BY rowid DESC LIMIT ?", parameters
            ).map(StoredOrder.init(row:))
        }
    }

    public func unpaidOrders(expiringBefore date: Date, limit: Int) async throws -> [StoredOrder] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SQLStatements.orderColumns) FROM orders WHERE status IN ('created', 'pending', 'failed') AND expires_at IS NOT NULL
                    AND expires_at < ? ORDER BY expires_at LIMIT ?
                """,
                [.integer(Int64(date.timeIntervalSince1970 * 1000)), .integer(Int64(limit))]
            ).map(StoredOrder.init(row:))
        }
    }

    // MARK: Events

    public func append(_ record: EventRecord, to orderID: String, now: Date) async throws {
        let limit = reportLines
        try await withTransaction { session in
            try SQLStatements.insertUnchanged(record, orderID: orderID, at: SQLStatements.stamp(now), limit: limit, session.connection)
        }
    }

    public var unloggedReportLines: Int { reportLines.unlogged }

    @discardableResult
    public func announce(_ type: String, dispute: DisputeJSON, eventID: String, record: EventRecord?, to orderID: String, now: Date)
        async throws -> Bool
    {
        let limit = reportLines
        return try await withTransaction { session in
            let connection = session.connection
            let at = SQLStatements.stamp(now)
            guard let order = try SQLStatements.fetch(connection, where: "id = ?", .text(orderID)) else {
                throw StoreError(.notFound, "no order \(orderID)")
            }
            let payment = try SQLLedger.payment(connection, where: "id = ?", [.text(dispute.payment_id)])
            try SQLStatements.enqueue(type: type, order: order, payment: payment, dispute: dispute, id: eventID, at: at, connection)
            let queued = connection.changes == 1
            // The announcing copy's line is the change's; a later copy's is a report that changed nothing.
            if let record {
                if queued {
                    try SQLStatements.insert(record, orderID: orderID, from: nil, to: nil, at: at, connection)
                } else {
                    try SQLStatements.insertUnchanged(record, orderID: orderID, at: at, limit: limit, connection)
                }
            }
            return queued
        }
    }

    public func events(orderID: String) async throws -> [OrderEvent] {
        try await withReading { session in
            try session.connection.query(
                "SELECT \(SQLStatements.eventColumns) FROM events WHERE order_id = ? ORDER BY sequence", [.text(orderID)]
            ).map(OrderEvent.init(row:))
        }
    }

    public func transitions(into statuses: Set<PaymentStatus>, from: Date, until: Date) async throws -> [OrderEvent] {
        guard !statuses.isEmpty else { return [] }
        let names = statuses.map(\.rawValue).sorted()
        return try await withReading { session in
            try session.connection.query(
                SQLStatements.transitions(statuses: names.count),
                names.map { .text($0) } + [.integer(SQLStatements.stamp(from)), .integer(SQLStatements.stamp(until))]
            ).map(OrderEvent.init(row:))
        }
    }

    public func recentEvents(kinds: Set<EventKind>, limit: Int) async throws -> [OrderEvent] {
        guard !kinds.isEmpty else { return [] }
        let names = kinds.map(\.rawValue).sorted()
        return try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SQLStatements.eventColumns) FROM events WHERE kind IN (\(names.map { _ in "?" }.joined(separator: ", ")))
                    ORDER BY sequence DESC LIMIT ?
                """,
                names.map { .text($0) } + [.integer(Int64(limit))]
            ).map(OrderEvent.init(row:))
        }
    }

    // MARK: Idempotency

    public func reserveIdempotencyKey(_ key: String, requestSHA256: String, holder: String, now: Date, lease: TimeInterval) async throws
        -> IdempotencyReservation
    {
        try await withTransaction { session in
            let connection = session.connection
            // Taken in one statement: a new key, or an unfinished one whose holder's lease ran out.
            let taken = try connection.query(
                """
                INSERT INTO idempotency_keys (key, request_sha256, status, body, created_at, holder, locked_until)
                VALUES (?, ?, 0, ?, ?, ?, ?)
                ON CONFLICT (key) DO UPDATE SET holder = excluded.holder, locked_until = excluded.locked_until
                    WHERE idempotency_keys.status = 0 AND idempotency_keys.locked_until < ?
                    AND idempotency_keys.request_sha256 = excluded.request_sha256
                RETURNING holder
                """,
                [
                    .text(key), .text(requestSHA256), .blob([0]), .integer(Int64(now.timeIntervalSince1970)), .text(holder),
                    .integer(SQLStatements.stamp(now.addingTimeInterval(lease))), .integer(SQLStatements.stamp(now)),
                ])
            if try taken.first?.text("holder") == holder { return .reserved }
            guard
                let found = try connection.query(
                    "SELECT \(IdempotencyKeyColumn.list) FROM idempotency_keys WHERE key = ?", [.text(key)]
                ).first
            else { return .inProgress }
            let row = found.fields(IdempotencyKeyColumn.self)
            guard try row.text(.requestSHA256) == requestSHA256 else { return .conflict }
            guard let status = try row.integer(.status), status > 0 else { return .inProgress }
            return .replay(status: Int(status), body: try row.value(.body).read(\.blob, column: "idempotency_keys.body") ?? [])
        }
    }

    public func renewIdempotencyKey(_ key: String, holder: String, until: Date) async throws {
        try await withTransaction { session in
            try session.connection.query(
                "UPDATE idempotency_keys SET locked_until = ? WHERE key = ? AND holder = ? AND status = 0",
                [.integer(SQLStatements.stamp(until)), .text(key), .text(holder)])
        }
    }

    public func completeIdempotencyKey(_ key: String, holder: String, status: Int, body: [UInt8], now: Date) async throws {
        try await withTransaction { session in
            try session.connection.query(
                "UPDATE idempotency_keys SET status = ?, body = ?, holder = NULL, locked_until = NULL WHERE key = ? AND holder = ? AND status = 0",
                [.integer(Int64(status)), .blob(body), .text(key), .text(holder)])
        }
    }

    public func releaseIdempotencyKey(_ key: String, holder: String) async throws {
        try await withTransaction { session in
            try session.connection.query(
                "DELETE FROM idempotency_keys WHERE key = ? AND holder = ? AND status = 0", [.text(key), .text(holder)])
        }
    }

    // MARK: Outbox

    public func dueOutbox(now: Date, limit: Int) async throws -> [OutboxMessage] {
        try await withReading { session in
            try session.connection.query(SQLStatements.dueOutbox, SQLStatements.dueOutboxParameters(now: now, limit: limit))
                .map(OutboxMessage.init(row:))
        }
    }

    public func claimOutbox(now: Date, limit: Int, lease: TimeInterval) async throws -> [OutboxMessage] {
        try await withTransaction { session in
            let connection = session.connection
            let locking = connection.lockingClause.isEmpty ? "" : connection.lockingClause + " SKIP LOCKED"
            let found = try connection.query(SQLStatements.dueOutbox + locking, SQLStatements.dueOutboxParameters(now: now, limit: limit))
                .map(OutboxMessage.init(row:))
            // SQLite has one writer at a time; rows that can be locked may be another claim's, not committed yet.
            let messages = connection.lockingClause.isEmpty ? found : try Self.unbrokenRuns(of: found, connection, now: now)
            // Leased: no other instance takes them until the lease runs out (a crashed one's come back).
            for message in messages {
                try connection.query(
                    "UPDATE outbox SET next_attempt_at = ? WHERE id = ?",
                    [.integer(SQLStatements.stamp(now.addingTimeInterval(lease))), .text(message.id)])
            }
            return messages
        }
    }

    /// Of `messages` (due, locked by this claim, oldest first), each order's that begin at its first
    /// undelivered message and follow on without a gap. Another instance's claim, not committed
    /// yet, locks an order's first message and may stop short of its next: this claim skips the
    /// locked one, still sees it due, and would send the next one beside it. Read again now, the
    /// first one is still undelivered (claimed, or not yet committed), so the next one waits.
    static func unbrokenRuns(of messages: [OutboxMessage], _ connection: any SQLConnection, now: Date) throws -> [OutboxMessage] {
        let orders = Array(Set(messages.map(\.orderID)))
        guard !orders.isEmpty else { return messages }
        let waiting = try connection.query(
            """
            SELECT order_id, id FROM outbox
            WHERE order_id IN (\(orders.map { _ in "?" }.joined(separator: ", "))) AND delivered_at IS NULL AND next_attempt_at < ?
            ORDER BY rowid
            """,
            orders.map { .text($0) } + [.integer(SQLStatements.stamp(now.addingTimeInterval(OutboxMessage.parkedHorizon)))])
        var queues: [String: [String]] = [:]
        for row in waiting { queues[try row.required("order_id", \.text), default: []].append(try row.required("id", \.text)) }
        var next: [String: Int] = [:]
        return messages.filter { message in
            let order = message.orderID
            let queue = queues[order] ?? []
            let index = next[order, default: 0]
            guard index < queue.count, queue[index] == message.id else {
                next[order] = queue.count  // a gap: nothing after it either
                return false
            }
            next[order] = index + 1
            return true
        }
    }

    public func releaseOutbox(_ ids: [String], claimedUntil: Date, now: Date) async throws {
        guard !ids.isEmpty else { return }
        try await withTransaction { session in
            for id in ids {
                try session.connection.query(
                    "UPDATE outbox SET next_attempt_at = ? WHERE id = ? AND delivered_at IS NULL AND next_attempt_at = ?",
                    [.integer(SQLStatements.stamp(now)), .text(id), .integer(SQLStatements.stamp(claimedUntil))])
            }
        }
    }

    public func outbox(orderID: String) async throws -> [OutboxMessage] {
        try await withReading { session in
            try session.connection.query(
                """
                SELECT \(SQLStatements.outboxColumns) FROM outbox
                WHERE order_id = ? ORDER BY rowid
                """,
                [.text(orderID)]
            ).map(OutboxMessage.init(row:))
        }
    }

    public func markDelivered(_ id: String, at date: Date) async throws {
        try await withTransaction { session in
            try session.connection.query(
                "UPDATE outbox SET delivered_at = ?, attempts = attempts + 1 WHERE id = ? AND delivered_at IS NULL",
                [.integer(SQLStatements.stamp(date)), .text(id)])
        }
    }

    public func reschedule(_ id: String, attempts: Int, nextAttemptAt: Date, error: String?) async throws {
        try await withTransaction { session in
            try session.connection.query(
                "UPDATE outbox SET attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ? AND delivered_at IS NULL",
                [.integer(Int64(attempts)), .integer(SQLStatements.stamp(nextAttemptAt)), error.map { .text($0) } ?? .null, .text(id)])
        }
    }

    // MARK: Leases

    public func acquireLease(_ job: String, holder: String, now: Date, duration: TimeInterval) async throws -> Bool {
        try await withTransaction { session in
            let rows = try session.connection.query(
                """
                INSERT INTO job_leases (job, holder, expires_at) VALUES (?, ?, ?)
                ON CONFLICT (job) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
                    WHERE job_leases.expires_at < ? OR job_leases.holder = excluded.holder
                RETURNING holder
                """,
                [
                    .text(job), .text(holder), .integer(SQLStatements.stamp(now.addingTimeInterval(duration))),
                    .integer(SQLStatements.stamp(now)),
                ])
            return try rows.first?.text("holder") == holder
        }
    }

    public func releaseLease(_ job: String, holder: String) async throws {
        try await withTransaction { session in
            try session.connection.query("DELETE FROM job_leases WHERE job = ? AND holder = ?", [.text(job), .text(holder)])
        }
    }
}

extension JSONEncoder {
    /// Sorted keys, no escaped slashes: stored JSON is byte-for-byte repeatable.
    static var sorted: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
