import ApplePay
import Cashier
import CashierCurl
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Adyen's webhooks (`POST /notify/adyen`): with the HMAC key configured, a refund Adyen answers
/// `received` is accepted, then confirmed or failed by its `REFUND` webhook — once, however many
/// copies arrive at however many instances — and a webhook that does not verify changes nothing.
@Suite struct AdyenWebhookTests {
    static let hmacKey = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"

    /// A world whose Apple Pay goes through the sandbox's Adyen, which sends its webhooks to instance 0.
    static func world(
        _ backend: MoneyWorld.Backend, capture: MerchantConfiguration.ApplePay.Capture = .automatic,
        configure: (inout MerchantConfiguration) -> Void = { _ in }
    ) async throws -> MoneyWorld {
        let world = try await MoneyWorld(backend) { configuration in
            configuration.applePay?.capture = capture
            configure(&configuration)
            guard let port = configuration.wechat?.baseURL.port else { return }
            configuration.applePay?.processor = ApplePay.AdyenProcessor(
                apiKey: "AQE_world", merchantAccount: "CashierWorld", baseURL: URL(string: "http://127.0.0.1:\(port)/adyen/v72")!,
                transport: ServerFixture.transport)
            configuration.applePay?.adyenHMACKey = hmacKey
            configuration.refundCheckAfter = 0  // the refund job (run by hand) looks at every refund at once
        }
        let setUp = try await world.sandboxCall(
            "POST", "/sandbox/adyen/webhook", json: ["url": world.base(0) + "/notify/adyen", "hmac_key": hmacKey])
        try #require(setUp.status == 200, "\(setUp.object)")
        return world
    }

    @Test(.timeLimit(.minutes(3)), arguments: MoneyWorld.Backend.available)
    func refundsWaitForAdyensWordAndTakeItOnce(backend: MoneyWorld.Backend) async throws {
        let world = try await Self.world(backend)
        let id = try await world.paidByApplePay("30.00")

        // Accepted (counted), then confirmed by the REFUND webhook.
        let first = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "5.00"])
        #expect(first.status == 200, "\(first.object)")
        #expect(first.object["status"] as? String == "partially_refunded")
        await world.settled()
        #expect(try await world.store.refunds(orderID: id).first?.confirmedAt != nil, "the REFUND webhook confirms the refund")
        let confirmed = try #require(try await world.store.refunds(orderID: id).first)
        #expect(confirmed.status == .succeeded && confirmed.providerRefundID?.hasPrefix("MOD") == true)

        // Received, then refused by the webhook: the amount goes back to the order, announced once.
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "fail_later"]).status == 200)
        let second = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "7.00"])
        // Adyen's webhook may land before the API's own answer is recorded: then the call already says it failed.
        #expect(second.status == 200 || (second.status == 502 && second.errorCode == "refund_failed"), "\(second.object)")
        await world.settled()
        #expect(try await world.store.refunds(orderID: id).contains { $0.status == .failed }, "the failing REFUND webhook fails the refund")
        let failed = try #require(try await world.store.refunds(orderID: id).first { $0.status == .failed })
        #expect(failed.failureReason?.contains("Adyen REFUND") == true, "\(failed.failureReason ?? "")")
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 500)
        await world.settled()
        #expect(world.webhooks("order.refund_failed", order: id).count == 1)

        // Every copy of both webhooks at once, across the instances: acknowledged, nothing moves again.
        let urls = world.servers.map { URL(string: $0.baseURL.absoluteString + "/notify/adyen")! }
        for refund in [confirmed, failed] {
            let replayed = await world.sandbox.delivery.replay(key: "cashier_\(refund.outRefundNo)_refund", copies: 24, to: urls)
            #expect(replayed?.sent == 24 && replayed?.acknowledged == 24, "\(String(describing: replayed))")
        }
        let after = try await world.store.refunds(orderID: id)
        #expect(after.filter { $0.status == .succeeded }.map(\.amount.minorUnits) == [500])
        #expect(after.filter { $0.status == .failed }.map(\.amount.minorUnits) == [700])
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 500)
        #expect(world.webhooks("order.refund_failed", order: id).count == 1)
        // The 7.00 is refundable again, and the books agree with Adyen's.
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "succeed"]).status == 200)
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "25.00"]).status == 200)
        await world.settled()
        #expect(try await world.store.refunds(orderID: id).allSatisfy { $0.status == .failed || $0.confirmedAt != nil })
        try await world.expectBooksAgreeThenStop()
    }

    @Test(.timeLimit(.minutes(2))) func aWebhookThatDoesNotVerifyChangesNothing() async throws {
        let world = try await Self.world(.sqlite)
        let id = try await world.paidByApplePay("20.00")
        #expect(try await world.sandboxCall("POST", "/sandbox/refund_outcome", json: ["outcome": "fail_later"]).status == 200)
        // Adyen's webhook is lost (pointed nowhere) — the refund stays accepted, waiting.
        try world.sandbox.adyen.sendWebhooks(to: "http://127.0.0.1:9/notify/adyen", hmacKey: Self.hmacKey)
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "4.00"]).status == 200)
        let refund = try #require(try await world.store.refunds(orderID: id).first)
        #expect(refund.status == .succeeded && refund.confirmedAt == nil)
        let payment = try #require(try await world.store.payment(id: refund.paymentID))

        func post(_ item: ApplePay.AdyenNotification, key: String = Self.hmacKey, tamper: (inout [String: Any]) -> Void = { _ in })
            async throws -> MoneyWorld.Answer
        { try await Self.post(item, to: world, key: key, tamper: tamper) }
        let failure = ApplePay.AdyenNotification(
            eventCode: "REFUND", success: false, pspReference: "MOD1", originalReference: payment.transactionID,
            merchantAccountCode: "CashierWorld", merchantReference: "cashier_\(refund.outRefundNo)_refund", value: 400, currency: "CNY",
            reason: "forged")
        let forged = try await post(failure, key: String(Self.hmacKey.reversed()))
        #expect(forged.status == 401 && String(decoding: forged.body, as: UTF8.self).contains("[refused]"))
        let tampered = try await post(failure) { $0["amount"] = ["value": 40_000, "currency": "CNY"] }
        #expect(tampered.status == 401)
        let unsigned = try await post(failure) { $0["additionalData"] = [:] }
        #expect(unsigned.status == 401)
        // Bodies that are not Adyen's at all: refused whole, the server still answering.
        let hostile = [
            "", "[]", "{", "null", String(repeating: "[", count: 20_000), #"{"notificationItems":"x"}"#,
            #"{"notificationItems":[{"NotificationRequestItem":{"eventCode":"REFUND","success":"true","pspReference":7}}]}"#,
            #"{"notificationItems":[{"NotificationRequestItem":{"eventCode":"REFUND","success":"true","pspReference":"M","#
                + #""amount":{"value":"400","currency":"CNY"},"additionalData":{"hmacSignature":"AAAA"}}}]}"#,
            #"{"notificationItems":[{"NotificationRequestItem":{"eventCode":"REFUND","success":"true","pspReference":"M","#
                + #""amount":{"value":1e400,"currency":"CNY"}}}]}"#,
        ]
        for body in hostile {
            let response = try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: world.base(0) + "/notify/adyen")!, headers: ["Content-Type": "application/json"],
                    body: Data(body.utf8)))
            // No body is no notification (400, nothing read); anything else is refused unverified (401).
            #expect(response.status == (body.isEmpty ? 400 : 401), "\(body.prefix(80)): \(response.status)")
        }
        // Signed, but for another payment or another amount: acknowledged, not applied.
        let variants = try await Self.statuses(of: failure, to: world, [{ $0.originalReference = "PSPsomeoneelse" }, { $0.value = 4_000 }])
        #expect(variants == [200, 200])
        let still = try #require(try await world.store.refunds(orderID: id).first)
        #expect(still.status == .succeeded && still.confirmedAt == nil)
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 400)
        // The refund job leaves an accepted Adyen refund waiting for the webhook (it does not fail it).
        _ = try await world.servers[0].settleRefunds()
        #expect(try await world.store.refunds(orderID: id).first?.status == .succeeded)
        // The genuine word, signed with the key: applied once.
        let genuine = try await post(failure)
        #expect(genuine.status == 200 && String(decoding: genuine.body, as: UTF8.self) == "[accepted]")
        #expect(try await world.store.refunds(orderID: id).first?.status == .failed)
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 0)
        await world.stop()
    }

    /// Captures and cancels are answered at once by Adyen's API; their webhooks (`CAPTURE`,
    /// `CANCELLATION`) are acknowledged and change nothing.
    @Test(.timeLimit(.minutes(2))) func captureAndCancellationWebhooksAreAcknowledged() async throws {
        let world = try await Self.world(.sqlite, capture: .manual)
        let captured = try await world.paidByApplePay("30.00")
        let voided = try await world.paidByApplePay("12.00")
        #expect(try await world.call("POST", "/v1/orders/\(captured)/capture", json: [:]).status == 200)
        #expect(try await world.call("POST", "/v1/orders/\(voided)/void", json: [:]).status == 200)
        let before = [try await world.orderJSON(captured), try await world.orderJSON(voided)].map { "\($0["status"] ?? "")" }
        #expect(before == ["paid", "refunded"])
        let payment = try #require(try await world.store.payments(orderID: captured).first { $0.status == .succeeded })
        let keys =
            ["cashier_\(payment.id)_capture"] + (try await world.store.refunds(orderID: voided).map { "cashier_\($0.outRefundNo)_void" })
        #expect(keys.count == 2)
        await world.settled()
        for key in keys {
            #expect(await world.sandbox.delivery.attempts(for: key).contains { $0.acknowledged }, "\(key) acknowledged")
        }
        let after = [try await world.orderJSON(captured), try await world.orderJSON(voided)].map { "\($0["status"] ?? "")" }
        #expect(after == before)
        try await world.expectBooksAgreeThenStop()
    }

    /// Posts `item` to instance 0's `/notify/adyen` as Adyen would, signed with `key`, after `tamper` changed it.
    static func post(
        _ item: ApplePay.AdyenNotification, to world: MoneyWorld, key: String = hmacKey, tamper: (inout [String: Any]) -> Void = { _ in }
    ) async throws -> MoneyWorld.Answer {
        var signed = try item.jsonObject(hmacKey: key)["NotificationRequestItem"] as! [String: Any]
        tamper(&signed)
        let body = ["live": "false", "notificationItems": [["NotificationRequestItem": signed]]] as [String: Any]
        return try await world.call("POST", "/notify/adyen", key: "", json: body, via: 0)
    }

    /// The statuses `/notify/adyen` answers to `item` changed each way (each signed as changed).
    static func statuses(
        of item: ApplePay.AdyenNotification, to world: MoneyWorld, _ changes: [(inout ApplePay.AdyenNotification) -> Void]
    ) async throws -> [Int] {
        var statuses: [Int] = []
        for change in changes {
            var changed = item
            change(&changed)
            statuses.append(try await post(changed, to: world).status)
        }
        return statuses
    }

    @Test func withoutAnHMACKeyTheRouteIsNotThere() async throws {
        let world = try await MoneyWorld(.sqlite)
        let answer = try await world.call("POST", "/notify/adyen", key: "", json: ["live": "false", "notificationItems": []], via: 0)
        #expect(answer.status == 404 && answer.errorMessage.contains("hmac_key"))
        await world.stop()
    }
}
