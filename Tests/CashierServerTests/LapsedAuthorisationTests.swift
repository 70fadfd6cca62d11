import ApplePay
import Cashier
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// A held authorisation that lapses before it is captured (Stripe cancels the PaymentIntent after
/// seven days, Adyen sends `EXPIRE`): no money moved, so the payment's capture becomes `voided`
/// and what was held is recorded as gone back — once, however many copies arrive at however many
/// instances, and never beside a void of Cashier's own at the same moment.
@Suite struct LapsedAuthorisationTests {
    static func world(_ processor: CardProcessor, _ backend: MoneyWorld.Backend) async throws -> MoneyWorld {
        switch processor {
        case .stripe: try await StripeWebhookTests.world(backend, capture: .manual)
        case .adyen: try await AdyenWebhookTests.world(backend, capture: .manual)
        }
    }

    /// The processor lets the payment's authorisation lapse; the sandbox's status code.
    static func expire(_ world: MoneyWorld, _ processor: CardProcessor, _ reference: String) async throws -> Int {
        switch processor {
        case .stripe: try await world.sandboxCall("POST", "/sandbox/stripe/expire", json: ["payment_intent": reference]).status
        case .adyen: try await world.sandboxCall("POST", "/sandbox/adyen/expire", json: ["psp_reference": reference]).status
        }
    }

    /// Every copy of the lapse's word, at once, to every instance.
    static func replay(_ world: MoneyWorld, _ processor: CardProcessor, _ payment: StoredPayment, copies: Int) async -> (
        sent: Int, acknowledged: Int
    )? {
        let (key, path) =
            switch processor {
            case .stripe: ("payment_intent.canceled \(payment.transactionID ?? "")", "/notify/stripe")
            case .adyen: ("EXPIRE \(payment.outTradeNo)", "/notify/adyen")
            }
        let urls = world.servers.map { URL(string: $0.baseURL.absoluteString + path)! }
        return await world.sandbox.delivery.replay(key: key, copies: copies, to: urls)
    }

    static func held(_ world: MoneyWorld, _ amount: String) async throws -> (id: String, payment: StoredPayment) {
        let id = try await world.paidByApplePay(amount)
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
        try #require(payment.capture == .uncaptured)
        return (id, payment)
    }

    @Test(.timeLimit(.minutes(3)), arguments: CardProcessor.cases)
    func aLapsedAuthorisationIsRecordedAsGoneBackOnce(processor: CardProcessor, backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(processor, backend)
        let (id, payment) = try await Self.held(world, "25.00")
        #expect(try await Self.expire(world, processor, try #require(payment.transactionID)) == 200)
        await world.settled()
        #expect(try await world.status(id) == "refunded", "the lapse's word gives the 25.00 back")
        let record = try #require(try await world.store.refunds(orderID: id).first)
        #expect(record.reason == "authorisation lapsed" && record.requestedBy == processor.rawValue, "\(record)")
        #expect(record.amount.minorUnits == 2500 && record.status == .succeeded)
        #expect(try await world.store.payment(id: payment.id)?.capture == .voided)

        let replayed = await Self.replay(world, processor, payment, copies: 24)
        #expect(replayed?.sent == 24 && replayed?.acknowledged == 24, "\(String(describing: replayed))")
        #expect(try await world.store.refunds(orderID: id).count == 1)
        await world.settled()  // a late second one would have been sent by now
        #expect(world.webhooks("order.refunded", order: id).count == 1)
        // Capturing it now is refused here, saying why, and nothing is asked of the processor.
        let capture = try await world.call("POST", "/v1/orders/\(id)/capture", json: [:])
        #expect(capture.status == 409 && capture.errorMessage.contains("voided"), "\(capture.object)")
        try await world.expectBooksAgreeThenStop()
    }

    /// The merchant voids while the authorisation lapses: whichever comes first, the money goes
    /// back once, and the books agree with the processor's.
    @Test(.timeLimit(.minutes(3)), arguments: CardProcessor.cases)
    func aLapseAndAVoidAtOnceGiveTheMoneyBackOnce(processor: CardProcessor, backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(processor, backend)
        var orders: [(id: String, payment: StoredPayment)] = []
        for amount in ["11.00", "12.00", "13.00", "14.00"] { orders.append(try await Self.held(world, amount)) }
        await withTaskGroup(of: Void.self) { group in
            for (index, order) in orders.enumerated() {
                group.addTask { _ = try? await world.call("POST", "/v1/orders/\(order.id)/void", json: [:], via: index) }
                group.addTask { _ = try? await Self.expire(world, processor, order.payment.transactionID ?? "") }
                group.addTask { _ = await Self.replay(world, processor, order.payment, copies: 6) }
            }
        }
        for order in orders {
            await world.settled()
            #expect(try await world.status(order.id) == "refunded", "\(order.id)")
            let all = try await world.store.refunds(orderID: order.id)
            let back = all.filter { $0.status == .succeeded }
            let events = try await world.store.events(orderID: order.id).map { "\($0.kind.rawValue) \($0.detail)" }
            #expect(
                back.count == 1 && back.first?.amount == order.payment.amount,
                "\(all.map { ($0.reason ?? "", $0.status, $0.failureReason ?? "") }) \(events)")
            #expect(try await world.store.payment(id: order.payment.id)?.capture == .voided)
        }
        // Late copies of the processor's word move nothing.
        for order in orders { _ = await Self.replay(world, processor, order.payment, copies: 6) }
        for order in orders {
            #expect(try await world.store.order(id: order.id)?.refunded == order.payment.amount)
        }
        try await world.expectBooksAgreeThenStop()
    }

    /// The lapse's word never comes (the webhook is lost, or not set up): a capture the processor
    /// refuses asks it whether it still holds the authorisation, and ends it here as the word would
    /// have — once, whichever of many captures at once, at every instance, finds it — and says why.
    /// A held authorisation that did not lapse is captured as usual beside them, and the late word
    /// moves nothing again.
    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func aLapseWhoseWordIsLostIsFoundByTheRefusedCapture(backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(.stripe, backend)
        let lost = try await world.sandboxCall(
            "POST", "/sandbox/stripe/webhook", json: ["url": "http://127.0.0.1:9/notify/stripe", "secret": StripeWebhookTests.secret])
        try #require(lost.status == 200, "\(lost.object)")
        let whole = try await Self.held(world, "30.00")
        let part = try await Self.held(world, "40.00")
        let live = try await Self.held(world, "12.00")
        for order in [whole, part] { #expect(try await Self.expire(world, .stripe, try #require(order.payment.transactionID)) == 200) }
        await world.settled()  // the word went to the lost address; nothing else is under way
        #expect(try await world.status(whole.id) == "paid", "nothing was heard of the lapse")

        let answers = await withTaskGroup(of: (order: String, status: Int, message: String).self) { group in
            for index in 0..<6 {
                for (order, body) in [(whole.id, [String: String]()), (part.id, ["amount": "25.00"])] {
                    group.addTask {
                        let answer = try? await world.call("POST", "/v1/orders/\(order)/capture", json: body, via: index)
                        return (order, answer?.status ?? 0, answer?.errorMessage ?? "")
                    }
                }
            }
            group.addTask {
                let answer = try? await world.call("POST", "/v1/orders/\(live.id)/capture", json: [:])
                return (live.id, answer?.status ?? 0, answer?.errorMessage ?? "")
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0.order == live.id }.map(\.status) == [200], "the live authorisation is captured: \(answers)")
        for order in [whole, part] {
            let refused = answers.filter { $0.order == order.id }
            #expect(refused.count == 6 && refused.allSatisfy { $0.status == 409 || $0.status == 422 }, "\(refused)")
            #expect(refused.contains { $0.message.contains("authorisation") && $0.message.contains("nothing was captured") }, "\(refused)")
            #expect(try await world.status(order.id) == "refunded")
            let records = try await world.store.refunds(orderID: order.id)
            #expect(records.allSatisfy { $0.status == .succeeded }, "\(records)")
            #expect(records.reduce(0) { $0 + $1.amount.minorUnits } == order.payment.amount.minorUnits, "\(records)")
            let lapse = try #require(records.first { $0.reason == "authorisation lapsed" }, "\(records)")
            #expect(lapse.requestedBy == "stripe")
            #expect(try await world.store.payment(id: order.payment.id)?.capture == .voided)
            #expect(try await world.store.order(id: order.id)?.refunded == order.payment.amount)
        }
        #expect(try await world.store.refunds(orderID: whole.id).count == 1)
        #expect(try await world.store.payment(id: live.payment.id)?.capture == .captured)

        // The word arrives at last, many times, at every instance: nothing moves again.
        for order in [whole, part] {
            let before = try await world.store.refunds(orderID: order.id).count
            let heard = await Self.replay(world, .stripe, order.payment, copies: 6)
            #expect(heard?.acknowledged == heard?.sent, "\(String(describing: heard))")
            #expect(try await world.store.refunds(orderID: order.id).count == before)
            #expect(try await world.store.order(id: order.id)?.refunded == order.payment.amount)
        }
        try await world.expectBooksAgreeThenStop()
    }

    /// The processor's word on a void of Cashier's own (Stripe's `payment_intent.canceled` follows
    /// every cancel) records nothing more.
    @Test(.timeLimit(.minutes(2))) func theWordOnCashiersOwnVoidMovesNothing() async throws {
        let world = try await Self.world(.stripe, .sqlite)
        let (id, payment) = try await Self.held(world, "9.00")
        #expect(try await world.call("POST", "/v1/orders/\(id)/void", json: [:]).status == 200)
        let heard = await Self.replay(world, .stripe, payment, copies: 8)
        #expect(heard?.acknowledged == 8, "Stripe announced the cancel: \(String(describing: heard))")
        let records = try await world.store.refunds(orderID: id)
        #expect(records.map(\.reason) == ["voided"] && records.first?.status == .succeeded, "\(records)")
        await world.stop()
    }
}
