import Cashier
import CashierHTTP
import CashierServer
import CashierStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Outgoing webhooks: signed, retried with backoff until a 2xx, one event id per event.
@Suite struct WebhookTests {
    @Test func signedRetriedAndDeliveredOnce() async throws {
        let store = try SQLiteOrderStore(path: ":memory:")
        try await store.migrate()
        let order = try await store.create(
            NewOrder(id: "ord_w", outTradeNo: "Cw", total: Money(minorUnits: 100, currency: .cny), description: "tea", clientSecret: "s"))
        let attempt = try await store.beginPayment(NewPayment(orderID: order.id, method: .wechatNative, provider: .wechatV2), now: Date())
        _ = try await store.recordPayment(
            .succeeded(transactionID: "42", amount: order.total), of: attempt.payment.id, record: .init(kind: .notification), now: Date())
        let receiver = try ServerFixture.receiver(failures: 1)
        let now = Date()
        let clock = ManualClock(now)
        let dispatcher = WebhookDispatcher(
            endpoint: .init(url: receiver.url, secret: "whsec_test"), store: store, transport: ServerFixture.transport, backoff: 60,
            clock: clock)
        #expect(try await dispatcher.deliverDue() == 0)  // 503: rescheduled a minute later
        clock.advance(by: 30)
        #expect(try await dispatcher.deliverDue() == 0)  // not due yet: not sent
        #expect(receiver.received.count == 1)
        clock.advance(by: 31)
        #expect(try await dispatcher.deliverDue() == 1)
        clock.set(now.addingTimeInterval(3600))
        #expect(try await dispatcher.deliverDue() == 0)  // delivered: never again
        let deliveries = receiver.received
        #expect(deliveries.count == 2 && deliveries[0].eventID == deliveries[1].eventID && deliveries[0].eventID.hasPrefix("evt_"))
        let last = try #require(deliveries.last)
        #expect(String(decoding: last.body, as: UTF8.self).contains(#""type":"order.paid""#))
        #expect(WebhookSignature.verify(header: last.signature, body: last.body, secret: "whsec_test", now: now.addingTimeInterval(61)))
        #expect(
            !WebhookSignature.verify(
                header: last.signature, body: last.body + [0x20], secret: "whsec_test", now: now.addingTimeInterval(61)))
        #expect(!WebhookSignature.verify(header: last.signature, body: last.body, secret: "whsec_other", now: now.addingTimeInterval(61)))
        #expect(
            !WebhookSignature.verify(header: last.signature, body: last.body, secret: "whsec_test", now: now.addingTimeInterval(61 + 301)))
        await receiver.server.stop()
    }

    /// A backlog drains in one run, several orders at once, each order's events in the order
    /// they were made (`order.paid` before `order.refund_required`).
    @Test func aBacklogDrainsAtOnceWithEachOrdersEventsInOrder() async throws {
        // Two attempts of each order both paid: order.paid, then order.refund_required for the second.
        let store = try await Self.store(withPaidOrders: 60, paymentsEach: 2)
        let receiver = try ServerFixture.receiver(failures: 0)
        let dispatcher = WebhookDispatcher(
            endpoint: .init(url: receiver.url, secret: "whsec_test"), store: store, transport: ServerFixture.transport)
        #expect(try await dispatcher.deliverAllDue(limit: 50) == 120)
        #expect(try await dispatcher.deliverAllDue(limit: 50) == 0)
        var seen: [String: [String]] = [:]
        for delivery in receiver.received {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any])
            let data = try #require(object["data"] as? [String: Any])
            let order = try #require(data["order_id"] as? String)
            seen[order, default: []].append(try #require(object["type"] as? String))
        }
        #expect(seen.count == 60)
        #expect(seen.values.allSatisfy { $0 == ["order.paid", "order.refund_required"] })
        await receiver.server.stop()
    }

    /// An order's webhook that the endpoint refused holds the order's next one until its retry
    /// is delivered: the merchant never hears `order.refund_required` before the `order.paid` it
    /// follows. Other orders' webhooks go on meanwhile.
    @Test func aRefusedWebhookHoldsItsOrdersNextOneUntilItsRetry() async throws {
        let store = try await Self.store(withPaidOrders: 1, paymentsEach: 2)
        let receiver = try ServerFixture.receiver(failures: 1)
        let now = Date()
        let clock = ManualClock(now)
        let dispatcher = WebhookDispatcher(
            endpoint: .init(url: receiver.url, secret: "whsec_test"), store: store, transport: ServerFixture.transport, backoff: 60,
            clock: clock)
        #expect(try await dispatcher.deliverAllDue() == 0)  // order.paid refused: order.refund_required not sent
        #expect(receiver.received.count == 1)
        clock.advance(by: 30)
        #expect(try await dispatcher.deliverAllDue() == 0)  // order.paid not due yet, so neither is the next
        #expect(receiver.received.count == 1)
        clock.advance(by: 31)
        #expect(try await dispatcher.deliverAllDue() == 2)
        let types = try receiver.received.map { delivery -> String in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any])
            return try #require(object["type"] as? String)
        }
        #expect(types == ["order.paid", "order.paid", "order.refund_required"])
        #expect(receiver.received.map(\.accepted) == [false, true, true])
        await receiver.server.stop()
    }

    /// A webhook leaves as soon as its order is paid, not on the job's next tick.
    @Test func aPaidOrdersWebhookIsSentWithoutWaitingForTheInterval() async throws {
        let receiver = try ServerFixture.receiver(failures: 0)
        let fixture = try await ServerFixture(webhook: .init(url: receiver.url, secret: "whsec_test")) {
            $0.webhookInterval = .seconds(3600)
        }
        let order = try await fixture.createOrder()
        let id = try #require(order["id"] as? String)
        let started = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"])
        let outTradeNo = try #require(started.object["out_trade_no"] as? String)
        let clock = ContinuousClock()
        let start = clock.now
        // The sandbox's payer pays; its notification pays the order; the webhook follows.
        if started.object["api"] as? String == "v3" {
            await fixture.sandbox.wechatV3.pay(outTradeNo: outTradeNo, outcome: .success)
        } else {
            await fixture.sandbox.wechatV2.pay(outTradeNo: outTradeNo, outcome: .success)
        }
        // Without the ring it would wait for the hour; the bound only ends a broken test. (Not
        // `settled()`: that rings the job itself when a webhook is due.)
        await receiver.arrivals.wait(atLeast: 1, within: .seconds(300) - (clock.now - start))
        #expect(receiver.received.map { String(decoding: $0.body, as: UTF8.self).contains(#""type":"order.paid""#) } == [true])
        await fixture.stop()
        await receiver.server.stop()
    }

    /// A store with `count` orders, each paid by `paymentsEach` attempts (WeChat Pay, then Alipay):
    /// an `order.paid` webhook queued for each, and `order.refund_required` for a second payment.
    static func store(withPaidOrders count: Int, paymentsEach: Int) async throws -> SQLiteOrderStore {
        let store = try SQLiteOrderStore(path: ":memory:")
        try await store.migrate()
        for index in 0..<count {
            let order = try await store.create(
                NewOrder(
                    id: "ord_b\(index)", outTradeNo: "CB\(index)", total: Money(minorUnits: 100, currency: .cny), description: "tea",
                    clientSecret: "s"))
            let wallets = [(PaymentMethod.wechatNative, PaymentProvider.wechatV2), (.alipayQR, .alipay)].prefix(paymentsEach)
            var attempts: [String] = []  // all started before any is paid, as two wallets opened at once
            for (method, provider) in wallets {
                attempts.append(
                    try await store.beginPayment(NewPayment(orderID: order.id, method: method, provider: provider), now: Date()).payment.id)
            }
            for (number, attempt) in attempts.enumerated() {
                _ = try await store.recordPayment(
                    .succeeded(transactionID: "42\(index)\(number)", amount: order.total), of: attempt,
                    record: .init(kind: .notification), now: Date())
            }
        }
        return store
    }

    /// Sixteen orders' webhooks are in flight at once, not one after another: each delivery waits
    /// for the endpoint and then for a commit, and a busy server queues webhooks faster than
    /// eight at a time can send them.
    @Test func sixteenOrdersWebhooksAreInFlightAtOnce() async throws {
        let store = try await Self.store(withPaidOrders: 40, paymentsEach: 1)
        let endpoint = SlowEndpoint(holdUntil: 16)
        let dispatcher = WebhookDispatcher(
            endpoint: .init(url: URL(string: "http://127.0.0.1:9/webhooks")!, secret: "whsec_test"), store: store, transport: endpoint)
        #expect(try await dispatcher.deliverAllDue(limit: 50) == 40)
        #expect(endpoint.most == 16)
    }

    /// An endpoint configured for two at a time never has a third: the endpoint holds each
    /// request until three are in flight (which never comes) or 500 ms pass.
    @Test func anEndpointsConcurrencyIsNeverExceeded() async throws {
        let store = try await Self.store(withPaidOrders: 6, paymentsEach: 1)
        let endpoint = SlowEndpoint(holdUntil: 3, atMost: .milliseconds(500))
        let dispatcher = WebhookDispatcher(
            endpoint: .init(url: URL(string: "http://127.0.0.1:9/webhooks")!, secret: "whsec_test", concurrency: 2), store: store,
            transport: endpoint)
        #expect(try await dispatcher.deliverAllDue(limit: 50) == 6)
        #expect(endpoint.most == 2)
        #expect(WebhookDispatcher.Endpoint(url: URL(string: "http://127.0.0.1:9")!, secret: "s", concurrency: 0).concurrency == 1)
        #expect(WebhookDispatcher.Endpoint(url: URL(string: "http://127.0.0.1:9")!, secret: "s", concurrency: 500).concurrency == 64)
    }

    /// Answers 200 once `holdUntil` requests have been in flight together (or after `atMost`, so
    /// a dispatcher that sends fewer at once fails the test rather than hanging it), counting the
    /// most it held at once. Holding, not a fixed delay, keeps a busy test run from finishing
    /// the first delivery before the last one starts.
    final class SlowEndpoint: HTTPTransport {
        let inFlight = Atomic<Int>(0)
        /// The most in flight at once, which each arrival raises (and so wakes the held ones).
        let held = Tally()
        let holdUntil: Int
        let atMost: Duration

        init(holdUntil: Int, atMost: Duration = .seconds(2)) {
            self.holdUntil = holdUntil
            self.atMost = atMost
        }

        var most: Int { held.value }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            held.raise(to: inFlight.add(1, ordering: .relaxed).newValue)
            await held.wait(atLeast: holdUntil, within: atMost)
            inFlight.subtract(1, ordering: .relaxed)
            return HTTPResponse(status: 200)
        }
    }

    /// A claim takes no more than can be sent within its lease, and a message whose lease is
    /// about to end is left for the next claim instead of being sent late (while another instance
    /// may already hold it).
    @Test func batchesFitTheirLease() async throws {
        #expect(WebhookDispatcher.batchSize(limit: 50, lease: 120) == 50)
        #expect(WebhookDispatcher.batchSize(limit: 50, lease: 30) == 32)  // 16 in flight, two rounds of 10 s
        #expect(WebhookDispatcher.batchSize(limit: 50, lease: 5) == 16)  // a short lease: 2.5 s per request, one round
        #expect(WebhookDispatcher.batchSize(limit: 50, lease: 30, concurrency: 2) == 4)  // two in flight, two rounds
        let store = try SQLiteOrderStore(path: ":memory:")
        try await store.migrate()
        let order = try await store.create(
            NewOrder(id: "ord_l", outTradeNo: "Cl", total: Money(minorUnits: 100, currency: .cny), description: "tea", clientSecret: "s"))
        var attempts: [String] = []
        for (method, provider) in [(PaymentMethod.wechatNative, PaymentProvider.wechatV2), (.alipayQR, .alipay)] {
            attempts.append(
                try await store.beginPayment(NewPayment(orderID: order.id, method: method, provider: provider), now: Date()).payment.id)
        }
        for (number, attempt) in attempts.enumerated() {  // paid twice: order.paid, then order.refund_required
            _ = try await store.recordPayment(
                .succeeded(transactionID: "9\(number)", amount: order.total), of: attempt, record: .init(kind: .notification), now: Date())
        }
        // A slow world: every reading of the clock is five seconds later.
        final class Slow: WallClock, @unchecked Sendable {
            let base = ManualClock(Date())
            func now() -> Date {
                base.advance(by: 5)
                return base.now()
            }
        }
        let receiver = try ServerFixture.receiver(failures: 0)
        let dispatcher = WebhookDispatcher(
            endpoint: .init(url: receiver.url, secret: "whsec_test"), store: store, transport: ServerFixture.transport, lease: 30,
            clock: Slow())
        // Claimed at t; sending must start before t + 30 - 10: the first goes, the second waits.
        // (A lease shorter than the 10 s timeout halves the timeout instead: sends still happen.)
        #expect(try await dispatcher.deliverDue() == 1)
        #expect(receiver.received.count == 1)
        let pending = try await store.webhooks(matching: WebhookQuery(state: .pending, limit: 10))
        #expect(pending.count == 1 && pending.first?.attempts == 0, "left unsent and unattempted, for the next claim")
        await receiver.server.stop()
    }
}
