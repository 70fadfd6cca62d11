import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// What the store writes that outlives a release, frozen byte for byte: each dialect's
/// migrations as rendered (a database records them by name and never runs one twice, so a
/// changed text would leave old and new databases apart), the schema a fresh database ends up
/// with, and the webhook payloads the outbox queues (receivers verify their signatures over
/// these bytes). `CASHIER_UPDATE_GOLDENS=1` writes them again, on purpose only.
@Suite struct GoldenTests {
    /// Every migration, `-- name` then its SQL, as the dialect runs it.
    static func rendered(_ migrations: [(name: String, sql: String)]) -> String {
        migrations.map { "-- \($0.name)\n\($0.sql)\n" }.joined(separator: "\n")
    }

    @Test func migrationsRenderAsFrozen() {
        #expect(Golden.mismatch(Self.rendered(Migration.all.rendered(for: .sqlite)), "migrations.sqlite.sql") == nil)
        #expect(Golden.mismatch(Self.rendered(Migration.all.rendered(for: .postgres)), "migrations.postgres.sql") == nil)
    }

    @Test func aFreshSQLiteDatabaseHasTheFrozenSchema() async throws {
        let path = Scratch.url("golden-\(UUID().uuidString).db").path
        let store = try SQLiteOrderStore(path: path)
        _ = try await store.migrate()
        await store.close()
        let dump = try await runSubprocess(
            "/usr/bin/sqlite3",
            [
                path,
                "SELECT type || ' ' || name || ' ON ' || tbl_name || char(10) || ifnull(sql, '') FROM sqlite_master ORDER BY type, name",
            ])
        try #require(dump.status == 0, "\(dump.stderr)")
        #expect(Golden.mismatch(dump.stdout, "schema.sqlite.sql") == nil)
    }

    @Test(.enabled(if: TestPostgres.url != nil, "\(TestPostgres.skipReason)"))
    func aFreshPostgreSQLDatabaseHasTheFrozenSchema() async throws {
        let url = try await TestPostgres.freshDatabase()
        let store = try await PostgresOrderStore(url: url, poolSize: 1)
        _ = try await store.migrate()
        await store.close()
        let dump = try await runSubprocess("/usr/bin/pg_dump", ["--schema-only", "--no-owner", "--no-privileges", url])
        try #require(dump.status == 0, "\(dump.stderr)")
        // Without what names the server's version, the dump's session settings or its random \restrict key.
        let schema = dump.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            .filter {
                !$0.hasPrefix("--") && !$0.hasPrefix("SET ") && !$0.hasPrefix("SELECT pg_catalog.set_config")
                    && !$0.hasPrefix("\\restrict") && !$0.hasPrefix("\\unrestrict") && !$0.isEmpty
            }
            .joined(separator: "\n")
        #expect(Golden.mismatch(schema, "schema.postgres.sql") == nil)
    }

    /// Every webhook type the outbox queues, as the store encodes it: ids made here stand as given;
    /// the random ones (`evt_…`, refunds' `re_…`) are named by their order of appearance.
    @Test func webhookPayloadsAreFrozen() async throws {
        let store = try SQLiteOrderStore(path: ":memory:")
        _ = try await store.migrate()
        let now = Date(timeIntervalSince1970: 1_796_113_830)
        func order(_ id: String, _ minor: Int64) async throws -> StoredOrder {
            try await store.create(
                NewOrder(
                    id: id, outTradeNo: "C" + id, total: Money(minorUnits: minor, currency: .cny), description: "Latte",
                    metadata: ["cart": "42"], clientSecret: "secret_" + id, merchant: id == "ord_golden_b" ? "north" : nil), now: now)
        }
        func begin(_ order: StoredOrder, payment: String, method: PaymentMethod = .wechatNative, provider: PaymentProvider = .wechatV2)
            async throws
        {
            _ = try await store.beginPayment(
                NewPayment(id: payment, orderID: order.id, method: method, provider: provider, appID: "wx_app", merchantID: "1900000109"),
                now: now)
        }
        func succeeded(_ order: StoredOrder, payment: String) async throws {
            _ = try await store.recordPayment(
                .succeeded(transactionID: "420000" + payment, amount: order.total), of: payment, record: EventRecord(kind: .notification),
                now: now)
        }
        func paid(_ order: StoredOrder, payment: String) async throws {
            try await begin(order, payment: payment)
            try await succeeded(order, payment: payment)
        }
        // Paid, refunded in part, then in full; a refund refused.
        let a = try await order("ord_golden_a", 5100)
        try await paid(a, payment: "pay_golden_a")
        let partial = try await store.reserveRefund(
            NewRefund(
                id: "re_golden_a1", orderID: a.id, amount: Money(minorUnits: 1000, currency: .cny), outRefundNo: "Rgolden_a1",
                reason: "cold", requestedBy: "api"), now: now)
        _ = try await store.finishRefund(partial.refund.id, outcome: .succeeded(providerRefundID: "503000a1"), now: now)
        let refused = try await store.reserveRefund(
            NewRefund(id: "re_golden_a2", orderID: a.id, amount: Money(minorUnits: 500, currency: .cny), outRefundNo: "Rgolden_a2"),
            now: now)
        _ = try await store.finishRefund(refused.refund.id, outcome: .failed(reason: "NOTENOUGH"), now: now)
        let rest = try await store.reserveRefund(NewRefund(id: "re_golden_a3", orderID: a.id, outRefundNo: "Rgolden_a3"), now: now)
        _ = try await store.finishRefund(rest.refund.id, outcome: .confirmed(providerRefundID: "503000a3"), now: now)
        // Paid twice (a second wallet): the second is to be refunded; then disputed.
        let b = try await order("ord_golden_b", 1275)
        try await begin(b, payment: "pay_golden_b1")
        try await begin(b, payment: "pay_golden_b2", method: .alipayApp, provider: .alipay)
        try await succeeded(b, payment: "pay_golden_b1")
        try await succeeded(b, payment: "pay_golden_b2")
        try await store.announce(
            "order.disputed",
            dispute: DisputeJSON(
                id: "dp_golden", processor: "stripe", paymentID: "pay_golden_b1", amount: Money(minorUnits: 1275, currency: .cny),
                reason: "fraudulent", status: "needs_response", evidenceDueBy: 1_796_913_830), eventID: "evt_golden_dispute",
            record: nil, to: b.id, now: now)
        // Closed unpaid.
        let c = try await order("ord_golden_c", 300)
        _ = try await store.close(orderID: c.id, record: EventRecord(kind: .close), now: now)
        var text = ""
        for id in [a.id, b.id, c.id] {
            for message in try await store.outbox(orderID: id) { text += "\(message.type)\n\(message.payload)\n\n" }
        }
        #expect(Golden.mismatch(Self.namedInOrder(text), "webhooks.txt") == nil)
    }

    /// `text` with each random `evt_` id named by its order of appearance (`evt_1`, …).
    static func namedInOrder(_ text: String) -> String {
        let pattern = try! NSRegularExpression(pattern: "evt_[0-9a-f]{32}")
        var names: [String: String] = [:]
        var result = text
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let id = String(text[Range(match.range, in: text)!])
            if names[id] == nil { names[id] = "evt_\(names.count + 1)" }
        }
        for (id, name) in names { result = result.replacingOccurrences(of: id, with: name) }
        return result
    }
}
