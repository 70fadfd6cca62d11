import ApplePay
import Cashier
import CashierCurl
import CashierSandbox
import Foundation
import Testing

/// Apple Pay recurring payments through Stripe and Adyen against the sandbox's simulators: a
/// first payment stores the card (Stripe's Customer and attached PaymentMethod, Adyen's token
/// under the shopper reference), merchant-initiated charges take it again with typed declines
/// (insufficient funds retryable; authentication required, a card not held, an expired card
/// not), another shopper's card and a removed one are refused, a repeated key charges once.
@Suite struct RecurringProcessorTests {
    typealias World = ProcessorTests.World

    static func processors(_ world: World) -> [(String, any ApplePay.RecurringProcessor, ProcessorSandbox)] {
        [("stripe", world.stripe, world.sandbox.stripe.core), ("adyen", world.adyen, world.sandbox.adyen.core)]
    }

    static func usd(_ text: String) throws -> Money { try Money(decimal: text, currency: .usd) }

    /// `POST {sandbox}{path}` with a JSON body: the status.
    static func control(_ world: World, _ path: String, _ body: [String: Any]) async throws -> Int {
        try await CurlTransport().send(
            HTTPRequest(
                method: "POST", url: URL(string: world.sandbox.baseURL.absoluteString.trimmingCharacters(in: ["/"]) + path)!,
                headers: ["Content-Type": "application/json"], body: try JSONSerialization.data(withJSONObject: body))
        ).status
    }

    static func declinePath(_ name: String, _ method: ApplePay.StoredPaymentMethod) -> String {
        name == "stripe"
            ? "/sandbox/stripe/payment_methods/\(method.method)/decline" : "/sandbox/adyen/stored_payment_methods/\(method.method)/decline"
    }

    @Test func storeThenChargeMerchantInitiatedWithTypedDeclines() async throws {
        let world = try await World()
        for (name, processor, simulator) in Self.processors(world) {
            let first = try await processor.authorize(
                try await world.authorization("20.00", reference: "\(name)-first"),
                storing: ApplePay.RecurringTerms(shopperReference: "agr_\(name)_1"))
            guard case .authorized(let firstReference) = first.decision, let stored = first.stored else {
                Issue.record("\(name): \(first)")
                continue
            }
            #expect(simulator.processor.entry(firstReference)?.status == .captured, "\(name)")
            if name == "stripe" {
                #expect(stored.shopper.hasPrefix("cus_") && stored.method.hasPrefix("pm_"), "\(stored)")
            } else {
                #expect(stored.shopper == "agr_adyen_1" && stored.method.count == 16, "\(stored)")
            }
            #expect(ApplePay.StoredPaymentMethod(reference: stored.reference) == stored)
            #expect(try await processor.holds(stored), "\(name)")

            // A later charge, the payer absent: a new payment of its own amount.
            let second = try await processor.charge(
                stored, amount: try Self.usd("9.90"), reference: "\(name)-2", idempotencyKey: "\(name)-2", model: .subscription)
            guard case .authorized(let secondReference) = second else {
                Issue.record("\(name): \(second)")
                continue
            }
            #expect(secondReference != firstReference)
            let entry = simulator.processor.entry(secondReference)
            let charged = try Self.usd("9.90")
            #expect(entry?.status == .captured && entry?.amount == charged && entry?.merchantReference == "\(name)-2")
            // The same key again: the first answer, nothing charged twice.
            let again = try await processor.charge(
                stored, amount: try Self.usd("9.90"), reference: "\(name)-2", idempotencyKey: "\(name)-2", model: .subscription)
            #expect(again == second, "\(name)")
            #expect(simulator.processor.entries.filter { $0.merchantReference == "\(name)-2" }.count == 1)

            // Declines: the control declines the next charge once; the one after passes.
            #expect(try await Self.control(world, Self.declinePath(name, stored), ["code": "insufficient_funds"]) == 200)
            let poor = try await processor.charge(
                stored, amount: try Self.usd("9.90"), reference: "\(name)-3", idempotencyKey: "\(name)-3", model: .subscription)
            #expect(poor.declineReason == .insufficientFunds && poor.declineReason?.isRetryable == true, "\(name): \(poor)")
            let retried = try await processor.charge(
                stored, amount: try Self.usd("9.90"), reference: "\(name)-3b", idempotencyKey: "\(name)-3b", model: .subscription)
            guard case .authorized = retried else {
                Issue.record("\(name): the retry after insufficient funds: \(retried)")
                continue
            }
            #expect(try await Self.control(world, Self.declinePath(name, stored), ["code": "authentication_required"]) == 200)
            let present = try await processor.charge(
                stored, amount: try Self.usd("9.90"), reference: "\(name)-4", idempotencyKey: "\(name)-4", model: .subscription)
            #expect(present.declineReason == .authenticationRequired && present.declineReason?.isRetryable == false, "\(name): \(present)")
            #expect(try await Self.control(world, Self.declinePath(name, stored), ["code": "expired_card"]) == 200)
            let expired = try await processor.charge(
                stored, amount: try Self.usd("9.90"), reference: "\(name)-4b", idempotencyKey: "\(name)-4b", model: .subscription)
            #expect(expired.declineReason == .expiredCard && expired.declineReason?.isRetryable == false, "\(name): \(expired)")
            // The sandbox's amounts decline as for any payment.
            let short = try await processor.charge(
                stored, amount: try Self.usd("9.51"), reference: "\(name)-5", idempotencyKey: "\(name)-5", model: .subscription)
            #expect(short.declineReason == .insufficientFunds, "\(name): \(short)")
            // A control naming no stored card, or no code it knows, is refused.
            #expect(try await Self.control(world, Self.declinePath(name, stored), ["code": "stolen"]) == 400)
            let unknown = ApplePay.StoredPaymentMethod(shopper: stored.shopper, method: name == "stripe" ? "pm_nope" : "NOPE")
            #expect(try await Self.control(world, Self.declinePath(name, unknown), ["code": "card_declined"]) == 404)

            // Another shopper's card is not theirs to charge.
            let other = try await processor.authorize(
                try await world.authorization("21.00", reference: "\(name)-other"),
                storing: ApplePay.RecurringTerms(shopperReference: "agr_\(name)_2"))
            let stolen = ApplePay.StoredPaymentMethod(shopper: try #require(other.stored).shopper, method: stored.method)
            let refused = try await processor.charge(
                stolen, amount: try Self.usd("9.90"), reference: "\(name)-6", idempotencyKey: "\(name)-6", model: .subscription)
            #expect(refused.declineReason == .paymentMethodUnavailable, "\(name): \(refused)")
            #expect(try await !processor.holds(stolen))

            // Removed: not held, not charged, and removing again says so.
            #expect(try await processor.remove(stored, idempotencyKey: "\(name)-remove"))
            #expect(try await !processor.holds(stored))
            let gone = try await processor.charge(
                stored, amount: try Self.usd("9.90"), reference: "\(name)-7", idempotencyKey: "\(name)-7", model: .subscription)
            #expect(gone.declineReason == .paymentMethodUnavailable && gone.declineReason?.isRetryable == false, "\(name): \(gone)")
            #expect(try await !processor.remove(stored, idempotencyKey: "\(name)-remove-again"))
            #expect(try await processor.holds(try #require(other.stored)), "\(name): the other shopper's card stays")
        }
        await world.stop()
    }

    /// One merchant-initiated charge sent many times at once under its key (a job on several
    /// instances, retries after lost answers): one payment at the processor, one answer for all.
    @Test func aChargeSentManyTimesAtOnceChargesOnce() async throws {
        let world = try await World()
        for (name, processor, simulator) in Self.processors(world) {
            let first = try await processor.authorize(
                try await world.authorization("20.00", reference: "\(name)-burst-first"),
                storing: ApplePay.RecurringTerms(shopperReference: "agr_\(name)_burst"))
            let stored = try #require(first.stored, "\(name)")
            let amount = try Self.usd("9.90")
            let answers = try await withThrowingTaskGroup(of: ApplePay.ProcessorDecision.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        // An unknown outcome (the key busy past the retries) is asked again under the same key.
                        for _ in 0..<20 {
                            do {
                                return try await processor.charge(
                                    stored, amount: amount, reference: "\(name)-burst", idempotencyKey: "\(name)-burst",
                                    model: .subscription)
                            } catch let error as PaymentError where error.code == .transport {
                                continue
                            }
                        }
                        throw PaymentError(.transport, "the charge never answered")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(answers.map { "\($0)" }).count == 1, "\(name): \(answers)")
            guard case .authorized = answers.first else {
                Issue.record("\(name): \(answers)")
                continue
            }
            #expect(simulator.processor.entries.filter { $0.merchantReference == "\(name)-burst" }.count == 1, "\(name)")
        }
        await world.stop()
    }

    /// Stripe's two-step flow: a PaymentMethod made from the token, named on a PaymentIntent for a
    /// Customer with `setup_future_usage`: that PaymentMethod is the one attached, and charged later.
    @Test func stripesNamedPaymentMethodIsTheOneAttached() async throws {
        let world = try await World()
        func post(_ path: String, _ fields: [(String, String)]) async throws -> [String: Any] {
            let answer = try await CurlTransport().send(
                HTTPRequest(
                    method: "POST", url: URL(string: world.sandbox.stripeURL.absoluteString + path)!,
                    headers: ["Authorization": "Bearer sk_test_x", "Content-Type": "application/x-www-form-urlencoded"],
                    body: Data(FormEncoding.encode(fields).utf8)))
            return (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
        }
        let token = try await world.authorization("20.00").token
        let tokenID = try #require(
            try await post("/v1/tokens", [("pk_token", String(decoding: try token.paymentDataJSON(), as: UTF8.self))])["id"] as? String)
        let method = try #require(try await post("/v1/payment_methods", [("type", "card"), ("card[token]", tokenID)])["id"] as? String)
        let customer = try #require(try await post("/v1/customers", [("description", "two-step")])["id"] as? String)
        let first = try await post(
            "/v1/payment_intents",
            [
                ("amount", "2000"), ("currency", "usd"), ("customer", customer), ("payment_method", method),
                ("setup_future_usage", "off_session"), ("confirm", "true"),
            ])
        #expect(first["status"] as? String == "succeeded" && first["payment_method"] as? String == method, "\(first)")
        let stored = ApplePay.StoredPaymentMethod(shopper: customer, method: method)
        #expect(try await world.stripe.holds(stored))
        let later = try await world.stripe.charge(
            stored, amount: try Self.usd("5.00"), reference: "two-step-2", idempotencyKey: "two-step-2", model: .subscription)
        guard case .authorized = later else {
            Issue.record("\(later)")
            return
        }
        await world.stop()
    }

    @Test func aDeclinedFirstPaymentStoresNothing() async throws {
        let world = try await World()
        for (name, processor, _) in Self.processors(world) {
            let first = try await processor.authorize(
                try await world.authorization("20.00", card: "4000000000009995", reference: "\(name)-poor"),
                storing: ApplePay.RecurringTerms(shopperReference: "agr_\(name)_poor"))
            #expect(first.stored == nil && first.decision.declineReason == .insufficientFunds, "\(name): \(first)")
        }
        await world.stop()
    }

    @Test func adyenBodiesNameTheRecurringFields() async throws {
        let world = try await World()
        let authorization = try await world.authorization("20.00", reference: "body")
        let storing = try world.adyen.storingBody(authorization, terms: .init(shopperReference: "agr_body", model: .cardOnFile))
        #expect(storing["storePaymentMethod"] as? Bool == true && storing["shopperReference"] as? String == "agr_body")
        #expect(storing["shopperInteraction"] as? String == "Ecommerce" && storing["recurringProcessingModel"] as? String == "CardOnFile")
        let charge = world.adyen.chargeBody(
            .init(shopper: "agr_body", method: "ABC"), amount: try Self.usd("1.00"), reference: "r", model: .subscription)
        #expect(charge["shopperInteraction"] as? String == "ContAuth" && charge["recurringProcessingModel"] as? String == "Subscription")
        #expect((charge["paymentMethod"] as? [String: String]) == ["type": "applepay", "storedPaymentMethodId": "ABC"])
        #expect(charge["shopperReference"] as? String == "agr_body")
        await world.stop()
    }

    /// What storing and merchant-initiated charging need, refused on the wire as the processors do.
    @Test func theSandboxesRefuseChargesWithoutWhatTheyNeed() async throws {
        let world = try await World()
        func send(_ url: URL, _ body: Data, _ headers: HTTPHeaders) async throws -> (Int, [String: Any]) {
            let answer = try await CurlTransport().send(HTTPRequest(method: "POST", url: url, headers: headers, body: body))
            return (answer.status, (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:])
        }
        func stripe(_ fields: [(String, String)]) async throws -> (Int, [String: Any]) {
            try await send(
                URL(string: world.sandbox.stripeURL.absoluteString + "/v1/payment_intents")!, Data(FormEncoding.encode(fields).utf8),
                ["Authorization": "Bearer sk_test_x", "Content-Type": "application/x-www-form-urlencoded"])
        }
        func adyen(_ body: [String: Any]) async throws -> (Int, [String: Any]) {
            try await send(
                URL(string: world.sandbox.adyenURL.absoluteString + "/payments")!, try JSONSerialization.data(withJSONObject: body),
                ["X-API-Key": "AQE_x", "Content-Type": "application/json"])
        }
        let customer = try await send(
            URL(string: world.sandbox.stripeURL.absoluteString + "/v1/customers")!, Data(), ["Authorization": "Bearer sk_test_x"])
        let customerID = try #require(customer.1["id"] as? String)
        let money = [("amount", "500"), ("currency", "usd"), ("confirm", "true")]
        // off_session without a stored method, or with one not attached to the Customer; an unknown Customer.
        let noMethod = try await stripe(money + [("customer", customerID), ("off_session", "true")])
        #expect(noMethod.0 == 400 && (noMethod.1["error"] as? [String: Any])?["param"] as? String == "payment_method")
        let detached = try await stripe(money + [("customer", customerID), ("off_session", "true"), ("payment_method", "pm_nope")])
        #expect(detached.0 == 400 && (detached.1["error"] as? [String: Any])?["param"] as? String == "payment_method")
        let stranger = try await stripe(money + [("customer", "cus_nope"), ("off_session", "true"), ("payment_method", "pm_nope")])
        #expect(stranger.0 == 404 && (stranger.1["error"] as? [String: Any])?["param"] as? String == "customer")
        let unconfirmed = try await stripe(
            [("amount", "500"), ("currency", "usd"), ("customer", customerID), ("off_session", "true"), ("payment_method", "pm_x")])
        #expect(unconfirmed.0 == 400)

        // Adyen: storing needs a shopper reference and a model; a stored method needs ContAuth and its shopper.
        let authorization = try await world.authorization("20.00", reference: "raw")
        var storing = try world.adyen.storingBody(authorization, terms: .init(shopperReference: "agr_raw"))
        storing["shopperReference"] = nil
        #expect(try await adyen(storing).0 == 422)
        storing["shopperReference"] = "agr_raw"
        storing["recurringProcessingModel"] = "Sometimes"
        #expect(try await adyen(storing).0 == 422)
        let stored = try #require(
            try await world.adyen.authorize(
                try await world.authorization("20.00", reference: "raw2"), storing: .init(shopperReference: "agr_raw")
            ).stored)
        var charge = world.adyen.chargeBody(stored, amount: try Self.usd("5.00"), reference: "raw3", model: .subscription)
        charge["shopperInteraction"] = "Ecommerce"
        #expect(try await adyen(charge).0 == 422)
        charge["shopperInteraction"] = "ContAuth"
        charge["merchantAccount"] = "AnotherAccount"
        let elsewhere = try await adyen(charge)
        #expect(elsewhere.0 == 422 && elsewhere.1["errorCode"] as? String == "800", "\(elsewhere.1)")
        charge["merchantAccount"] = "CashierTest"
        let paid = try await adyen(charge)
        #expect(paid.0 == 200 && paid.1["resultCode"] as? String == "Authorised", "\(paid.1)")
        await world.stop()
    }

    @Test(arguments: ["", "cus_1", "/pm_1", "cus_1/"])
    func aReferenceWithoutBothPartsIsNone(_ text: String) {
        #expect(ApplePay.StoredPaymentMethod(reference: text) == nil)
    }

    @Test func aShopperReferenceMayHoldASlash() {
        let method = ApplePay.StoredPaymentMethod(shopper: "merchant/agr_1", method: "ABC")
        #expect(ApplePay.StoredPaymentMethod(reference: method.reference) == method)
    }
}

extension ApplePay.ProcessorDecision {
    /// The reason of a decline; `nil` for any other answer.
    var declineReason: ApplePay.DeclineReason? {
        if case .declined(let reason, _) = self { return reason }
        return nil
    }
}
