import ApplePay
import Cashier
import CashierSandbox
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// What a merchant does in Adyen's Customer Area, without Cashier: a refund (its webhook names the
/// payment's own reference, not one of Cashier's keys) is recorded on its order — once, however
/// many copies arrive at however many instances — and taken back when it fails; a cancel of a held
/// payment ends its authorisation; a capture there is the payment's capture. The books and the
/// reconciliation then agree with Adyen's.
@Suite struct AdyenCustomerAreaTests {
    /// Does `action` in the sandbox's Customer Area; the modification's PSP reference.
    static func customerArea(
        _ world: MoneyWorld, _ action: String, _ psp: String, amount: String? = nil, outcome: String = "succeed"
    ) async throws -> String {
        var body = ["action": action, "psp_reference": psp, "outcome": outcome]
        if let amount { body["amount"] = amount }
        let answer = try await world.sandboxCall("POST", "/sandbox/adyen/customer_area", json: body)
        try #require(answer.status == 200, "\(answer.object)")
        return try #require(answer.object["psp_reference"] as? String)
    }

    /// Every copy of the webhook filed under `key`, at once, to every instance.
    static func replay(_ world: MoneyWorld, _ key: String, copies: Int) async -> (sent: Int, acknowledged: Int)? {
        await world.sandbox.delivery.replay(
            key: key, copies: copies, to: world.servers.map { URL(string: $0.baseURL.absoluteString + "/notify/adyen")! })
    }

    static func paid(_ world: MoneyWorld, _ amount: String) async throws -> (id: String, payment: StoredPayment, psp: String) {
        let id = try await world.paidByApplePay(amount)
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
        return (id, payment, try #require(payment.transactionID))
    }

    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func customerAreaRefundsAreRecordedOnceAndTakenBackWhenTheyFail(backend: MoneyWorld.Backend) async throws {
        let world = try await AdyenWebhookTests.world(backend)
        let (id, payment, psp) = try await Self.paid(world, "50.00")
        let refund = try await Self.customerArea(world, "refund", psp, amount: "20.00")
        await world.settled()
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 2000)
        var records = try await world.store.refunds(orderID: id)
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record.reason == "refunded at Adyen" && record.requestedBy == "adyen" && record.status == .succeeded, "\(record)")
        #expect(record.outRefundNo == AdyenEvents.customerAreaRefundNumber(refund) && record.providerRefundID == refund)

        // Copies at every instance, a Cashier refund and another Customer Area refund, all at once.
        async let heard = Self.replay(world, "REFUND \(refund)", copies: 24)
        async let ours = world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "15.00", "reason": "returned"], via: 1)
        async let more = Self.customerArea(world, "refund", psp, amount: "5.00")
        let (copies, mine, another) = try await (heard, ours, more)
        #expect(copies?.sent == 24 && copies?.acknowledged == 24, "\(String(describing: copies))")
        #expect(mine.status == 200 || mine.status == 201, "\(mine.object)")
        await world.settled()
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 4000)
        records = try await world.store.refunds(orderID: id)
        #expect(
            records.filter { $0.reason == "refunded at Adyen" }.map(\.outRefundNo).sorted()
                == [refund, another].map(AdyenEvents.customerAreaRefundNumber).sorted())

        // A refund that fails later: its REFUND and REFUND_FAILED race, and copies of both follow;
        // whichever comes first, nothing of it stays.
        let failing = try await Self.customerArea(world, "refund", psp, amount: "10.00", outcome: "fail_later")
        let number = AdyenEvents.customerAreaRefundNumber(failing)
        await world.settled()
        #expect(try await world.store.refund(outRefundNo: number)?.status == .failed)
        async let late = Self.replay(world, "REFUND \(failing)", copies: 6)
        async let failed = Self.replay(world, "REFUND_FAILED \(failing)", copies: 6)
        _ = await (late, failed)
        #expect(try await world.store.refund(outRefundNo: number)?.status == .failed)
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 4000)
        #expect(try await world.store.payment(id: payment.id)?.status == .succeeded)
        try await world.expectBooksAgreeThenStop()
    }

    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func aCancelInTheCustomerAreaEndsTheAuthorisationAndACaptureThereCaptures(backend: MoneyWorld.Backend) async throws {
        let world = try await AdyenWebhookTests.world(backend, capture: .manual)
        let cancelled = try await Self.paid(world, "18.00")
        let captured = try await Self.paid(world, "22.00")
        let cancel = try await Self.customerArea(world, "cancel", cancelled.psp)
        _ = try await Self.customerArea(world, "capture", captured.psp)
        await world.settled()
        #expect(try await world.status(cancelled.id) == "refunded")
        #expect(try await world.store.payment(id: captured.payment.id)?.capture == .captured)
        let records = try await world.store.refunds(orderID: cancelled.id)
        #expect(records.count == 1 && records.first?.reason == "cancelled at Adyen" && records.first?.requestedBy == "adyen", "\(records)")
        #expect(try await world.store.payment(id: cancelled.payment.id)?.capture == .voided)
        let heard = await Self.replay(world, "CANCELLATION \(cancel)", copies: 12)
        #expect(heard?.acknowledged == 12, "\(String(describing: heard))")
        #expect(try await world.store.refunds(orderID: cancelled.id).count == 1)
        let capture = try await world.call("POST", "/v1/orders/\(cancelled.id)/capture", json: [:])
        #expect(capture.status == 409, "\(capture.object)")
        #expect(try await world.store.refunds(orderID: captured.id).isEmpty)
        try await world.expectBooksAgreeThenStop()
    }

    /// A refund's webhook that does not fit the payment it names is logged and moves nothing: another
    /// currency, more than is left, a payment Cashier does not know, one Adyen refused.
    @Test(.timeLimit(.minutes(2))) func customerAreaRefundsThatDoNotFitMoveNothing() async throws {
        let world = try await AdyenWebhookTests.world(.sqlite)
        let (id, _, psp) = try await Self.paid(world, "30.00")
        let refund = { (value: Int64, currency: String, original: String, success: Bool) in
            ApplePay.AdyenNotification(
                eventCode: "REFUND", success: success, pspReference: "MOD" + UUID().uuidString.prefix(13), originalReference: original,
                merchantAccountCode: "CashierWorld", merchantReference: "refund for a customer", value: value, currency: currency)
        }
        for item in [
            refund(500, "USD", psp, true), refund(3001, "CNY", psp, true), refund(500, "CNY", "PSPNOTCASHIERS00", true),
            refund(500, "CNY", psp, false),
        ] {
            let answer = try await AdyenWebhookTests.post(item, to: world)
            #expect(answer.status == 200, "\(item)")
        }
        #expect(try await world.store.refunds(orderID: id).isEmpty)
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 0)
        let logged = try await world.store.events(orderID: id).filter { $0.kind == .refundNotification }.map(\.detail)
        #expect(logged.count == 3 && logged.allSatisfy { $0.contains("\"applied\":\"no: ") }, "\(logged)")
        await world.stop()
    }
}
