import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// The log's transitions are found by status and time (`transitions(into:from:until:)`), through
/// an index that holds only the lines that moved an order: the lines that move nothing — repeated
/// notifications above all — are most of the log and add no entry to it.
@Suite struct TransitionIndexTests {
    typealias Backend = OrderStoreTests.Backend
    typealias Failure = LedgerStoreTests.Failure

    static let day = DashboardStoreTests.day

    /// Three orders paid an hour apart, each notified again five times; one only started.
    static func history(_ store: any OrderStore) async throws -> [StoredOrder] {
        var paid: [StoredOrder] = []
        for hour in 0..<3 {
            let (order, payment) = try await DashboardStoreTests.paid(
                store, 1000 + Int64(hour), .wechatNative, .wechatV2, at: TimeInterval(hour * 3600))
            for _ in 0..<5 {
                let repeated = try await store.recordPayment(
                    .succeeded(transactionID: "T" + payment.id, amount: payment.amount), of: payment.id,
                    record: .init(kind: .notification), duplicate: .init(kind: .notificationDuplicate),
                    now: day.addingTimeInterval(TimeInterval(hour * 3600 + 60)))
                guard case .unchanged = repeated else { throw Failure("a repeat of a recorded success changes nothing") }
            }
            paid.append(order)
        }
        let started = try await store.create(OrderStoreTests.newOrder(), now: day.addingTimeInterval(1800))
        let start = try await store.beginPayment(NewPayment(orderID: started.id, method: .alipayQR, provider: .alipay), now: day)
        _ = try await store.recordPayment(
            .placed, of: start.payment.id, record: .init(kind: .paymentStarted), now: day.addingTimeInterval(1800))
        return paid
    }

    @Test(arguments: Backend.available)
    func transitionsAreFoundByStatusAndTime(backend: Backend) async throws {
        let store = try await backend.store()
        let paid = try await Self.history(store)
        let all = try await store.transitions(into: [.paid], from: Self.day, until: Self.day.addingTimeInterval(86_400))
        #expect(all.map(\.orderID) == paid.map(\.id))
        #expect(all.allSatisfy { $0.to == .paid && $0.kind == .notification })
        // The window is [from, until): the first hour's payment only, then the second's only.
        let first = try await store.transitions(into: [.paid], from: Self.day, until: Self.day.addingTimeInterval(3600))
        #expect(first.map(\.orderID) == [paid[0].id])
        let second = try await store.transitions(
            into: [.paid], from: Self.day.addingTimeInterval(3600), until: Self.day.addingTimeInterval(3601))
        #expect(second.map(\.orderID) == [paid[1].id])
        // Every order went through pending; the repeats moved nothing and are not transitions.
        let pending = try await store.transitions(into: [.pending], from: Self.day, until: Self.day.addingTimeInterval(86_400))
        #expect(pending.count == 4)
        let both = try await store.transitions(into: [.pending, .paid], from: Self.day, until: Self.day.addingTimeInterval(86_400))
        #expect(both.count == 7 && both.map(\.sequence) == both.map(\.sequence).sorted())
        #expect(try await store.transitions(into: [.refunded], from: Self.day, until: Self.day.addingTimeInterval(86_400)).isEmpty)
        #expect(try await store.events(orderID: paid[0].id).filter { $0.kind == .notificationDuplicate }.count == 5)
    }

    /// A log written before `017_transitions_only` keeps its transitions through it, and its
    /// repeats leave the index.
    @Test(arguments: Backend.available)
    func aLogFromBeforeTheMigrationKeepsItsTransitions(backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let store = try #require(try await backend.open(location, migrate: false) as? any SQLOrderStore)
        let dialect: SQLDialect = store is SQLiteOrderStore ? .sqlite : .postgres
        let before = Array(Migration.all.prefix { $0.name != "017_transitions_only" })
        #expect(before.count == 16)
        try await store.withTransaction { _ = try Migration.apply(before, as: dialect, on: $0.connection) }
        // Today's statements read the two columns `023_profit_sharing` adds to orders and payments:
        // lent to the old schema while its history is written, taken back before it migrates.
        let lent = [("orders", "profit_sharing"), ("payments", "shared_minor")]
        try await store.withTransaction { session in
            for (table, column) in lent {
                try session.connection.query("ALTER TABLE \(table) ADD COLUMN \(column) \(dialect.bigint) NOT NULL DEFAULT 0", [])
            }
        }
        let paid = try await Self.history(store)
        let logged = try await store.events(orderID: paid[2].id)
        #expect(logged.filter { $0.kind == .notificationDuplicate }.count == 5)
        try await store.withTransaction { session in
            for (table, column) in lent { try session.connection.query("ALTER TABLE \(table) DROP COLUMN \(column)", []) }
        }
        #expect(try await store.migrate() == Migration.all.dropFirst(before.count).map(\.name))
        let found = try await store.transitions(into: [.paid], from: Self.day, until: Self.day.addingTimeInterval(86_400))
        #expect(found.map(\.orderID) == paid.map(\.id))
        #expect(try await store.events(orderID: paid[2].id) == logged)
    }

    /// The index holds the transitions only (15 duplicate lines, and the lines that moved
    /// nothing, add no entry), and the statement reads it.
    @Test(arguments: Backend.available)
    func theTransitionIndexHoldsOnlyTransitions(backend: Backend) async throws {
        let store = try #require(try await backend.store() as? any SQLOrderStore)
        _ = try await Self.history(store)
        let counts = try await store.withReading { session in
            let logged = try session.connection.query("SELECT count(*) AS n FROM events", []).first?.integer("n") ?? 0
            let moved =
                try session.connection.query("SELECT count(*) AS n FROM events WHERE to_status IS NOT NULL", []).first?.integer("n") ?? 0
            return (logged, moved)
        }
        #expect(counts.0 == counts.1 + 15 && counts.1 == 7)
        switch backend {
        case .sqlite:
            let (partial, plan) = try await store.withReading { session in
                let indexes = try session.connection.query("PRAGMA index_list(events)", [])
                let partial = try indexes.first { try $0.text("name") == "events_transition" }?.integer("partial")
                let plan = try session.connection.query(
                    "EXPLAIN QUERY PLAN " + SQLStatements.transitions(statuses: 2),
                    [.text("paid"), .text("pending"), .integer(0), .integer(.max)]
                ).compactMap { try $0.text("detail") }
                return (partial, plan)
            }
            #expect(partial == 1)
            #expect(
                plan.contains {
                    $0.hasPrefix("SEARCH events USING INDEX events_transition (to_status=? AND created_at>? AND created_at<?)")
                }, "\(plan)")
        case .postgres:
            let definition = try await store.withReading { session in
                try session.connection.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'events_transition'", []).first?.text(
                    "indexdef")
            }
            #expect(definition?.hasSuffix("WHERE (to_status IS NOT NULL)") == true, "\(definition ?? "no index")")
        }
    }
}
