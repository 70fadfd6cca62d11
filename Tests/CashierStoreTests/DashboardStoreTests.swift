import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// What the dashboard and the exports read, on SQLite and PostgreSQL: the overview's aggregates
/// (money per currency, orders, attempts, slices, methods), filtered lists of orders, payments and
/// refunds, and webhook deliveries with their re-sends.
@Suite struct DashboardStoreTests {
    typealias Backend = OrderStoreTests.Backend

    static let day = Date(timeIntervalSince1970: 1_800_000_000)

    /// An order of `minor` paid by `method` at `day + offset` seconds.
    @discardableResult
    static func paid(
        _ store: any OrderStore, _ minor: Int64, _ method: PaymentMethod, _ provider: PaymentProvider, at offset: TimeInterval,
        currency: Currency = .cny, merchant: String? = nil
    ) async throws -> (order: StoredOrder, payment: StoredPayment) {
        let at = day.addingTimeInterval(offset)
        var new = OrderStoreTests.newOrder(minor: minor)
        new.total = Money(minorUnits: minor, currency: currency)
        new.merchant = merchant
        let order = try await store.create(new, now: at)
        let start = try await store.beginPayment(NewPayment(orderID: order.id, method: method, provider: provider), now: at)
        _ = try await store.recordPayment(.placed, of: start.payment.id, record: .init(kind: .paymentStarted), now: at)
        let recorded = try await store.recordPayment(
            .succeeded(transactionID: "T" + start.payment.id, amount: start.payment.amount), of: start.payment.id,
            record: .init(kind: .notification), now: at)
        return (recorded.order, recorded.payment)
    }

    @Test(arguments: Backend.available)
    func theOverviewAddsUpWhatHappened(backend: Backend) async throws {
        let store = try await backend.store()
        let (first, _) = try await Self.paid(store, 1000, .wechatNative, .wechatV2, at: 60)
        try await Self.paid(store, 2500, .alipayQR, .alipay, at: 3 * 3600 + 5)
        try await Self.paid(store, 700, .wechatNative, .wechatV3, at: 3 * 3600 + 10)
        try await Self.paid(store, 9900, .applePay, .applePay, at: 3600, currency: try Currency(code: "USD"))
        // An attempt placed and never paid, one only reserved, and an order with none.
        let unpaid = try await store.create(OrderStoreTests.newOrder(), now: Self.day.addingTimeInterval(100))
        let open = try await store.beginPayment(NewPayment(orderID: unpaid.id, method: .alipayApp, provider: .alipay), now: Self.day)
        _ = try await store.recordPayment(.placed, of: open.payment.id, record: .init(kind: .paymentStarted), now: Self.day)
        let reserved = try await store.create(OrderStoreTests.newOrder(), now: Self.day.addingTimeInterval(200))
        _ = try await store.beginPayment(
            NewPayment(orderID: reserved.id, method: .wechatApp, provider: .wechatV2), now: Self.day.addingTimeInterval(200))
        // A refund of 4.00 on the first, and something the day after (outside the period).
        let refund = try await store.reserveRefund(
            NewRefund(orderID: first.id, amount: Money(minorUnits: 400, currency: .cny)), now: Self.day.addingTimeInterval(7200))
        _ = try await store.finishRefund(
            refund.refund.id, outcome: .succeeded(providerRefundID: nil), now: Self.day.addingTimeInterval(7200))
        try await Self.paid(store, 5000, .wechatNative, .wechatV2, at: 86_400 + 60)

        let overview = try await store.overview(from: Self.day, until: Self.day.addingTimeInterval(86_400), bucket: 3600)
        let cny = try #require(overview.totals.first { $0.currency == .cny })
        #expect(cny.payments == 3 && cny.gross.minorUnits == 4200 && cny.refunds == 1 && cny.refunded.minorUnits == 400)
        #expect(cny.net.minorUnits == 3800)
        #expect(overview.totals.first { $0.currency.code == "USD" }?.gross.minorUnits == 9900)
        #expect(overview.orders == 6)
        // Started: the four paid and the one placed; the reserved one never reached a payer.
        #expect(overview.paymentsStarted == 5 && overview.paymentsSucceeded == 4)
        #expect(overview.successRate == 0.8)
        let hours = overview.buckets.filter { $0.gross.currency == .cny }.map {
            (Int($0.start.timeIntervalSince(Self.day)) / 3600, $0.gross.minorUnits)
        }
        #expect(hours.map(\.0) == [0, 3] && hours.map(\.1) == [1000, 3200])
        #expect(overview.buckets.filter { $0.gross.currency.code == "USD" }.map(\.payments) == [1])
        #expect(overview.byMethod.first?.method == .applePay)
        #expect(
            overview.byMethod.filter { $0.method == .wechatNative }.map { "\($0.provider.rawValue) \($0.gross.minorUnits)" }.sorted()
                == ["wechat.v2 1000", "wechat.v3 700"])
        #expect(overview.refundRequired == 0)
    }

    /// Every overview statement reads an index range (SQLite's planner says `SEARCH … USING
    /// INDEX`), never a whole table: the home page costs what the period holds.
    @Test func theOverviewAndExportsReadIndexesNotTables() async throws {
        let store = try #require(try await Backend.sqlite.store() as? SQLiteOrderStore)
        for statement in SQLOverview.all {
            let plan = try await store.withReading { session in
                try session.connection.query("EXPLAIN QUERY PLAN " + statement, []).compactMap { try $0.text("detail") }
            }
            let reads = plan.filter { $0.hasPrefix("SCAN") || $0.hasPrefix("SEARCH") }
            #expect(!reads.isEmpty && reads.allSatisfy { $0.hasPrefix("SEARCH") && $0.contains("INDEX") }, "\(statement): \(plan)")
        }
        // An export's page after a cursor: a range of the created_at index, already in order.
        let order = try await store.create(OrderStoreTests.newOrder())
        for table in ["orders", "payments", "refunds"] {
            let plan = try await store.withReading { session in
                let query = RecordQuery(from: Self.day, until: Date(), after: order.id, oldestFirst: true, limit: 500)
                let filter = try SQLFilter(table: "orders", alias: nil, query: query, session.connection)
                return try session.connection.query(
                    "EXPLAIN QUERY PLAN SELECT id FROM \(table) \(filter.whereClause) \(filter.orderClause)", filter.parameters
                ).compactMap { try $0.text("detail") }
            }
            #expect(
                plan.contains { $0.hasPrefix("SEARCH \(table) USING INDEX \(table)_created (created_at>? AND created_at<?)") }
                    && !plan.contains { $0.contains("TEMP B-TREE") }, "\(table): \(plan)")
        }
    }

    /// The webhook job's claim reads the due range of `outbox_due`, not every message ever
    /// delivered in rowid order, whichever order it returns them in; and its check for an earlier
    /// message of the same order reads that order's undelivered ones (`outbox_waiting`), not
    /// every message claimed or waiting for a retry.
    @Test func theOutboxClaimReadsTheDueIndex() async throws {
        let store = try #require(try await Backend.sqlite.store() as? SQLiteOrderStore)
        let plan = try await store.withReading { session in
            try session.connection.query(
                "EXPLAIN QUERY PLAN " + SQLStatements.dueOutbox, SQLStatements.dueOutboxParameters(now: Date(), limit: 10)
            )
            .compactMap { try $0.text("detail") }
        }
        #expect(plan.contains { $0.hasPrefix("SEARCH outbox USING INDEX outbox_due (delivered_at=? AND next_attempt_at<?)") }, "\(plan)")
        #expect(
            plan.contains {
                $0.hasPrefix("SEARCH earlier USING INDEX outbox_waiting (order_id=? AND next_attempt_at>? AND next_attempt_at<?)")
            },
            "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN outbox") || $0.hasPrefix("SCAN earlier") }, "\(plan)")
    }

    /// What a key made with `--merchant` lists: its sub-merchant's orders, their payments and refunds.
    @Test(arguments: Backend.available)
    func listsOfOneMerchant(backend: Backend) async throws {
        let store = try await backend.store()
        let north = try await Self.paid(store, 300, .wechatNative, .wechatV2, at: 60, merchant: "north")
        let direct = try await Self.paid(store, 400, .wechatNative, .wechatV2, at: 120)
        let south = try await Self.paid(store, 500, .alipayQR, .alipay, at: 180, merchant: "south")
        var refunds: [String: String] = [:]
        for made in [north, direct, south] {
            refunds[made.order.id] = try await store.reserveRefund(NewRefund(orderID: made.order.id), now: Self.day).refund.id
        }
        var query = RecordQuery(limit: 10)
        query.merchant = "north"
        #expect(try await store.orders(matching: query).map(\.id) == [north.order.id])
        #expect(try await store.payments(matching: query).map(\.id) == [north.payment.id])
        #expect(try await store.refunds(matching: query).map(\.id) == [refunds[north.order.id]])
        #expect(try await store.orders(status: .paid, merchant: "north", before: nil, limit: 10).map(\.id) == [north.order.id])
        #expect(try await store.orders(status: nil, merchant: "nobody", before: nil, limit: 10).isEmpty)
        // Without a merchant: every merchant's, the direct merchant's included.
        #expect(
            Set(try await store.orders(matching: RecordQuery(limit: 10)).map(\.id)) == [north.order.id, direct.order.id, south.order.id])
        #expect(try await store.orders(status: nil, before: nil, limit: 10).count == 3)
    }

    @Test(arguments: Backend.available)
    func listsFilterSearchAndPage(backend: Backend) async throws {
        let store = try await backend.store()
        var made: [(order: StoredOrder, payment: StoredPayment)] = []
        for index in 0..<5 {
            made.append(
                try await Self.paid(
                    store, Int64(100 * (index + 1)), index.isMultiple(of: 2) ? .wechatNative : .alipayQR,
                    index.isMultiple(of: 2) ? .wechatV2 : .alipay, at: Double(index) * 60))
        }
        let alipay = try await store.payments(matching: RecordQuery(provider: .alipay, limit: 10))
        #expect(alipay.map(\.id) == [made[3].payment.id, made[1].payment.id])
        #expect(
            try await store.payments(matching: RecordQuery(search: made[2].payment.transactionID, limit: 10)).map(\.id) == [
                made[2].payment.id
            ])
        #expect(
            try await store.payments(matching: RecordQuery(search: made[4].order.outTradeNo, limit: 10)).map(\.id) == [made[4].payment.id])
        // Pages, newest first and oldest first (exports).
        let first = try await store.payments(matching: RecordQuery(limit: 2))
        let second = try await store.payments(matching: RecordQuery(after: first.last?.id, limit: 2))
        #expect((first + second).map(\.id) == made.reversed().prefix(4).map(\.payment.id))
        let oldest = try await store.orders(matching: RecordQuery(oldestFirst: true, limit: 3))
        let rest = try await store.orders(matching: RecordQuery(after: oldest.last?.id, oldestFirst: true, limit: 3))
        #expect((oldest + rest).map(\.id) == made.map(\.order.id))
        // Records made in the same millisecond page one by one, in the order they were made, both ways.
        let instant = Self.day.addingTimeInterval(900)
        var same: [String] = []
        for _ in 0..<3 { same.append(try await store.create(OrderStoreTests.newOrder(), now: instant).id) }
        let sameDay = RecordQuery(from: instant, until: instant.addingTimeInterval(1), oldestFirst: true, limit: 1)
        for descending in [false, true] {
            var paged: [String] = []
            var page = sameDay
            page.oldestFirst = !descending
            while let next = try await store.orders(matching: page).first {
                paged.append(next.id)
                page.after = next.id
            }
            #expect(paged == (descending ? same.reversed() : same))
        }
        // By creation time, and by status.
        let window = RecordQuery(from: Self.day.addingTimeInterval(60), until: Self.day.addingTimeInterval(180), limit: 10)
        #expect(try await store.orders(matching: window).count == 2)
        #expect(try await store.payments(matching: RecordQuery(status: "failed", limit: 10)).isEmpty)
        // Refunds, found by their payment's method and by their own number.
        let refund = try await store.reserveRefund(NewRefund(orderID: made[1].order.id, requestedBy: "dashboard 1234abcd"), now: Self.day)
        _ = try await store.finishRefund(refund.refund.id, outcome: .succeeded(providerRefundID: "r1"), now: Self.day)
        #expect(try await store.refunds(matching: RecordQuery(method: .alipayQR, limit: 10)).map(\.id) == [refund.refund.id])
        #expect(try await store.refunds(matching: RecordQuery(method: .wechatNative, limit: 10)).isEmpty)
        let found = try #require(try await store.refunds(matching: RecordQuery(search: refund.refund.outRefundNo, limit: 10)).first)
        #expect(found.requestedBy == "dashboard 1234abcd" && found.status == .succeeded)
        #expect(
            try await store.refunds(matching: RecordQuery(search: made[1].payment.outTradeNo, limit: 10)).map(\.id) == [refund.refund.id])
        #expect(try await store.refunds(matching: RecordQuery(search: "r1", limit: 10)).map(\.id) == [refund.refund.id])
        #expect(try await store.refunds(matching: RecordQuery(search: made[2].payment.outTradeNo, limit: 10)).isEmpty)
        #expect(try await store.events(orderID: made[1].order.id).last?.detail.contains("dashboard 1234abcd") == true)
    }

    /// A cursor that names no record is refused, in every list: an empty page would read as the
    /// end of the list. Another merchant's record is no place in a merchant's list. A record that
    /// no longer matches the list's filter still marks the place.
    @Test(arguments: Backend.available)
    func anUnknownCursorIsRefusedNotAnEmptyPage(backend: Backend) async throws {
        let store = try await backend.store()
        let pending = try await store.create(OrderStoreTests.newOrder(), now: Self.day.addingTimeInterval(30))
        let waiting = try await store.beginPayment(
            NewPayment(orderID: pending.id, method: .wechatNative, provider: .wechatV2), now: Self.day)
        _ = try await store.recordPayment(.placed, of: waiting.payment.id, record: .init(kind: .paymentStarted), now: Self.day)
        let north = try await Self.paid(store, 300, .wechatNative, .wechatV2, at: 60, merchant: "north")
        let south = try await Self.paid(store, 500, .alipayQR, .alipay, at: 120, merchant: "south")
        let refund = try await store.reserveRefund(NewRefund(orderID: south.order.id), now: Self.day).refund
        _ = try await store.claimOutbox(now: Self.day.addingTimeInterval(200), limit: 10, lease: 1)
        let webhook = try #require(try await store.webhooks(matching: WebhookQuery(limit: 1)).first)
        func refused(_ kind: String, _ id: String, _ list: () async throws -> Void) async {
            let error = await #expect(throws: StoreError.self) { try await list() }
            #expect(error?.code == .notFound && error?.message.contains("starting_after") == true, "\(kind): \(String(describing: error))")
            #expect(error?.message.contains("no \(kind) '\(id)'") == true, "\(String(describing: error))")
        }
        for unknown in ["ord_unknown", "", south.payment.id] {
            await refused("order", unknown) { _ = try await store.orders(matching: RecordQuery(after: unknown, limit: 5)) }
            await refused("order", unknown) { _ = try await store.orders(status: nil, merchant: nil, before: unknown, limit: 5) }
        }
        await refused("payment", "pay_unknown") { _ = try await store.payments(matching: RecordQuery(after: "pay_unknown", limit: 5)) }
        await refused("refund", "ref_unknown") { _ = try await store.refunds(matching: RecordQuery(after: "ref_unknown", limit: 5)) }
        await refused("webhook", "evt_unknown") { _ = try await store.webhooks(matching: WebhookQuery(after: "evt_unknown", limit: 5)) }
        // Known ids page on (nothing is older than the first of each).
        #expect(try await store.orders(matching: RecordQuery(after: south.order.id, limit: 5)).map(\.id) == [north.order.id, pending.id])
        #expect(
            try await store.payments(matching: RecordQuery(after: south.payment.id, limit: 5)).map(\.id) == [
                north.payment.id, waiting.payment.id,
            ])
        #expect(try await store.refunds(matching: RecordQuery(after: refund.id, limit: 5)).isEmpty)
        #expect(try await store.webhooks(matching: WebhookQuery(after: webhook.id, limit: 5)).count == 1)
        // Another merchant's record is no cursor in north's lists; south's own is.
        var northOnly = RecordQuery(after: south.order.id, limit: 5)
        northOnly.merchant = "north"
        await refused("order", south.order.id) { _ = try await store.orders(matching: northOnly) }
        await refused("order", south.order.id) {
            _ = try await store.orders(status: nil, merchant: "north", before: south.order.id, limit: 5)
        }
        northOnly.after = south.payment.id
        await refused("payment", south.payment.id) { _ = try await store.payments(matching: northOnly) }
        northOnly.after = refund.id
        await refused("refund", refund.id) { _ = try await store.refunds(matching: northOnly) }
        var southOnly = RecordQuery(after: refund.id, limit: 5)
        southOnly.merchant = "south"
        #expect(try await store.refunds(matching: southOnly).isEmpty)
        // A cursor outside the filter: the paid order still marks the place in a list of pending ones.
        let pendingOnes = try await store.orders(status: .pending, merchant: nil, before: south.order.id, limit: 5)
        #expect(pendingOnes.map(\.id) == [pending.id])
        #expect(try await store.orders(matching: RecordQuery(status: "pending", after: south.order.id, limit: 5)).map(\.id) == [pending.id])
    }

    /// Paging while orders are being created: every order made before the first page is listed
    /// exactly once, newest first, by both kinds of list, and no page after a cursor fails.
    @Test(arguments: Backend.available)
    func pagesReadWhileOrdersAreCreatedListEachOrderOnce(backend: Backend) async throws {
        let store = try await backend.store()
        var before: [String] = []
        for index in 0..<30 {
            before.append(try await store.create(OrderStoreTests.newOrder(), now: Self.day.addingTimeInterval(Double(index))).id)
        }
        let listed = try await withThrowingTaskGroup(of: [String].self) { group in
            for writer in 0..<4 {
                group.addTask {
                    for index in 0..<10 {
                        _ = try await store.create(
                            OrderStoreTests.newOrder(), now: Self.day.addingTimeInterval(Double(100 + writer * 10 + index)))
                    }
                    return []
                }
            }
            for reader in 0..<3 {
                group.addTask {
                    var ids: [String] = []
                    var cursor: String?
                    repeat {
                        let page =
                            reader == 0
                            ? try await store.orders(status: nil, merchant: nil, before: cursor, limit: 7).map(\.id)
                            : try await store.orders(
                                matching: RecordQuery(until: Self.day.addingTimeInterval(100), after: cursor, limit: 7)
                            ).map(\.id)
                        ids += page
                        cursor = page.count == 7 ? page.last : nil
                    } while cursor != nil
                    return ids
                }
            }
            var lists: [[String]] = []
            for try await ids in group where !ids.isEmpty { lists.append(ids) }
            return lists
        }
        #expect(listed.count == 3)
        for ids in listed {
            #expect(Set(ids).count == ids.count, "an order listed twice")
            #expect(Array(ids.filter(Set(before).contains)) == before.reversed(), "missed or out of order")
        }
        #expect(try await store.orders(matching: RecordQuery(limit: 100)).count == 70)
    }

    @Test(arguments: Backend.available)
    func webhookDeliveriesAreListedAndSentAgain(backend: Backend) async throws {
        let store = try await backend.store()
        let one = try await Self.paid(store, 100, .wechatNative, .wechatV2, at: 0)
        let two = try await Self.paid(store, 200, .wechatNative, .wechatV2, at: 10)
        let now = Self.day.addingTimeInterval(60)
        let messages = try await store.claimOutbox(now: now, limit: 10, lease: 1)
        #expect(messages.count == 2)
        // The first is delivered; the second fails with a reason.
        try await store.markDelivered(messages[0].id, at: now)
        try await store.reschedule(messages[1].id, attempts: 1, nextAttemptAt: now.addingTimeInterval(3600), error: "HTTP 503")
        let failed = try await store.webhooks(matching: WebhookQuery(state: .failed, limit: 10))
        #expect(failed.map(\.id) == [messages[1].id] && failed.first?.lastError == "HTTP 503" && failed.first?.orderID == two.order.id)
        #expect(try await store.webhooks(matching: WebhookQuery(state: .delivered, limit: 10)).map(\.orderID) == [one.order.id])
        #expect(try await store.webhooks(matching: WebhookQuery(orderID: one.order.id, limit: 10)).count == 1)
        // Re-sent: due now, whether it failed or had been delivered.
        let again = try await store.resendFailedWebhooks(from: Self.day, until: Self.day.addingTimeInterval(86_400), now: now)
        #expect(again.map(\.id) == [messages[1].id])
        #expect(try await store.resendWebhook(messages[0].id, now: now)?.deliveredAt == nil)
        #expect(Set(try await store.dueOutbox(now: now, limit: 10).map(\.id)) == Set(messages.map(\.id)))
        #expect(try await store.resendWebhook("evt_nope", now: now) == nil)
    }
}
