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
        let receiver = try WebhookReceiver(failures: 1)
        let now = Date()
        let clock = ManualClock(now)
        let dispatcher = WebhookDispatcher(
            endpoint: .init(url: receiver.url, secret: "whsec_test"), store: store, backoff: 60, clock: clock)
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
}
