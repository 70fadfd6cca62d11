public import Cashier
public import Foundation
import Synchronization

/// The SQLite ``OrderStore``: one file, WAL, `synchronous=FULL` — a committed change (and so an
/// acknowledged notification) is on disk before the call returns. One connection, used by one
/// caller at a time; SQLite's own lock guards the file against other processes.
///
/// ```swift
/// let store = try SQLiteOrderStore(path: "cashier.db")
/// try await store.migrate()
/// ```
public final class SQLiteOrderStore: OrderStore {
    /// Every write, grouped into shared commits on its own thread.
    private let writer: SQLiteWriter
    /// Reads, on a second connection (WAL readers never wait for a commit); `nil` for an
    /// in-memory database, whose reads go through the writer (it has only one connection).
    private let reader: Reader?

    private final class Reader: Sendable {
        let connection: Mutex<SQLiteConnection>
        init(_ connection: consuming sending SQLiteConnection) { self.connection = Mutex(connection) }
    }

    /// The named migrations, applied once each, in this order.
    static let migrations: [(name: String, sql: String)] = [
        (
            "001_orders",
            """
            CREATE TABLE orders (
                id TEXT PRIMARY KEY, out_trade_no TEXT NOT NULL UNIQUE, status TEXT NOT NULL,
                currency TEXT NOT NULL, total_minor INTEGER NOT NULL, refunded_minor INTEGER NOT NULL DEFAULT 0,
                description TEXT NOT NULL, metadata TEXT NOT NULL, items TEXT NOT NULL, client_secret TEXT NOT NULL,
                refund_required INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 1,
                created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, expires_at INTEGER
            );
            CREATE INDEX orders_status ON orders(status, created_at);
            CREATE INDEX orders_expiry ON orders(status, expires_at);
            """
        ),
        (
            "002_events",
            """
            CREATE TABLE events (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL REFERENCES orders(id),
                kind TEXT NOT NULL, from_status TEXT, to_status TEXT, detail TEXT NOT NULL, body_sha256 TEXT,
                created_at INTEGER NOT NULL
            );
            CREATE INDEX events_order ON events(order_id, sequence);
            CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
            CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
            """
        ),
        (
            "003_idempotency_keys",
            """
            CREATE TABLE idempotency_keys (
                key TEXT PRIMARY KEY, request_sha256 TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL,
                created_at INTEGER NOT NULL
            );
            """
        ),
        (
            "004_outbox",
            """
            CREATE TABLE outbox (
                id TEXT PRIMARY KEY, order_id TEXT NOT NULL REFERENCES orders(id), type TEXT NOT NULL, payload TEXT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, delivered_at INTEGER, created_at INTEGER NOT NULL
            );
            CREATE INDEX outbox_due ON outbox(delivered_at, next_attempt_at);
            """
        ),
        (
            "005_events_by_transition",
            "CREATE INDEX events_transition ON events(to_status, created_at);"
        ),
    ]

    /// Opens (or creates) the database file. `:memory:` gives a private in-memory store for tests.
    /// - Throws: `StoreError.unavailable` naming the path.
    public init(path: String) throws {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
        writer = SQLiteWriter(connection: connection, name: "cashier-sqlite-writer")
        if path == ":memory:" || path.isEmpty || path.contains("mode=memory") {
            reader = nil
        } else {
            let reading = try SQLiteConnection(path: path)
            try reading.execute("PRAGMA foreign_keys=ON;")
            reader = Reader(reading)
        }
    }

    /// Commits made so far: each is one fsync, and carries every transaction queued while the
    /// previous one was being written.
    public var commitCount: Int { writer.commitCount }

    /// The baseline for `cashier-bench server`: durable single-row commits per second on this
    /// disk — one `INSERT` per `BEGIN IMMEDIATE … COMMIT`, WAL and `synchronous=FULL` as the
    /// store uses, one caller, no grouping — measured for `duration` in a scratch file at `path`.
    public static func singleRowCommitRate(path: String, duration: Duration) throws -> Double {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE IF NOT EXISTS baseline (n INTEGER)")
        let clock = ContinuousClock()
        let start = clock.now
        var commits = 0
        while clock.now - start < duration {
            try connection.execute("BEGIN IMMEDIATE")
            try connection.query("INSERT INTO baseline (n) VALUES (?)", [.integer(Int64(commits))])
            try connection.execute("COMMIT")
            commits += 1
        }
        return Double(commits) / ((clock.now - start) / .seconds(1))
    }

    /// Runs `body` as one transaction, all or nothing, durable when this returns. Concurrent
    /// transactions share a commit (see ``SQLiteWriter``).
    @discardableResult
    private func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        try await writer.write(body)
    }

    /// Runs a read: on the reader connection, or through the writer for an in-memory database.
    private func read<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) throws -> T) async throws -> T {
        if let reader { return try reader.connection.withLock { try body($0) } }
        return try await writer.write(body)
    }

    @discardableResult
    public func migrate() async throws -> [String] {
        try await transaction { connection in
            try connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)")
            let applied = Set(try connection.query("SELECT name FROM schema_migrations").compactMap { $0.first?.text })
            var now: [String] = []
            for migration in Self.migrations where !applied.contains(migration.name) {
                try connection.execute(migration.sql)
                try connection.query(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    [.text(migration.name), .integer(Int64(Date().timeIntervalSince1970))])
                now.append(migration.name)
            }
            return now
        }
    }

    // MARK: Orders

    private static let orderColumns = """
        id, out_trade_no, status, currency, total_minor, refunded_minor, description, metadata, items, client_secret,
        refund_required, version, created_at, expires_at
        """

    public func create(_ order: NewOrder) async throws -> StoredOrder {
        let metadata = String(decoding: try JSONEncoder.sorted.encode(order.metadata), as: UTF8.self)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return try await transaction { connection in
            do {
                try connection.query(
                    """
                    INSERT INTO orders (id, out_trade_no, status, currency, total_minor, description, metadata, items, client_secret,
                        created_at, updated_at, expires_at)
                    VALUES (?, ?, 'created', ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                    [
                        .text(order.id), .text(order.outTradeNo), .text(order.total.currency.code), .integer(order.total.minorUnits),
                        .text(order.description), .text(metadata), .text(order.itemsJSON), .text(order.clientSecret), .integer(now),
                        .integer(now), order.expiresAt.map { .integer(Int64($0.timeIntervalSince1970 * 1000)) } ?? .null,
                    ])
            } catch let error as StoreError where error.code == .conflict {
                throw StoreError(.conflict, "an order with id \(order.id) or out_trade_no \(order.outTradeNo) already exists")
            }
            return try Self.fetch(connection, where: "id = ?", .text(order.id))!
        }
    }

    public func order(id: String) async throws -> StoredOrder? {
        try await read { try Self.fetch($0, where: "id = ?", .text(id)) }
    }

    public func order(outTradeNo: String) async throws -> StoredOrder? {
        try await read { try Self.fetch($0, where: "out_trade_no = ?", .text(outTradeNo)) }
    }

    public func orders(status: PaymentStatus?, before cursor: String?, limit: Int) async throws -> [StoredOrder] {
        try await read { connection in
            var conditions: [String] = []
            var parameters: [SQLiteConnection.Value] = []
            if let status {
                conditions.append("status = ?")
                parameters.append(.text(status.rawValue))
            }
            if let cursor {
                // Newest first by insertion order (rowid): the page continues strictly after the cursor's order.
                conditions.append("rowid < (SELECT rowid FROM orders WHERE id = ?)")
                parameters.append(.text(cursor))
            }
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            parameters.append(.integer(Int64(limit)))
            return try connection.query(
                "SELECT \(Self.orderColumns) FROM orders \(filter) ORDER BY rowid DESC LIMIT ?", parameters
            ).map(Self.order)
        }
    }

    public func unpaidOrders(expiringBefore date: Date, limit: Int) async throws -> [StoredOrder] {
        try await read { connection in
            try connection.query(
                """
                SELECT \(Self.orderColumns) FROM orders WHERE status IN ('created', 'pending', 'failed') AND expires_at IS NOT NULL
                    AND expires_at < ? ORDER BY expires_at LIMIT ?
                """,
                [.integer(Int64(date.timeIntervalSince1970 * 1000)), .integer(Int64(limit))]
            ).map(Self.order)
        }
    }

    private static func fetch(_ connection: SQLiteConnection, where condition: String, _ value: SQLiteConnection.Value) throws
        -> StoredOrder?
    {
        guard let row = try connection.query("SELECT \(orderColumns) FROM orders WHERE \(condition)", [value]).first else { return nil }
        return try order(row)
    }

    private static func order(_ row: [SQLiteConnection.Value]) throws -> StoredOrder {
        guard row.count == 14, let id = row[0].text, let outTradeNo = row[1].text, let status = row[2].text.flatMap(PaymentStatus.init),
            let code = row[3].text, let currency = try? Currency(code: code), let total = row[4].integer, let refunded = row[5].integer,
            let version = row[11].integer, let created = row[12].integer
        else { throw StoreError(.failed, "an orders row does not have the expected columns") }
        let metadataText = row[7].text ?? "{}"
        let metadata =
            metadataText == "{}" ? [:] : (try? JSONDecoder().decode([String: String].self, from: Data(metadataText.utf8))) ?? [:]
        return StoredOrder(
            id: id, outTradeNo: outTradeNo, status: status, total: Money(minorUnits: total, currency: currency),
            refunded: Money(minorUnits: refunded, currency: currency), description: row[6].text ?? "", metadata: metadata,
            itemsJSON: row[8].text ?? "[]", clientSecret: row[9].text ?? "", refundRequired: row[10].integer == 1, version: version,
            createdAt: Date(timeIntervalSince1970: Double(created) / 1000),
            expiresAt: row[13].integer.map { Date(timeIntervalSince1970: Double($0) / 1000) })
    }

    // MARK: Transitions

    public func apply(
        _ event: PaymentEvent, to orderID: String, refunded: Money?, record: EventRecord, duplicate: EventRecord?, now: Date
    ) async throws -> TransitionOutcome {
        try await transaction { connection in
            guard let current = try Self.fetch(connection, where: "id = ?", .text(orderID)) else {
                throw StoreError(.notFound, "no order \(orderID)")
            }
            // A success or refund that already happened is a duplicate, not an error.
            let isDuplicate =
                (event == .paymentSucceeded && current.status.hasReceivedMoney)
                || (refunded.map { (event == .refunded || event == .partiallyRefunded) && $0.minorUnits <= current.refunded.minorUnits }
                    ?? false)
            if isDuplicate {
                if let duplicate {
                    try Self.insert(
                        duplicate, orderID: orderID, from: nil, to: nil, at: Int64(now.timeIntervalSince1970 * 1000), connection)
                }
                return .unchanged(current)
            }
            let transition: PaymentTransition
            do {
                transition = try PaymentStateMachine.transition(from: current.status, on: event)
            } catch {
                throw StoreError(.illegalTransition, "order \(orderID) is \(current.status.rawValue) and cannot take \(event.rawValue)")
            }
            if let refunded, refunded.minorUnits > current.total.minorUnits {
                throw StoreError(.illegalTransition, "refunds of \(refunded) would exceed the \(current.total) paid for order \(orderID)")
            }
            let stamp = Int64(now.timeIntervalSince1970 * 1000)
            // Compare-and-set: only the version read above may be replaced.
            try connection.query(
                """
                UPDATE orders SET status = ?, refunded_minor = ?, refund_required = refund_required OR ?, version = version + 1,
                    updated_at = ? WHERE id = ? AND version = ?
                """,
                [
                    .text(transition.to.rawValue), .integer(refunded?.minorUnits ?? current.refunded.minorUnits),
                    .integer(transition.requiresRefund ? 1 : 0), .integer(stamp), .text(orderID), .integer(current.version),
                ])
            guard connection.changes == 1 else { throw StoreError(.busy, "order \(orderID) changed underneath; retry") }
            try Self.insert(record, orderID: orderID, from: current.status, to: transition.to, at: stamp, connection)
            let updated = try Self.fetch(connection, where: "id = ?", .text(orderID))!
            for type in Self.webhookTypes(for: transition) {
                try Self.enqueue(type: type, order: updated, at: stamp, connection)
            }
            return .applied(updated, transition)
        }
    }

    static func webhookTypes(for transition: PaymentTransition) -> [String] {
        var types: [String] = []
        switch transition.to {
        case .paid: types.append("order.paid")
        case .refunded, .partiallyRefunded: types.append("order.refunded")
        case .closed: types.append("order.closed")
        default: break
        }
        if transition.requiresRefund { types.append("order.refund_required") }
        return types
    }

    private static func enqueue(type: String, order: StoredOrder, at stamp: Int64, _ connection: SQLiteConnection) throws {
        let id = "evt_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        struct Payload: Encodable {
            struct Data: Encodable {
                let order_id: String
                let out_trade_no: String
                let status: String
                let amount: Money
                let amount_refunded: Money
                let refund_required: Bool
            }
            let id: String
            let type: String
            let created: Int64
            let data: Data
        }
        let payload = Payload(
            id: id, type: type, created: stamp / 1000,
            data: .init(
                order_id: order.id, out_trade_no: order.outTradeNo, status: order.status.rawValue, amount: order.total,
                amount_refunded: order.refunded, refund_required: order.refundRequired))
        try connection.query(
            "INSERT INTO outbox (id, order_id, type, payload, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            [
                .text(id), .text(order.id), .text(type), .text(String(decoding: try JSONEncoder.sorted.encode(payload), as: UTF8.self)),
                .integer(stamp), .integer(stamp),
            ])
    }

    // MARK: Events

    public func append(_ record: EventRecord, to orderID: String, now: Date) async throws {
        try await transaction { connection in
            try Self.insert(record, orderID: orderID, from: nil, to: nil, at: Int64(now.timeIntervalSince1970 * 1000), connection)
        }
    }

    private static func insert(
        _ record: EventRecord, orderID: String, from: PaymentStatus?, to: PaymentStatus?, at stamp: Int64, _ connection: SQLiteConnection
    ) throws {
        try connection.query(
            "INSERT INTO events (order_id, kind, from_status, to_status, detail, body_sha256, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(orderID), .text(record.kind), from.map { .text($0.rawValue) } ?? .null, to.map { .text($0.rawValue) } ?? .null,
                .text(record.detail), record.bodySHA256.map { .text($0) } ?? .null, .integer(stamp),
            ])
    }

    private static let eventColumns = "sequence, order_id, kind, from_status, to_status, detail, body_sha256, created_at"

    private static func event(_ row: [SQLiteConnection.Value]) -> OrderEvent {
        OrderEvent(
            sequence: row[0].integer ?? 0, orderID: row[1].text ?? "", kind: row[2].text ?? "",
            from: row[3].text.flatMap(PaymentStatus.init), to: row[4].text.flatMap(PaymentStatus.init), detail: row[5].text ?? "{}",
            bodySHA256: row[6].text, createdAt: Date(timeIntervalSince1970: Double(row[7].integer ?? 0) / 1000))
    }

    public func events(orderID: String) async throws -> [OrderEvent] {
        try await read { connection in
            try connection.query("SELECT \(Self.eventColumns) FROM events WHERE order_id = ? ORDER BY sequence", [.text(orderID)])
                .map(Self.event)
        }
    }

    public func transitions(into statuses: Set<PaymentStatus>, from: Date, until: Date) async throws -> [OrderEvent] {
        guard !statuses.isEmpty else { return [] }
        let names = statuses.map(\.rawValue).sorted()
        return try await read { connection in
            try connection.query(
                """
                SELECT \(Self.eventColumns) FROM events WHERE to_status IN (\(names.map { _ in "?" }.joined(separator: ", ")))
                    AND created_at >= ? AND created_at < ? ORDER BY sequence
                """,
                names.map { .text($0) } + [
                    .integer(Int64(from.timeIntervalSince1970 * 1000)), .integer(Int64(until.timeIntervalSince1970 * 1000)),
                ]
            ).map(Self.event)
        }
    }

    // MARK: Idempotency

    public func idempotency(key: String, requestSHA256: String) async throws -> IdempotencyLookup {
        try await read { connection in
            guard
                let row = try connection.query("SELECT request_sha256, status, body FROM idempotency_keys WHERE key = ?", [.text(key)])
                    .first
            else { return .new }
            guard row[0].text == requestSHA256 else { return .conflict }
            return .replay(status: Int(row[1].integer ?? 200), body: row[2].blob ?? [])
        }
    }

    public func saveIdempotentResponse(key: String, requestSHA256: String, status: Int, body: [UInt8]) async throws {
        try await transaction { connection in
            try connection.query(
                "INSERT OR IGNORE INTO idempotency_keys (key, request_sha256, status, body, created_at) VALUES (?, ?, ?, ?, ?)",
                [.text(key), .text(requestSHA256), .integer(Int64(status)), .blob(body), .integer(Int64(Date().timeIntervalSince1970))])
        }
    }

    // MARK: Outbox

    public func dueOutbox(now: Date, limit: Int) async throws -> [OutboxMessage] {
        try await read { connection in
            try connection.query(
                """
                SELECT id, order_id, type, payload, attempts, next_attempt_at, delivered_at FROM outbox
                WHERE delivered_at IS NULL AND next_attempt_at <= ? ORDER BY created_at, rowid LIMIT ?
                """,
                [.integer(Int64(now.timeIntervalSince1970 * 1000)), .integer(Int64(limit))]
            ).map { row in
                OutboxMessage(
                    id: row[0].text ?? "", orderID: row[1].text ?? "", type: row[2].text ?? "", payload: row[3].text ?? "",
                    attempts: Int(row[4].integer ?? 0), nextAttemptAt: Date(timeIntervalSince1970: Double(row[5].integer ?? 0) / 1000),
                    deliveredAt: row[6].integer.map { Date(timeIntervalSince1970: Double($0) / 1000) })
            }
        }
    }

    public func markDelivered(_ id: String, at date: Date) async throws {
        try await transaction { connection in
            try connection.query(
                "UPDATE outbox SET delivered_at = ?, attempts = attempts + 1 WHERE id = ? AND delivered_at IS NULL",
                [.integer(Int64(date.timeIntervalSince1970 * 1000)), .text(id)])
        }
    }

    public func reschedule(_ id: String, attempts: Int, nextAttemptAt: Date) async throws {
        try await transaction { connection in
            try connection.query(
                "UPDATE outbox SET attempts = ?, next_attempt_at = ? WHERE id = ? AND delivered_at IS NULL",
                [.integer(Int64(attempts)), .integer(Int64(nextAttemptAt.timeIntervalSince1970 * 1000)), .text(id)])
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
