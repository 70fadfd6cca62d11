import ApplePay
import Cashier
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Stripe refunds can be `pending` when made and `failed` later (a closed card): a refund is
/// accepted on Stripe's answer, then the refund job asks Stripe (`GET /v1/refunds/{id}`) and
/// confirms it, or fails it — once, however many instances ask at once — and gives its amount back.
@Suite struct StripeRefundTests {
    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func refundsAreConfirmedOrFailedByAskingStripe(backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.refundCheckAfter = 0 }
        let id = try await world.paidByApplePay("30.00")

        let first = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "5.00"])
        #expect(first.status == 200, "\(first.object)")
        let accepted = try #require(try await world.store.refunds(orderID: id).first)
        #expect(accepted.status == .succeeded && accepted.confirmedAt == nil && accepted.providerRefundID?.hasPrefix("re_") == true)
        // The API says so: no `confirmed` yet.
        let listed = try #require((first.object["refunds"] as? [[String: Any]])?.first)
        #expect(listed["status"] as? String == "succeeded" && listed["confirmed"] == nil)
        let cookie = try await RecordsAndExportsTests.signIn(world.base(0), secret: world.keys.secret)
        let page = { () async throws -> String in
            String(
                decoding: try await RecordsAndExportsTests.get(world.base(0) + "/dashboard/orders/\(id)", cookie: cookie).body,
                as: UTF8.self)
        }
        #expect(try await page().contains("succeeded (not yet confirmed)"))

        // Pending at Stripe, failed when asked: accepted (counted) until the job asks.
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "fail_later"]).status == 200)
        let second = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "7.00"])
        #expect(second.status == 200, "\(second.object)")
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 1200)

        // The refund job on every instance, many times at once.
        await withTaskGroup(of: Void.self) { group in
            for run in 0..<12 {
                let server = world.servers[run % world.servers.count]
                group.addTask { _ = try? await server.settleRefunds() }
            }
        }
        let refunds = try await world.store.refunds(orderID: id)
        let confirmed = try #require(refunds.first { $0.amount.minorUnits == 500 })
        #expect(confirmed.status == .succeeded && confirmed.confirmedAt != nil)
        let shown = try #require(
            (try await world.orderJSON(id)["refunds"] as? [[String: Any]])?.first { $0["id"] as? String == confirmed.id })
        #expect(shown["confirmed"] as? Int == Int(confirmed.confirmedAt!.timeIntervalSince1970))
        #expect(try await !page().contains("not yet confirmed"))
        let failed = try #require(refunds.first { $0.amount.minorUnits == 700 })
        #expect(failed.status == .failed && failed.failureReason == "expired_or_canceled_card", "\(failed)")
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 500)
        await world.settled()  // a late second one would have been sent by now
        #expect(world.webhooks("order.refund_failed", order: id).count == 1)

        // Refused outright: nothing is counted, the amount stays refundable.
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "refuse"]).status == 200)
        let refused = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "25.00"])
        #expect(refused.status == 502 && refused.errorMessage.contains("Insufficient funds"), "\(refused.object)")
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 500)
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "succeed"]).status == 200)
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "25.00"]).status == 200)
        try await world.expectBooksAgreeThenStop()
    }

    /// A refund whose every answer was lost stays pending here; the refund job then finds it among
    /// Stripe's refunds by its idempotency key (kept in its metadata) instead of sending it again —
    /// which, once Stripe has forgotten the key (after 24 hours), would refund twice.
    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func aRefundWhoseAnswerWasLostIsFoundNotMadeAgain(backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.refundCheckAfter = 0 }
        let id = try await world.paidByApplePay("20.00")
        // Every attempt's answer lost (the processor call tries three times).
        #expect(try await world.sandboxCall("POST", "/sandbox/faults", json: ["mode": "lost_reply", "count": 3]).status == 200)
        let lost = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "6.00"])
        #expect(lost.status >= 500, "\(lost.object)")
        #expect(try await world.store.refunds(orderID: id).first?.status == .pending)
        #expect(world.sandbox.stripe.core.processor.entries.first?.refunded.minorUnits == 600)
        world.sandbox.stripe.core.forgetIdempotencyKeys()
        await withTaskGroup(of: Void.self) { group in
            for run in 0..<8 {
                let server = world.servers[run % world.servers.count]
                group.addTask { _ = try? await server.settleRefunds() }
            }
        }
        let refund = try #require(try await world.store.refunds(orderID: id).first)
        #expect(refund.status == .succeeded && refund.confirmedAt != nil && refund.providerRefundID?.hasPrefix("re_") == true)
        #expect(world.sandbox.stripe.core.processor.entries.first?.refunded.minorUnits == 600, "refunded once at Stripe")
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 600)
        try await world.expectBooksAgreeThenStop()
    }

    /// A capture whose every answer was lost, retried after Stripe forgot its key: Stripe refuses it
    /// as already captured, and its PaymentIntent shows the capture happened — so it is recorded,
    /// once, not reported refused with the money taken.
    @Test(.timeLimit(.minutes(2))) func aCaptureRetriedAfterStripeForgotItsKeyIsRecorded() async throws {
        let world = try await MoneyWorld(.sqlite) { $0.applePay?.capture = .manual }
        let id = try await world.paidByApplePay("16.00")
        #expect(try await world.sandboxCall("POST", "/sandbox/faults", json: ["mode": "lost_reply", "count": 3]).status == 200)
        let lost = try await world.call("POST", "/v1/orders/\(id)/capture", json: [:])
        #expect(lost.status >= 500, "\(lost.object)")
        #expect(try await world.store.payments(orderID: id).contains { $0.capture == .uncaptured })
        world.sandbox.stripe.core.forgetIdempotencyKeys()
        let retried = try await world.call("POST", "/v1/orders/\(id)/capture", json: [:])
        #expect(retried.status == 200, "\(retried.object)")
        #expect(try await world.store.payments(orderID: id).contains { $0.capture == .captured })
        #expect(world.sandbox.stripe.core.processor.entries.last?.captured.minorUnits == 1600)
        try await world.expectBooksAgreeThenStop()
    }
}
