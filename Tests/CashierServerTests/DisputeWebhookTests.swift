import Cashier
import CashierSandbox
import CashierStore
import Foundation
import TestSupport
import Testing

/// A dispute opened against an Apple Pay payment is announced to the merchant (`order.disputed`,
/// with the order, the payment and the dispute: its reason, and at Stripe the last day to answer)
/// — once per dispute, whichever of the processor's events about it come first, and however many
/// copies arrive at however many instances. The money it takes follows as `order.refunded`.
@Suite struct DisputeWebhookTests {
    @Test(.timeLimit(.minutes(3)), arguments: CardProcessor.cases)
    func aDisputeIsAnnouncedOnceBeforeItsMoney(processor: CardProcessor, backend: MoneyWorld.Backend) async throws {
        let world =
            processor == .stripe ? try await StripeWebhookTests.world(backend) : try await AdyenWebhookTests.world(backend)
        let id = try await world.paidByApplePay("32.00")
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
        let reference = try #require(payment.transactionID)
        // The dispute opens, then takes the money; then every copy of both, at every instance.
        let (opening, taking) =
            processor == .stripe
            ? ("charge.dispute.created \(reference)", "charge.dispute.funds_withdrawn \(reference)")
            : ("NOTIFICATION_OF_CHARGEBACK \(payment.outTradeNo)", "CHARGEBACK \(payment.outTradeNo)")
        for step in processor == .stripe ? ["created", "funds_withdrawn"] : ["NOTIFICATION_OF_CHARGEBACK", "CHARGEBACK"] {
            let answer =
                processor == .stripe
                ? try await world.sandboxCall("POST", "/sandbox/stripe/dispute", json: ["payment_intent": reference, "event": step])
                : try await world.sandboxCall("POST", "/sandbox/adyen/dispute", json: ["psp_reference": reference, "event": step])
            try #require(answer.status == 200, "\(answer.object)")
        }
        await world.settled()
        #expect(try await world.status(id) == "refunded")
        let path = processor == .stripe ? "/notify/stripe" : "/notify/adyen"
        let urls = world.servers.map { URL(string: $0.baseURL.absoluteString + path)! }
        async let first = world.sandbox.delivery.replay(key: opening, copies: 12, to: urls)
        async let second = world.sandbox.delivery.replay(key: taking, copies: 12, to: urls)
        let heard = await [first, second]
        #expect(heard.allSatisfy { $0?.acknowledged == 12 }, "\(heard)")

        await world.settled()  // a late second one would have been sent by now
        let announced = world.webhooks("order.disputed", order: id)
        #expect(announced.count == 1, "\(announced)")
        let data = try #require(announced.first?["data"] as? [String: Any])
        let dispute = try #require(data["dispute"] as? [String: Any])
        #expect(dispute["object"] as? String == "dispute" && dispute["processor"] as? String == processor.rawValue)
        #expect(dispute["payment_id"] as? String == payment.id && (data["payment"] as? [String: Any])?["id"] as? String == payment.id)
        #expect((dispute["amount"] as? [String: Any])?["amount_minor"] as? Int == 3200, "\(dispute)")
        #expect(dispute["reason"] as? String != nil)
        #expect((dispute["id"] as? String)?.hasPrefix(processor == .stripe ? "dp_" : "DSP") == true, "\(dispute)")
        #expect((dispute["evidence_due_by"] as? Int ?? 0) > Int(Date().timeIntervalSince1970), "the last day to answer: \(dispute)")
        #expect(world.webhooks("order.refunded", order: id).count == 1)
        #expect(try await world.store.refunds(orderID: id).count == 1)
        // Each order's webhooks arrive in the order they were queued: the dispute before the money it took.
        let types = world.receiver.received.compactMap { delivery -> String? in
            guard let object = (try? JSONSerialization.jsonObject(with: Data(delivery.body))) as? [String: Any],
                (object["data"] as? [String: Any])?["order_id"] as? String == id
            else { return nil }
            return object["type"] as? String
        }
        #expect(types == ["order.paid", "order.disputed", "order.refunded"], "\(types)")
        await world.stop()
    }
}
