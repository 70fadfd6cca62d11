import ApplePay
import Cashier
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Adyen's dispute webhooks: a chargeback takes money back from the merchant and is recorded as
/// gone back, once, however many copies arrive at however many instances; a reversal gives it
/// back; events that move no money are logged; forgeries change nothing.
@Suite struct AdyenDisputeTests {
    static func dispute(_ world: MoneyWorld, _ psp: String, _ event: String, _ amount: String? = nil) async throws {
        var body = ["psp_reference": psp, "event": event]
        if let amount { body["amount"] = amount }
        let answer = try await world.sandboxCall("POST", "/sandbox/adyen/dispute", json: body)
        try #require(answer.status == 200, "\(answer.object)")
    }

    static func chargebacks(_ world: MoneyWorld, _ id: String) async throws -> [StoredRefund] {
        try await world.store.refunds(orderID: id).filter { $0.reason?.hasSuffix("chargeback") == true }
    }

    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func aChargebackIsRecordedOnceAndItsReversalGivesItBack(backend: MoneyWorld.Backend) async throws {
        let world = try await AdyenWebhookTests.world(backend)
        let id = try await world.paidByApplePay("40.00")
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
        let psp = try #require(payment.transactionID)
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "5.00"]).status == 200)

        // Announced: logged, nothing moves.
        try await Self.dispute(world, psp, "NOTIFICATION_OF_CHARGEBACK")
        await world.settled()
        #expect(try await world.store.events(orderID: id).contains { $0.kind == .dispute })
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 500)

        // Charged back: all that was left goes back, announced once.
        try await Self.dispute(world, psp, "CHARGEBACK")
        await world.settled()
        #expect(try await world.status(id) == "refunded", "the CHARGEBACK webhook takes 35.00 back")
        let chargeback = try #require(try await Self.chargebacks(world, id).first)
        #expect(chargeback.amount.minorUnits == 3500 && chargeback.status == .succeeded && chargeback.requestedBy == "adyen")
        let urls = world.servers.map { URL(string: $0.baseURL.absoluteString + "/notify/adyen")! }
        let replayed = await world.sandbox.delivery.replay(key: "CHARGEBACK \(payment.outTradeNo)", copies: 24, to: urls)
        #expect(replayed?.sent == 24 && replayed?.acknowledged == 24, "\(String(describing: replayed))")
        #expect(try await Self.chargebacks(world, id).count == 1)
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 4000)
        await world.settled()
        #expect(world.webhooks("order.refunded", order: id).count == 2)
        // Nothing is left to refund, and the books agree with Adyen's.
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "1.00"]).status >= 400)
        var disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")

        // Won: the money is the merchant's again — and late copies of the chargeback and the reversal move nothing.
        try await Self.dispute(world, psp, "CHARGEBACK_REVERSED")
        await world.settled()
        #expect(try await world.status(id) == "partially_refunded")
        #expect(try await Self.chargebacks(world, id).first?.status == .failed)
        let delivery = world.sandbox.delivery
        async let lateChargeback = delivery.replay(key: "CHARGEBACK \(payment.outTradeNo)", copies: 12, to: urls)
        async let reversalAgain = delivery.replay(key: "CHARGEBACK_REVERSED \(payment.outTradeNo)", copies: 12, to: urls)
        let (late, again) = await (lateChargeback, reversalAgain)
        #expect(late?.acknowledged == 12 && again?.acknowledged == 12)
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 500)
        await world.settled()
        #expect(world.webhooks("order.refund_failed", order: id).count == 1)
        #expect(world.webhooks("order.refund_failed", order: id).count == 1)

        // A second chargeback, for part: recorded beside the first.
        try await Self.dispute(world, psp, "SECOND_CHARGEBACK", "10.00")
        await world.settled()
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 1500)
        #expect(try await Self.chargebacks(world, id).compactMap(\.reason).sorted() == ["chargeback", "second chargeback"])
        disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")
        await world.stop()
    }

    @Test(.timeLimit(.minutes(2))) func aForgedOrMismatchedChargebackChangesNothing() async throws {
        let world = try await AdyenWebhookTests.world(.sqlite)
        let id = try await world.paidByApplePay("12.00")
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
        func post(_ item: ApplePay.AdyenNotification, key: String = AdyenWebhookTests.hmacKey) async throws -> MoneyWorld.Answer {
            try await AdyenWebhookTests.post(item, to: world, key: key)
        }
        let chargeback = ApplePay.AdyenNotification(
            eventCode: "CHARGEBACK", success: true, pspReference: "DSPforged", originalReference: payment.transactionID,
            merchantAccountCode: "CashierWorld", merchantReference: payment.outTradeNo, value: 1200, currency: "CNY", reason: "Fraud")
        #expect(try await post(chargeback, key: String(AdyenWebhookTests.hmacKey.reversed())).status == 401)
        // Another payment's, another currency, more than is left: acknowledged, not applied.
        let variants = try await AdyenWebhookTests.statuses(
            of: chargeback, to: world, [{ $0.originalReference = "PSPsomeoneelse" }, { $0.currency = "USD" }, { $0.value = 1201 }])
        #expect(variants == [200, 200, 200])
        #expect(try await world.store.refunds(orderID: id).isEmpty)
        #expect(try await world.status(id) == "paid")
        let logged = try await world.store.events(orderID: id).filter { $0.kind == .dispute }.map(\.detail)
        #expect(logged.count == 2 && logged.allSatisfy { $0.contains("\"applied\"") }, "\(logged)")
        // Each is counted for an alert: the money moved at Adyen, and the books did not take it.
        let metrics = String(decoding: try await world.call("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"cashier_reports_not_applied_total{provider="applepay",reason="no_amount"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"cashier_reports_not_applied_total{provider="applepay",reason="more_than_left"} 1"#))
        await world.stop()
    }

    /// A record Adyen's webhook made and a crash left pending (reserved, not finished) is finished
    /// by the refund job without asking Adyen for a refund: the money went back at Adyen already.
    @Test(.timeLimit(.minutes(2))) func theRefundJobAsksNoOneForAdyensOwnRecords() async throws {
        let world = try await AdyenWebhookTests.world(.sqlite)
        let id = try await world.paidByApplePay("14.00")
        let reserved = try await world.store.reserveRefund(
            NewRefund(orderID: id, paymentID: nil, amount: nil, outRefundNo: "Rcrashed", reason: "chargeback", requestedBy: "adyen"),
            now: Date())
        #expect(reserved.refund.status == .pending)
        _ = try await world.servers[0].settleRefunds()
        #expect(try await world.store.refund(outRefundNo: "Rcrashed")?.status == .succeeded)
        #expect(world.sandbox.adyen.core.processor.entries.first?.refunded.minorUnits == 0, "Adyen was asked for nothing")
        await world.stop()
    }
}
