import Cashier
import CashierStore
import Foundation
import TestSupport
import Testing

/// The SQLite order store: migrations, compare-and-set transitions with their log and outbox,
/// idempotency keys, durability across reopening.
@Suite struct SQLiteOrderStoreTests {
    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("cashier-store-\(UUID().uuidString).db").path
    }

    static func store(_ path: String = temporaryPath()) async throws -> SQLiteOrderStore {
        let store = try SQLiteOrderStore(path: path)
        try await store.migrate()
        return store
    }

    static func newOrder(_ id: String = "ord_\(UUID().uuidString.prefix(8))", minor: Int64 = 5100) -> NewOrder {
        NewOrder(
            id: id, outTradeNo: "C" + id, total: Money(minorUnits: minor, currency: .cny), description: "2 lattes",
            metadata: ["table": "7"],
            clientSecret: id + "_secret")
    }

    @Test func migrationsApplyOnceInOrder() async throws {
        let path = Self.temporaryPath()
        let store = try SQLiteOrderStore(path: path)
        #expect(
            try await store.migrate() == [
                "001_orders", "002_events", "003_idempotency_keys", "004_outbox", "005_events_by_transition", "006_job_leases",
            ])
        #expect(try await store.migrate().isEmpty)
        #expect(try await SQLiteOrderStore(path: path).migrate().isEmpty)
        let unwritable = #expect(throws: StoreError.self) { try SQLiteOrderStore(path: "/nonexistent-dir/cashier.db") }
        #expect(unwritable?.code == .unavailable && unwritable?.message.contains("/nonexistent-dir/cashier.db") == true)
    }

    @Test func ordersAreCreatedOnceAndSurviveReopening() async throws {
        let path = Self.temporaryPath()
        let store = try await Self.store(path)
        let created = try await store.create(Self.newOrder("ord_1"))
        #expect(created.status == .created && created.total.minorUnits == 5100 && created.metadata == ["table": "7"])
        let again = await #expect(throws: StoreError.self) { try await store.create(Self.newOrder("ord_1")) }
        #expect(again?.code == .conflict)
        _ = try await store.apply(.paymentSucceeded, to: "ord_1", refunded: nil, record: .init(kind: "notification"), now: Date())
        let reopened = try await Self.store(path)
        #expect(try await reopened.order(id: "ord_1")?.status == .paid)
        #expect(try await reopened.order(outTradeNo: "Cord_1")?.id == "ord_1")
        #expect(try await reopened.order(id: "missing") == nil)
    }

    @Test func transitionsMoveOnceWithTheirLogAndOutbox() async throws {
        let store = try await Self.store()
        let order = try await store.create(Self.newOrder())
        guard
            case .applied(let paid, let transition) = try await store.apply(
                .paymentSucceeded, to: order.id, refunded: nil,
                record: .init(kind: "notification", detail: #"{"transaction_id":"42"}"#, bodySHA256: "ab"),
                now: Date())
        else {
            Issue.record("the first success must apply")
            return
        }
        #expect(paid.status == .paid && paid.version == order.version + 1 && transition.from == .created)
        // A duplicate changes nothing.
        guard
            case .unchanged = try await store.apply(
                .paymentSucceeded, to: order.id, refunded: nil, record: .init(kind: "notification"), now: Date())
        else {
            Issue.record("a duplicate must be unchanged")
            return
        }
        // An illegal event changes nothing and says why.
        let illegal = await #expect(throws: StoreError.self) {
            try await store.apply(.paymentStarted, to: order.id, refunded: nil, record: .init(kind: "x"), now: Date())
        }
        #expect(illegal?.code == .illegalTransition)
        // Refunds: partial, then the rest; never more than was paid.
        _ = try await store.apply(
            .partiallyRefunded, to: order.id, refunded: Money(minorUnits: 1000, currency: .cny), record: .init(kind: "refund"), now: Date())
        let over = await #expect(throws: StoreError.self) {
            try await store.apply(
                .refunded, to: order.id, refunded: Money(minorUnits: 5101, currency: .cny), record: .init(kind: "refund"), now: Date())
        }
        #expect(over?.code == .illegalTransition)
        _ = try await store.apply(
            .refunded, to: order.id, refunded: Money(minorUnits: 5100, currency: .cny), record: .init(kind: "refund"), now: Date())
        let final = try #require(try await store.order(id: order.id))
        #expect(final.status == .refunded && final.refunded.minorUnits == 5100)

        let events = try await store.events(orderID: order.id)
        #expect(events.map(\.to) == [.paid, .partiallyRefunded, .refunded])
        #expect(events.first?.bodySHA256 == "ab" && events.first?.detail.contains("transaction_id") == true)
        let outbox = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10)
        #expect(outbox.map(\.type) == ["order.paid", "order.refunded", "order.refunded"])
        #expect(outbox.first?.payload.contains(#""amount_minor":5100"#) == true)
        try await store.markDelivered(outbox[0].id, at: Date())
        try await store.reschedule(outbox[1].id, attempts: 1, nextAttemptAt: Date().addingTimeInterval(60))
        #expect(try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10).map(\.id) == [outbox[2].id])
    }

    @Test func aPaymentForAClosedOrderIsKeptAndFlagged() async throws {
        let store = try await Self.store()
        let order = try await store.create(Self.newOrder())
        _ = try await store.apply(.closed, to: order.id, refunded: nil, record: .init(kind: "close"), now: Date())
        guard
            case .applied(let paid, _) = try await store.apply(
                .paymentSucceeded, to: order.id, refunded: nil, record: .init(kind: "notification"), now: Date())
        else {
            Issue.record("the late payment must be recorded")
            return
        }
        #expect(paid.status == .paid && paid.refundRequired)
        let types = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10).map(\.type)
        #expect(types == ["order.closed", "order.paid", "order.refund_required"])
    }

    @Test func fiftyConcurrentDuplicatesMoveTheOrderOnce() async throws {
        // Two stores on one file, as two processes would have: SQLite's lock and the
        // compare-and-set keep it to one transition.
        let path = Self.temporaryPath()
        let store = try await Self.store(path)
        let other = try await Self.store(path)
        let order = try await store.create(Self.newOrder())
        let applied = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                let store = index.isMultiple(of: 2) ? store : other
                group.addTask {
                    let outcome = try await store.apply(
                        .paymentSucceeded, to: order.id, refunded: nil, record: .init(kind: "notification"), now: Date())
                    if case .applied = outcome { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(applied == 1)
        #expect(try await store.events(orderID: order.id).filter { $0.to != nil }.count == 1)
        #expect(try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 100).count == 1)
    }

    @Test func theEventLogIsAppendOnlyAndKeysAreIdempotent() async throws {
        let path = Self.temporaryPath()
        let store = try await Self.store(path)
        let order = try await store.create(Self.newOrder())
        try await store.append(
            .init(kind: "notification_refused", detail: #"{"reason":"amount"}"#, bodySHA256: "cd"), to: order.id, now: Date())
        #expect(try await store.events(orderID: order.id).map(\.kind) == ["notification_refused"])
        #expect(try await store.order(id: order.id)?.version == order.version)
        // Even with direct access to the file, the log refuses to be rewritten.
        let script = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            for sql in ("UPDATE events SET kind = 'forged'", "DELETE FROM events"):
                try:
                    c.execute(sql); c.commit(); print("allowed")
                except sqlite3.DatabaseError as e:
                    print(e)
            """
        let result = try await runSubprocess("/usr/bin/python3", ["-c", script, path])
        #expect(result.stdout == "the event log is append-only\nthe event log is append-only\n", "\(result.stderr)")

        #expect(try await store.idempotency(key: "k1", requestSHA256: "h1") == .new)
        try await store.saveIdempotentResponse(key: "k1", requestSHA256: "h1", status: 201, body: Array("{}".utf8))
        #expect(try await store.idempotency(key: "k1", requestSHA256: "h1") == .replay(status: 201, body: Array("{}".utf8)))
        #expect(try await store.idempotency(key: "k1", requestSHA256: "h2") == .conflict)
        // The first answer stays: saving again under the key changes nothing.
        try await store.saveIdempotentResponse(key: "k1", requestSHA256: "h1", status: 500, body: [])
        #expect(try await store.idempotency(key: "k1", requestSHA256: "h1") == .replay(status: 201, body: Array("{}".utf8)))
    }

    @Test func transitionsAreFoundByStatusAndTime() async throws {
        let store = try await Self.store()
        _ = try await store.create(Self.newOrder("ord_a"))
        _ = try await store.create(Self.newOrder("ord_b"))
        let day = Date(timeIntervalSince1970: 1_800_000_000)
        try await store.apply(.paymentSucceeded, to: "ord_a", refunded: nil, record: EventRecord(kind: "n"), now: day)
        try await store.apply(
            .paymentSucceeded, to: "ord_b", refunded: nil, record: EventRecord(kind: "n"), now: day.addingTimeInterval(86_400))
        try await store.apply(
            .partiallyRefunded, to: "ord_a", refunded: Money(minorUnits: 100, currency: .cny), record: EventRecord(kind: "refund"),
            now: day.addingTimeInterval(60))
        let paid = try await store.transitions(into: [.paid], from: day, until: day.addingTimeInterval(86_400))
        #expect(paid.map(\.orderID) == ["ord_a"])
        let refunds = try await store.transitions(
            into: [.partiallyRefunded, .refunded], from: day, until: day.addingTimeInterval(86_400))
        #expect(refunds.map(\.kind) == ["refund"])
        #expect(
            try await store.transitions(into: [.paid], from: day.addingTimeInterval(86_400), until: day.addingTimeInterval(2 * 86_400)).map(
                \.orderID) == ["ord_b"])
    }
}
