import ApplePay
import Cashier
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// A capture Adyen accepted and the card scheme then rejected (`CAPTURE_FAILED`) took no money:
/// the payment's capture is `failed` and what it was to take is recorded as gone back, once,
/// however many copies arrive at however many instances; Adyen's recapture takes it again.
@Suite struct AdyenCaptureFailureTests {
    /// The payment of an order, and the refund that records its failed capture.
    static func failure(_ world: MoneyWorld, _ id: String) async throws -> (StoredPayment, StoredRefund?) {
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
        let refunds = try await world.store.refunds(orderID: id)
        return (payment, refunds.first { $0.reason == "capture failed" })
    }

    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func aFailedCaptureGoesBackOnceAndARecaptureTakesItAgain(backend: MoneyWorld.Backend) async throws {
        let world = try await AdyenWebhookTests.world(backend, capture: .manual)
        let whole = try await world.paidByApplePay("30.00")
        let part = try await world.paidByApplePay("20.00")
        #expect(try await world.sandboxCall("POST", "/sandbox/adyen/capture_outcome", json: ["outcome": "fail_later"]).status == 200)
        // Adyen accepts both captures; the card scheme rejects them afterwards.
        #expect(try await world.call("POST", "/v1/orders/\(whole)/capture", json: [:]).status == 200)
        #expect(try await world.call("POST", "/v1/orders/\(part)/capture", json: ["amount": "15.00"]).status == 200)
        await world.settled()
        for id in [whole, part] {
            #expect(try await world.status(id) == "refunded", "\(id): the CAPTURE_FAILED webhook gives it all back")
        }
        let (wholePayment, wholeBack) = try await Self.failure(world, whole)
        #expect(wholePayment.capture == .failed)
        #expect(wholeBack?.amount.minorUnits == 3000 && wholeBack?.status == .succeeded && wholeBack?.confirmedAt != nil)
        #expect(wholeBack?.requestedBy == "adyen")
        let (partPayment, partBack) = try await Self.failure(world, part)
        #expect(partPayment.capture == .failed && partBack?.amount.minorUnits == 1500)
        #expect(try await world.store.order(id: part)?.refunded.minorUnits == 2000, "5.00 released at capture, 15.00 never taken")
        await world.settled()
        #expect(world.webhooks("order.refunded", order: whole).count == 1)
        let events = try await world.store.events(orderID: whole).filter { $0.kind == .applePayCaptureFailed }
        #expect(events.count == 1 && events.first?.detail.contains("technical issue") == true)

        // Every copy of both failures at once, across the instances: acknowledged, nothing moves again.
        let urls = world.servers.map { URL(string: $0.baseURL.absoluteString + "/notify/adyen")! }
        let wholeKey = "CAPTURE_FAILED cashier_\(wholePayment.id)_capture"
        let release = try #require(try await world.store.refunds(orderID: part).first { $0.reason == "released at capture" })
        for key in [wholeKey, "CAPTURE_FAILED cashier_\(release.outRefundNo)_capture"] {
            let replayed = await world.sandbox.delivery.replay(key: key, copies: 24, to: urls)
            #expect(replayed?.sent == 24 && replayed?.acknowledged == 24, "\(key): \(String(describing: replayed))")
        }
        #expect(try await world.store.refunds(orderID: whole).count == 1)
        #expect(try await world.store.refunds(orderID: part).map(\.amount.minorUnits).sorted() == [500, 1500])
        #expect(try await world.store.events(orderID: whole).filter { $0.kind == .applePayCaptureFailed }.count == 1)
        #expect(world.webhooks("order.refunded", order: whole).count == 1)

        // Nothing was taken, so nothing is refunded, captured or voided any more — and the books agree with Adyen's.
        let refund = try await world.call("POST", "/v1/orders/\(whole)/refunds", json: ["amount": "1.00"])
        #expect(refund.status == 409 && refund.errorMessage.contains("capture failed"), "\(refund.object)")
        let again = try await world.call("POST", "/v1/orders/\(whole)/capture", json: [:])
        #expect(again.status == 409 && again.errorMessage.contains("capture failed"), "\(again.object)")
        var disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")
        let page = try await MoneySafetyTests.dashboardPage(world, "/dashboard/orders/\(whole)")
        #expect(page.contains("capture failed</span>") && page.contains("applepay_capture_failed"))

        // Adyen captures the whole one again by itself: the money is taken after all, announced once.
        let psp = try #require(wholePayment.transactionID)
        #expect(try await world.sandboxCall("POST", "/sandbox/adyen/recapture", json: ["psp_reference": psp]).status == 200)
        await world.settled()
        #expect(try await world.status(whole) == "paid", "the recapture takes the money again")
        let (recaptured, undone) = try await Self.failure(world, whole)
        #expect(recaptured.capture == .captured && undone?.status == .failed)
        #expect(try await world.store.order(id: whole)?.refunded.minorUnits == 0)
        await world.settled()
        #expect(world.webhooks("order.refund_failed", order: whole).count == 1)
        // The recapture again, and a late copy of the failure it mends, at once: nothing moves.
        let delivery = world.sandbox.delivery
        async let lateFailure = delivery.replay(key: wholeKey, copies: 12, to: urls)
        async let recaptureAgain = delivery.replay(key: "RECAPTURE cashier_\(wholePayment.id)_capture", copies: 12, to: urls)
        let (late, repeated) = await (lateFailure, recaptureAgain)
        #expect(late?.acknowledged == 12 && repeated?.acknowledged == 12)
        #expect(try await world.status(whole) == "paid")
        #expect(try await world.store.payment(id: wholePayment.id)?.capture == .captured)
        #expect(world.webhooks("order.refund_failed", order: whole).count == 1)
        // Now it can be refunded, and the books still agree.
        #expect(try await world.call("POST", "/v1/orders/\(whole)/refunds", json: ["amount": "10.00"]).status == 200)
        disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")
        await world.stop()
    }

    /// An automatic capture (the payment's own) can fail too; Adyen's word is checked before it counts.
    @Test(.timeLimit(.minutes(2))) func anAutomaticCaptureFailsAndForgeriesChangeNothing() async throws {
        let world = try await AdyenWebhookTests.world(.sqlite)
        let kept = try await world.paidByApplePay("12.00")
        let keptPayment = try #require(try await world.store.payments(orderID: kept).first { $0.status == .succeeded })
        func post(_ item: ApplePay.AdyenNotification, key: String = AdyenWebhookTests.hmacKey) async throws -> MoneyWorld.Answer {
            try await AdyenWebhookTests.post(item, to: world, key: key)
        }
        let forged = ApplePay.AdyenNotification(
            eventCode: "CAPTURE_FAILED", success: true, pspReference: "MODforged", originalReference: keptPayment.transactionID,
            merchantAccountCode: "CashierWorld", merchantReference: keptPayment.outTradeNo, value: 1200, currency: "CNY",
            reason: "forged")
        #expect(try await post(forged, key: String(AdyenWebhookTests.hmacKey.reversed())).status == 401)
        // Another amount, another payment, a capture accepted: acknowledged, and nothing changes.
        let variants = try await AdyenWebhookTests.statuses(
            of: forged, to: world, [{ $0.value = 12_000 }, { $0.originalReference = "PSPsomeoneelse" }, { $0.eventCode = "CAPTURE" }])
        #expect(variants == [200, 200, 200])
        #expect(try await world.store.events(orderID: kept).contains { $0.kind == .notificationRefused })
        #expect(try await world.status(kept) == "paid")
        #expect(try await world.store.payment(id: keptPayment.id)?.capture == nil)
        #expect(try await world.store.refunds(orderID: kept).isEmpty)

        // With captures failing, a payment captured as it is authorised fails after the fact.
        #expect(try await world.sandboxCall("POST", "/sandbox/adyen/capture_outcome", json: ["outcome": "fail_later"]).status == 200)
        let failed = try await world.paidByApplePay("8.00")
        await world.settled()
        #expect(try await world.status(failed) == "refunded")
        let (payment, back) = try await Self.failure(world, failed)
        #expect(payment.capture == .failed && back?.amount.minorUnits == 800)
        try await world.expectBooksAgreeThenStop()
    }

    /// A void Adyen refuses by webhook is logged on the order and changes nothing: Cashier voids
    /// only what it holds uncaptured, so the authorisation lapsed already (the money is back).
    @Test(.timeLimit(.minutes(2))) func aRefusedCancellationIsLoggedNotApplied() async throws {
        let world = try await AdyenWebhookTests.world(.sqlite, capture: .manual)
        let id = try await world.paidByApplePay("25.00")
        #expect(try await world.call("POST", "/v1/orders/\(id)/void", json: [:]).status == 200)
        let void = try #require(try await world.store.refunds(orderID: id).first)
        let payment = try #require(try await world.store.payment(id: void.paymentID))
        let refused = ApplePay.AdyenNotification(
            eventCode: "CANCELLATION", success: false, pspReference: "MODrefused", originalReference: payment.transactionID,
            merchantAccountCode: "CashierWorld", merchantReference: "cashier_\(void.outRefundNo)_void", value: 2500, currency: "CNY",
            reason: "Authorisation expired")
        let answer = try await AdyenWebhookTests.post(refused, to: world)
        #expect(answer.status == 200 && String(decoding: answer.body, as: UTF8.self) == "[accepted]")
        let logged = try await world.store.events(orderID: id).filter { $0.kind == .refundNotification && $0.detail.contains("MODrefused") }
        #expect(logged.count == 1 && logged.first?.detail.contains("Authorisation expired") == true)
        #expect(try await world.status(id) == "refunded")
        #expect(try await world.store.payment(id: payment.id)?.capture == .voided)
        #expect(try await world.store.refunds(orderID: id).map(\.status) == [.succeeded])
        await world.stop()
    }

    /// A capture whose every answer was lost: the call fails and nothing is recorded, but Adyen did
    /// capture — its `CAPTURE` webhook records it, so a retry is refused instead of capturing
    /// again, and the books agree with Adyen's. A release whose answer was lost is finished the same way.
    @Test(.timeLimit(.minutes(2))) func aCaptureWhoseAnswerWasLostIsRecordedByItsWebhook() async throws {
        let world = try await AdyenWebhookTests.world(.sqlite, capture: .manual)
        let whole = try await world.paidByApplePay("18.00")
        let part = try await world.paidByApplePay("22.00")
        #expect(try await world.sandboxCall("POST", "/sandbox/faults", json: ["mode": "lost_reply", "count": 3]).status == 200)
        let lost = try await world.call("POST", "/v1/orders/\(whole)/capture", json: [:])
        #expect(lost.status >= 500, "\(lost.object)")
        await world.settled()
        #expect(
            try await world.store.payments(orderID: whole).contains { $0.capture == .captured }, "the CAPTURE webhook records the capture")
        let again = try await world.call("POST", "/v1/orders/\(whole)/capture", json: [:])
        #expect(again.status == 409 && again.errorMessage.contains("is captured"), "\(again.object)")
        #expect(try await world.status(whole) == "paid")

        #expect(try await world.sandboxCall("POST", "/sandbox/faults", json: ["mode": "lost_reply", "count": 3]).status == 200)
        let lostPart = try await world.call("POST", "/v1/orders/\(part)/capture", json: ["amount": "20.00"])
        #expect(lostPart.status >= 500, "\(lostPart.object)")
        await world.settled()
        #expect(try await world.store.refunds(orderID: part).first?.status == .succeeded, "the CAPTURE webhook finishes the release")
        #expect(try await world.store.payments(orderID: part).contains { $0.capture == .captured })
        #expect(try await world.store.order(id: part)?.refunded.minorUnits == 200)
        try await world.expectBooksAgreeThenStop()
    }
}
