import ApplePay
import Cashier
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// An authorisation the processor accepts without deciding it — a Stripe PaymentIntent left
/// `processing`, an Adyen payment answered `Received` — is not money: the order stays pending until
/// the processor decides, and is paid (or its attempt failed) once — by its webhook
/// (`payment_intent.succeeded` / `payment_intent.payment_failed`, Adyen's `AUTHORISATION`),
/// however many copies reach however many instances, or, at Stripe, by the query fallback when
/// the word is lost, or both at once. The sandbox's processors leave an amount ending in 56
/// undecided until `POST /sandbox/{stripe|adyen}/decide`.
@Suite struct UndecidedAuthorisationTests {
    /// A world whose processor sends its webhooks to instance 0, and whose instances ask about a
    /// pending payment at once (no wait before the query fallback).
    static func world(
        _ processor: CardProcessor, _ backend: MoneyWorld.Backend, capture: MerchantConfiguration.ApplePay.Capture = .automatic
    )
        async throws -> MoneyWorld
    {
        switch processor {
        case .stripe: try await StripeWebhookTests.world(backend, capture: capture) { $0.queryAfter = 0 }
        case .adyen: try await AdyenWebhookTests.world(backend, capture: capture) { $0.queryAfter = 0 }
        }
    }

    /// An order of `amount` whose Apple Pay token the processor accepted without deciding: its id and payment.
    static func undecided(_ world: MoneyWorld, _ amount: String) async throws -> (id: String, payment: StoredPayment) {
        let order = try await world.order(amount)
        _ = try await world.start(order.id, "applepay")
        return (order.id, try await undecided(world, order: order.id))
    }

    /// A new Apple Pay token for order `id`, accepted without deciding: its payment.
    static func undecided(_ world: MoneyWorld, order id: String) async throws -> StoredPayment {
        let answer = try await world.authorize(id, token: try await world.token(for: id))
        try #require(answer.status == 200, "\(answer.object)")
        #expect(answer.object["status"] as? Int == 0, "the sheet completes: \(answer.object)")
        #expect(answer.object["order_status"] as? String == "pending", "\(answer.object)")
        #expect((answer.object["message"] as? String ?? "").contains("processing"), "\(answer.object)")
        let paymentID = try #require(answer.object["payment_id"] as? String)
        let payment = try #require(try await world.store.payment(id: paymentID))
        #expect(payment.status == .pending && payment.transactionID != nil, "\(payment)")
        return payment
    }

    static func decide(_ world: MoneyWorld, _ processor: CardProcessor, _ payment: StoredPayment, _ outcome: String) async throws {
        let reference = payment.transactionID ?? ""
        let answer =
            switch processor {
            case .stripe:
                try await world.sandboxCall("POST", "/sandbox/stripe/decide", json: ["payment_intent": reference, "outcome": outcome])
            case .adyen:
                try await world.sandboxCall("POST", "/sandbox/adyen/decide", json: ["psp_reference": reference, "outcome": outcome])
            }
        try #require(answer.status == 200, "\(answer.object)")
    }

    /// Every copy of the processor's word on the payment, at once, to every instance.
    static func replay(_ world: MoneyWorld, _ processor: CardProcessor, _ payment: StoredPayment, succeeded: Bool, copies: Int) async
        -> (sent: Int, acknowledged: Int)?
    {
        let (key, path) =
            switch processor {
            case .stripe:
                (
                    "\(succeeded ? "payment_intent.succeeded" : "payment_intent.payment_failed") \(payment.transactionID ?? "")",
                    "/notify/stripe"
                )
            case .adyen: ("AUTHORISATION \(payment.outTradeNo)", "/notify/adyen")
            }
        let urls = world.servers.map { URL(string: $0.baseURL.absoluteString + path)! }
        return await world.sandbox.delivery.replay(key: key, copies: copies, to: urls)
    }

    /// The order's log: how many times it became `status`.
    static func transitions(_ world: MoneyWorld, _ id: String, to status: PaymentStatus) async throws -> Int {
        try await world.store.events(orderID: id).filter { $0.to == status }.count
    }

    @Test(.timeLimit(.minutes(3)), arguments: CardProcessor.cases)
    func anUndecidedPaymentIsPaidOnlyWhenTheProcessorSaysSoAndOnce(processor: CardProcessor, backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(processor, backend)
        let (id, payment) = try await Self.undecided(world, "20.56")
        // Nothing is paid, and asking finds it still undecided (or cannot ask: Adyen).
        for server in world.servers { #expect(try await server.queryPendingPayments() == 0) }
        #expect(try await world.status(id) == "pending")
        // It cannot be closed while the processor decides (it cannot cancel it), and stays as it was.
        let close = try await world.call("POST", "/v1/orders/\(id)/close", json: [:])
        #expect(
            close.status == 409 && close.errorCode == "payment_in_progress" && close.errorMessage.contains("processor"), "\(close.object)")
        #expect(try await world.status(id) == "pending")
        // Nor does it take another payment meanwhile (both could be charged): another token, another wallet.
        let again = try await world.authorize(id, token: try await world.token(for: id))
        #expect(again.status == 409 && again.errorCode == "payment_in_progress", "\(again.object)")
        let wechat = try await world.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"])
        #expect(wechat.status == 409 && wechat.errorMessage.contains("decision"), "\(wechat.object)")
        #expect(try await world.store.payments(orderID: id).count == 1)
        await world.settled()
        #expect(world.webhooks("order.paid", order: id).isEmpty)

        try await Self.decide(world, processor, payment, "succeeded")
        #expect(try await world.waitFor(id, .paid), "the processor's word pays it")
        // Every copy of the word and every instance's question at once: paid once.
        async let replayed = Self.replay(world, processor, payment, succeeded: true, copies: 24)
        await withTaskGroup(of: Void.self) { group in
            for server in world.servers { for _ in 0..<4 { group.addTask { _ = try? await server.queryPendingPayments() } } }
        }
        let copies = await replayed
        #expect(copies?.sent == 24 && copies?.acknowledged == 24, "\(String(describing: copies))")
        #expect(try await Self.transitions(world, id, to: .paid) == 1)
        let paid = try #require(try await world.store.payment(id: payment.id))
        #expect(paid.status == .succeeded && paid.transactionID == payment.transactionID && !paid.refundRequired, "\(paid)")
        await world.settled()  // a late second one would have been sent by now
        #expect(world.webhooks("order.paid", order: id).count == 1)
        try await world.expectBooksAgreeThenStop()
    }

    /// The processor refuses it: the attempt fails with its words, once, the order takes another
    /// payment, and that one is paid when the processor says so.
    @Test(.timeLimit(.minutes(3)), arguments: CardProcessor.cases)
    func anUndecidedPaymentRefusedLeavesTheOrderToBePaidAgain(processor: CardProcessor, backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(processor, backend)
        let (id, payment) = try await Self.undecided(world, "21.56")
        try await Self.decide(world, processor, payment, "failed")
        await world.settled()
        #expect(try await world.store.payment(id: payment.id)?.status == .failed)
        let replayed = await Self.replay(world, processor, payment, succeeded: false, copies: 12)
        #expect(replayed?.acknowledged == 12)
        let failed = try #require(try await world.store.payment(id: payment.id))
        let words = processor == .stripe ? "Your card was declined" : "Refused"
        #expect(failed.failureReason?.contains(words) == true, "\(failed)")
        #expect(try await world.store.events(orderID: id).filter { $0.kind == .applePayDeclined }.count == 1)
        #expect(try await world.status(id) != "paid")

        let second = try await Self.undecided(world, order: id)
        #expect(second.id != payment.id && second.transactionID != payment.transactionID)
        try await Self.decide(world, processor, second, "succeeded")
        #expect(try await world.waitFor(id, .paid))
        #expect(try await world.store.order(id: id)?.settledPaymentID == second.id)
        await world.settled()
        #expect(world.webhooks("order.paid", order: id).count == 1)
        try await world.expectBooksAgreeThenStop()
    }

    /// Stripe's word is lost (its events go nowhere): the query fallback finds each decision, and
    /// many questions at once, at every instance, record each once — held for a manual capture, or
    /// failed — while one still undecided stays pending until Stripe decides it.
    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func anUndecidedPaymentWhoseWordIsLostIsFoundByTheQuery(backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(.stripe, backend, capture: .manual)
        _ = try await world.sandboxCall(
            "POST", "/sandbox/stripe/webhook", json: ["url": "http://127.0.0.1:9/lost", "secret": "whsec_lost"])
        var orders: [(id: String, payment: StoredPayment)] = []
        for amount in ["30.56", "31.56", "32.56", "33.56"] { orders.append(try await Self.undecided(world, amount)) }
        try await Self.decide(world, .stripe, orders[0].payment, "succeeded")
        try await Self.decide(world, .stripe, orders[1].payment, "succeeded")
        try await Self.decide(world, .stripe, orders[2].payment, "failed")
        await world.settled()  // the words went to the lost address; nothing else is under way
        #expect(try await world.store.order(id: orders[0].id)?.status == .pending, "no word arrived")
        await withTaskGroup(of: Void.self) { group in
            for server in world.servers { for _ in 0..<4 { group.addTask { _ = try? await server.queryPendingPayments() } } }
            for (index, order) in orders.enumerated() {
                group.addTask { _ = try? await world.call("GET", "/v1/orders/\(order.id)", via: index) }
            }
        }
        for order in orders[0...1] {
            #expect(try await world.store.order(id: order.id)?.status == .paid)
            #expect(try await Self.transitions(world, order.id, to: .paid) == 1)
            #expect(try await world.store.payment(id: order.payment.id)?.capture == .uncaptured, "held for the manual capture")
            await world.settled()
            #expect(world.webhooks("order.paid", order: order.id).count == 1)
        }
        let failed = try #require(try await world.store.payment(id: orders[2].payment.id))
        #expect(failed.status == .failed && failed.failureReason?.contains("requires_payment_method") == true, "\(failed)")
        #expect(try await world.store.payment(id: orders[3].payment.id)?.status == .pending)
        #expect(try await world.store.order(id: orders[3].id)?.status == .pending)
        // The held one is captured as any other.
        let capture = try await world.call("POST", "/v1/orders/\(orders[0].id)/capture", json: [:])
        #expect(capture.status == 200, "\(capture.object)")
        try await Self.decide(world, .stripe, orders[3].payment, "succeeded")
        // Asked again once its wait (doubling from the first question) is over.
        #expect(
            try await eventually(interval: .milliseconds(200)) {
                _ = try await world.servers[0].queryPendingPayments()
                return try await world.store.order(id: orders[3].id)?.status == .paid
            })
        try await world.expectBooksAgreeThenStop()
    }

    /// A verified event whose amount is not the payment's is refused and logged, and moves
    /// nothing; one not signed with the endpoint's secret is refused before it is read.
    @Test(.timeLimit(.minutes(2)))
    func aWordOnAnotherAmountOrUnsignedMovesNothing() async throws {
        let world = try await Self.world(.stripe, .sqlite)
        let (id, payment) = try await Self.undecided(world, "22.56")
        func event(_ amount: Int) -> String {
            """
            {"id":"evt_forged_\(amount)","object":"event","type":"payment_intent.succeeded","livemode":false,"data":{"object":\
            {"id":"\(payment.transactionID ?? "")","object":"payment_intent","amount":\(amount),"currency":"cny","status":"succeeded",\
            "metadata":{"cashier_payment":"\(payment.outTradeNo)"}}}}
            """
        }
        #expect(try await StripeWebhookTests.post(event(1), to: world) == 200)
        #expect(try await StripeWebhookTests.post(event(2256), to: world, secret: "whsec_someone_else") == 401)
        await world.settled()
        #expect(try await world.store.payment(id: payment.id)?.status == .pending)
        #expect(try await world.store.order(id: id)?.status == .pending)
        let log = try await world.store.events(orderID: id).map(\.kind)
        #expect(log.contains(.notificationRefused), "\(log)")
        // The right amount, signed: paid.
        #expect(try await StripeWebhookTests.post(event(2256), to: world) == 200)
        #expect(try await world.waitFor(id, .paid))
        await world.stop()
    }
}
