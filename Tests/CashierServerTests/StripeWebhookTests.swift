import ApplePay
import Cashier
import CashierCurl
import CashierHTTP
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Stripe's webhook events (`POST /notify/stripe`): with the endpoint's signing secret configured,
/// a refund that fails later is failed by its event without waiting for the refund job, a dispute's
/// withdrawn funds are recorded as gone back and its reinstated funds given back — once, however
/// many copies arrive at however many instances — and an event that does not verify changes nothing.
@Suite struct StripeWebhookTests {
    static let secret = "whsec_cashier_world_0123456789"

    /// A world whose sandbox Stripe sends its events to instance 0.
    static func world(
        _ backend: MoneyWorld.Backend, capture: MerchantConfiguration.ApplePay.Capture = .automatic,
        configure: (inout MerchantConfiguration) -> Void = { _ in }
    ) async throws -> MoneyWorld {
        let world = try await MoneyWorld(backend) { configuration in
            configuration.applePay?.capture = capture
            configuration.applePay?.stripeWebhookSecret = secret
            configuration.refundCheckAfter = 0
            configure(&configuration)
        }
        let setUp = try await world.sandboxCall(
            "POST", "/sandbox/stripe/webhook", json: ["url": world.base(0) + "/notify/stripe", "secret": secret])
        try #require(setUp.status == 200, "\(setUp.object)")
        return world
    }

    static func dispute(_ world: MoneyWorld, _ intent: String, _ event: String, _ amount: String? = nil) async throws {
        var body = ["payment_intent": intent, "event": event]
        if let amount { body["amount"] = amount }
        let answer = try await world.sandboxCall("POST", "/sandbox/stripe/dispute", json: body)
        try #require(answer.status == 200, "\(answer.object)")
    }

    /// Posts `body` to instance 0's `/notify/stripe`, signed with `secret` at `time`.
    static func post(_ body: String, to world: MoneyWorld, secret: String = secret, time: Date = Date()) async throws -> Int {
        let data = Data(body.utf8)
        let response = try await ServerFixture.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: world.base(0) + "/notify/stripe")!,
                headers: [
                    "Content-Type": "application/json",
                    "Stripe-Signature": try ApplePay.StripeEvent.signatureHeader(for: data, secret: secret, timestamp: time),
                ], body: data))
        return response.status
    }

    /// The sandbox Stripe's refunds, newest first (`GET /v1/refunds`).
    static func refundIDs(_ world: MoneyWorld) async throws -> [String] {
        let response = try await ServerFixture.transport.send(
            HTTPRequest(
                method: "GET", url: URL(string: world.sandbox.baseURL.absoluteString + "/stripe/v1/refunds")!,
                headers: ["Authorization": "Bearer sk_test_world"]))
        let list = (try JSONSerialization.jsonObject(with: response.body) as? [String: Any])?["data"] as? [[String: Any]]
        return (list ?? []).compactMap { $0["id"] as? String }
    }

    static func urls(_ world: MoneyWorld) -> [URL] {
        world.servers.map { URL(string: $0.baseURL.absoluteString + "/notify/stripe")! }
    }

    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func aRefundStripeFailsLaterIsFailedByItsEventOnce(backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(backend)
        let id = try await world.paidByApplePay("30.00")
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "fail_later"]).status == 200)
        let refund = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "7.00"])
        // The event may land before the API's own answer is recorded: then the call already says it failed.
        #expect(refund.status == 200 || (refund.status == 502 && refund.errorCode == "refund_failed"), "\(refund.object)")
        // No refund job runs here: the event alone fails it.
        await world.settled()
        #expect(try await world.store.refunds(orderID: id).first?.status == .failed, "charge.refund.updated fails the refund")
        let failed = try #require(try await world.store.refunds(orderID: id).first)
        #expect(failed.failureReason == "expired_or_canceled_card", "\(failed)")
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 0)
        await world.settled()
        #expect(world.webhooks("order.refund_failed", order: id).count == 1)

        // Every copy at once, across the instances: acknowledged, nothing moves again.
        let reference = try #require(try await Self.refundIDs(world).first)
        let replayed = await world.sandbox.delivery.replay(key: "charge.refund.updated \(reference)", copies: 24, to: Self.urls(world))
        #expect(replayed?.sent == 24 && replayed?.acknowledged == 24, "\(String(describing: replayed))")
        #expect(try await world.store.refunds(orderID: id).map(\.status) == [.failed])
        await world.settled()  // a second `order.refund_failed` would have been sent by now
        #expect(world.webhooks("order.refund_failed", order: id).count == 1)
        // The 7.00 is refundable again, and the books agree with Stripe's.
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "succeed"]).status == 200)
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "30.00"]).status == 200)
        try await world.expectBooksAgreeThenStop()
    }

    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func aDisputeTakesItsAmountOnceAndAWonDisputeGivesItBack(backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(backend)
        let id = try await world.paidByApplePay("40.00")
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
        let intent = try #require(payment.transactionID)
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "5.00"]).status == 200)

        // Opened: logged, nothing moves.
        try await Self.dispute(world, intent, "created")
        await world.settled()
        #expect(try await world.store.events(orderID: id).contains { $0.kind == .dispute })
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 500)

        // Funds withdrawn: all that was left goes back, announced once, however many copies arrive.
        try await Self.dispute(world, intent, "funds_withdrawn")
        await world.settled()
        #expect(try await world.status(id) == "refunded", "funds_withdrawn takes 35.00 back")
        let chargeback = try #require(try await world.store.refunds(orderID: id).first { $0.reason == "chargeback" })
        #expect(chargeback.amount.minorUnits == 3500 && chargeback.status == .succeeded && chargeback.requestedBy == "stripe")
        #expect(chargeback.providerRefundID?.hasPrefix("dp_") == true)
        let delivery = world.sandbox.delivery
        let replayed = await delivery.replay(key: "charge.dispute.funds_withdrawn \(intent)", copies: 24, to: Self.urls(world))
        #expect(replayed?.sent == 24 && replayed?.acknowledged == 24, "\(String(describing: replayed))")
        #expect(try await world.store.refunds(orderID: id).filter { $0.reason == "chargeback" }.count == 1)
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 4000)
        await world.settled()
        #expect(world.webhooks("order.refunded", order: id).count == 2)
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "1.00"]).status >= 400)
        var disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")
        // Reconciliation reads what the dispute took from Stripe's disputes.
        var report = try await world.reconcile()
        #expect((report["discrepancies"] as? [Any])?.isEmpty == true, "\(report)")

        // Won: the money is the merchant's again; late copies of both events at once move nothing.
        try await Self.dispute(world, intent, "funds_reinstated")
        await world.settled()
        #expect(try await world.status(id) == "partially_refunded")
        #expect(try await world.store.refunds(orderID: id).first { $0.reason == "chargeback" }?.status == .failed)
        async let late = delivery.replay(key: "charge.dispute.funds_withdrawn \(intent)", copies: 12, to: Self.urls(world))
        async let again = delivery.replay(key: "charge.dispute.funds_reinstated \(intent)", copies: 12, to: Self.urls(world))
        let (lateCopies, reinstatedAgain) = await (late, again)
        #expect(lateCopies?.acknowledged == 12 && reinstatedAgain?.acknowledged == 12)
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 500)
        await world.settled()
        #expect(world.webhooks("order.refund_failed", order: id).count == 1)
        #expect(try await world.store.events(orderID: id).filter { $0.kind == .dispute }.count >= 2)
        disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")
        report = try await world.reconcile()
        #expect((report["discrepancies"] as? [Any])?.isEmpty == true, "\(report)")
        await world.stop()
    }

    /// Refunds made in Stripe's Dashboard, without Cashier: recorded from their events, once, so the
    /// order's books follow the money — and one that fails is taken back, whichever event comes first.
    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func aRefundMadeInStripesDashboardIsRecordedOnce(backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(backend)
        let id = try await world.paidByApplePay("30.00")
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
        let intent = try #require(payment.transactionID)
        func dashboard(_ amount: String) async throws {
            let answer = try await world.sandboxCall(
                "POST", "/sandbox/stripe/dashboard_refund", json: ["payment_intent": intent, "amount": amount])
            try #require(answer.status == 200, "\(answer.object)")
        }
        try await dashboard("8.00")
        await world.settled()
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 800, "refund.created records it")
        let outside = try #require(try await world.store.refunds(orderID: id).first)
        #expect(
            outside.reason == "refunded at Stripe" && outside.requestedBy == "stripe" && outside.providerRefundID?.hasPrefix("re_") == true)
        #expect(outside.status == .succeeded && outside.confirmedAt != nil)
        let replayed = await world.sandbox.delivery.replay(
            key: "refund.created \(outside.providerRefundID ?? "")", copies: 24, to: Self.urls(world))
        #expect(replayed?.acknowledged == 24, "\(String(describing: replayed))")
        #expect(try await world.store.refunds(orderID: id).count == 1)
        await world.settled()
        #expect(world.webhooks("order.refunded", order: id).count == 1)

        // Pending, then failed (the events race): counted while pending at most, and given back.
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "fail_later"]).status == 200)
        try await dashboard("5.00")
        await world.settled()
        #expect(try await world.store.refunds(orderID: id).contains { $0.status == .failed && $0.amount.minorUnits == 500 })
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 800)
        let failed = try #require(try await world.store.refunds(orderID: id).first { $0.status == .failed })
        for key in ["refund.created", "charge.refund.updated"] {
            _ = await world.sandbox.delivery.replay(key: "\(key) \(failed.providerRefundID ?? "")", copies: 6, to: Self.urls(world))
        }
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 800)

        // Cashier refunds the rest; the books and the reconciliation agree with Stripe's.
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "succeed"]).status == 200)
        let rest = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "22.00"])
        #expect(rest.status == 200 && rest.object["status"] as? String == "refunded", "\(rest.object)")
        let disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")
        let report = try await world.reconcile()
        #expect((report["discrepancies"] as? [Any])?.isEmpty == true, "\(report)")
        await world.stop()
    }

    @Test(.timeLimit(.minutes(2))) func aForgedStaleOrMismatchedEventChangesNothing() async throws {
        let world = try await Self.world(.sqlite)
        let id = try await world.paidByApplePay("12.00")
        let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
        let intent = try #require(payment.transactionID)
        func dispute(_ intent: String, amount: Int = 1200, currency: String = "cny", type: String = "charge.dispute.funds_withdrawn")
            -> String
        {
            #"{"id":"evt_forged","object":"event","type":"\#(type)","data":{"object":{"id":"dp_forged","object":"dispute","amount":\#(amount),"currency":"\#(currency)","payment_intent":"\#(intent)","status":"needs_response","metadata":{}}}}"#
        }
        // Not signed with the endpoint's secret, or signed too long ago: 400, nothing read.
        #expect(try await Self.post(dispute(intent), to: world, secret: "whsec_someone_else") == 401)
        #expect(try await Self.post(dispute(intent), to: world, time: Date().addingTimeInterval(-600)) == 401)
        // Another PaymentIntent, another currency, more than is left: acknowledged, not applied.
        #expect(try await Self.post(dispute("pi_someoneelse"), to: world) == 200)
        #expect(try await Self.post(dispute(intent, currency: "usd"), to: world) == 200)
        #expect(try await Self.post(dispute(intent, amount: 1201), to: world) == 200)
        #expect(try await world.store.refunds(orderID: id).isEmpty)
        #expect(try await world.status(id) == "paid")
        let logged = try await world.store.events(orderID: id).filter { $0.kind == .dispute }.map(\.detail)
        #expect(logged.count == 2 && logged.allSatisfy { $0.contains("\"applied\"") }, "\(logged)")
        let metrics = String(decoding: try await world.call("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"cashier_reports_not_applied_total{provider="applepay",reason="no_amount"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"cashier_reports_not_applied_total{provider="applepay",reason="more_than_left"} 1"#))

        // A refund's event with another amount is logged as refused; the refund stands.
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "2.00"]).status == 200)
        let refund = try #require(try await world.store.refunds(orderID: id).first)
        let failure =
            #"{"id":"evt_r","object":"event","type":"charge.refund.updated","data":{"object":{"id":"\#(refund.providerRefundID ?? "")","object":"refund","amount":1200,"currency":"cny","payment_intent":"\#(intent)","status":"failed","failure_reason":"lost_or_stolen_card","metadata":{"cashier_refund":"cashier_\#(refund.outRefundNo)_refund"}}}}"#
        #expect(try await Self.post(failure, to: world) == 200)
        #expect(try await world.store.refunds(orderID: id).first?.status == .succeeded)
        #expect(try await world.store.events(orderID: id).contains { $0.kind == .notificationRefused })
        // The same event for the refund's own amount fails it.
        #expect(try await Self.post(failure.replacingOccurrences(of: "\"amount\":1200", with: "\"amount\":200"), to: world) == 200)
        #expect(try await world.store.refunds(orderID: id).first?.failureReason == "lost_or_stolen_card")
        await world.stop()
    }

    /// A record a dispute made and a crash left pending (reserved, not finished) is finished by the
    /// refund job without asking Stripe for a refund: the dispute took the money at Stripe already.
    @Test(.timeLimit(.minutes(2))) func theRefundJobAsksStripeNothingForADisputesRecord() async throws {
        let world = try await Self.world(.sqlite)
        let id = try await world.paidByApplePay("14.00")
        let reserved = try await world.store.reserveRefund(
            NewRefund(orderID: id, paymentID: nil, amount: nil, outRefundNo: "Rdisputed", reason: "chargeback", requestedBy: "stripe"),
            now: Date())
        #expect(reserved.refund.status == .pending)
        _ = try await world.servers[0].settleRefunds()
        #expect(try await world.store.refund(outRefundNo: "Rdisputed")?.status == .succeeded)
        #expect(world.sandbox.stripe.core.processor.entries.first?.refunded.minorUnits == 0, "Stripe was asked for nothing")
        await world.stop()
    }

    @Test func withoutASigningSecretTheRouteIsNotThere() async throws {
        let world = try await MoneyWorld(.sqlite) { $0.applePay?.stripeWebhookSecret = nil }
        let answer = try await world.call("POST", "/notify/stripe", key: "", json: ["id": "evt_1"], via: 0)
        #expect(answer.status == 404 && answer.errorMessage.contains("webhook_secret"))
        await world.stop()
    }
}
