import ApplePay
import Cashier
import CashierCurl
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Apple Pay through the merchant server and the sandbox's Stripe: authorisations held and
/// captured or voided (racing each other and refunds, on SQLite and across three instances on
/// PostgreSQL), the payment sheet built from the order and changed only through the server,
/// contacts kept, an outage at the processor, web sessions and the domain-association file.
@Suite(.serialized) struct ApplePayServerTests {
    typealias Backend = MoneyWorld.Backend

    func paid(_ world: MoneyWorld, _ amount: String) async throws -> (id: String, payment: [String: Any]) {
        let id = try await world.paidByApplePay(amount)
        let payment = try #require(
            (try await world.orderJSON(id)["payments"] as? [[String: Any]])?.first { $0["status"] as? String == "succeeded" })
        return (id, payment)
    }

    @Test(arguments: Backend.available)
    func heldPaymentsAreCapturedOrVoidedOnceAndTheBooksAgree(backend: Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.applePay?.capture = .manual }
        // Held, then captured in part: the rest is released and recorded as a refund.
        let partial = try await paid(world, "50.00")
        #expect(partial.payment["capture"] as? String == "uncaptured")
        #expect(try await world.status(partial.id) == "paid")
        let captured = try await world.call("POST", "/v1/orders/\(partial.id)/capture", json: ["amount": "30.00"])
        #expect(captured.status == 200 && captured.object["status"] as? String == "partially_refunded", "\(captured.object)")
        let capturedPayment = (captured.object["payments"] as? [[String: Any]])?.first { $0["status"] as? String == "succeeded" }
        #expect(capturedPayment?["capture"] as? String == "captured")
        #expect((captured.object["refunds"] as? [[String: Any]])?.first?["reason"] as? String == "released at capture")
        // Captured money is refunded as usual; capturing again is refused.
        let refunded = try await world.call("POST", "/v1/orders/\(partial.id)/refunds", json: ["amount": "10.00"])
        #expect(refunded.status == 200, "\(refunded.object)")
        let twice = try await world.call("POST", "/v1/orders/\(partial.id)/capture", json: [:])
        #expect(twice.status == 409 && twice.errorMessage.contains("only an uncaptured authorisation"), "\(twice.object)")
        // Held, then voided: all of it back, nothing moved.
        let voided = try await paid(world, "40.00")
        let void = try await world.call("POST", "/v1/orders/\(voided.id)/void", json: [:])
        #expect(void.status == 200 && void.object["status"] as? String == "refunded", "\(void.object)")
        let reference = try #require(voided.payment["transaction_id"] as? String)
        #expect(world.sandbox.stripe.core.processor.entry(reference)?.status == .voided)
        // Only the secret key captures; more than was authorised is refused, nothing changes.
        let held = try await paid(world, "20.00")
        let publishable = try await world.call("POST", "/v1/orders/\(held.id)/capture", key: world.keys.publishable, json: [:])
        #expect(publishable.status == 401)
        let tooMuch = try await world.call("POST", "/v1/orders/\(held.id)/capture", json: ["amount": "20.01"])
        let untouched = try await world.orderJSON(held.id)["refunds"] as? [Any]
        // The document allows any amount; the authorisation's size refuses it: 422, never 400.
        #expect(tooMuch.status == 422 && tooMuch.errorMessage.contains("authorised") && untouched?.isEmpty == true)

        try await Self.race(world, first: held.id)
        await world.stop()
    }

    /// Through Adyen, which answers every capture, cancel and refund `received` and says later by
    /// webhook which it did: the same races leave the books agreeing with Adyen's.
    @Test(.timeLimit(.minutes(3)), arguments: Backend.available)
    func heldPaymentsRaceThroughAdyenAndTheBooksAgree(backend: Backend) async throws {
        let world = try await AdyenWebhookTests.world(backend, capture: .manual)
        try await Self.race(world, first: try await paid(world, "20.00").id)
        await world.stop()
    }

    /// On each of six held orders (`first` and five more) a full capture, a void, a partial capture
    /// and two refunds at once, spread over the instances: one of them decides how the held money
    /// moves, the others follow it, and the ledger agrees with the processor's.
    static func race(_ world: MoneyWorld, first: String) async throws {
        var racing: [String] = [first]
        for _ in 0..<5 { racing.append(try await world.paidByApplePay("20.00")) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for id in racing {
                group.addTask { _ = try await world.call("POST", "/v1/orders/\(id)/capture", json: [:]) }
                group.addTask { _ = try await world.call("POST", "/v1/orders/\(id)/void", json: [:]) }
                group.addTask { _ = try await world.call("POST", "/v1/orders/\(id)/capture", json: ["amount": "15.00"]) }
                group.addTask { _ = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "5.00"]) }
                group.addTask { _ = try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "5.00"]) }
            }
            try await group.waitForAll()
        }
        // Anything the processor's answer did not settle is settled by the refund job.
        _ = try await world.servers[0].settleRefunds()
        for id in racing {
            let payment = try #require(try await world.store.payments(orderID: id).first { $0.status == .succeeded })
            #expect(payment.capture == .captured || payment.capture == .voided, "\(id): \(String(describing: payment.capture))")
            #expect(payment.reserved.minorUnits <= payment.amount.minorUnits)
        }
        // Adyen's webhooks have all arrived: nothing it refused is counted.
        await world.settled()
        let disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")
    }

    @Test func automaticCaptureHasNothingToCaptureOrVoid() async throws {
        let world = try await MoneyWorld(.sqlite)
        let order = try await paid(world, "12.00")
        #expect(order.payment["capture"] == nil)
        let capture = try await world.call("POST", "/v1/orders/\(order.id)/capture", json: [:])
        #expect(capture.status == 409 && capture.errorMessage.contains("captured as it was paid"))
        let void = try await world.call("POST", "/v1/orders/\(order.id)/void", json: [:])
        #expect(void.status == 409)
        let unpaid = try await world.order("3.00")
        #expect(try await world.call("POST", "/v1/orders/\(unpaid.id)/capture", json: [:]).status == 409)
        await world.stop()
    }

    /// The sheet is the order: one line per item (quantity × unit, discounts negative, estimates
    /// pending), the shipping method chosen, the merchant's name on the total. The app names a
    /// method or a code; the server reprices; a token for the old total is refused.
    @Test func theSheetIsTheOrderAndChangesOnlyThroughTheServer() async throws {
        let world = try await MoneyWorld(.sqlite) {
            $0.applePay?.shippingCountries = ["CN", "HK"]
            $0.applePay?.requiredShippingContactFields = [.postalAddress, .phone]
            $0.coupons.append(Coupon(code: "OLD", label: "Expired", discount: .percentOff(50), expiresAt: Date(timeIntervalSince1970: 0)))
        }
        let created = try await world.call(
            "POST", "/v1/orders",
            json: [
                "currency": "CNY", "description": "Breakfast",
                "items": [
                    ["label": "Latte", "amount": "12.00", "quantity": 2], ["label": "Bagel", "amount": "8.00"],
                    ["label": "Voucher", "amount": "-2.00"], ["label": "Tip", "amount": "3.00", "type": "pending"],
                ],
                "shipping_methods": [
                    ["identifier": "standard", "label": "Standard", "detail": "3-5 days", "amount": "0.00"],
                    ["identifier": "express", "label": "Express", "amount": "10.00"],
                ],
            ])
        try #require(created.status == 201, "\(created.object)")
        let id = try #require(created.object["id"] as? String)
        let secret = try #require(created.object["client_secret"] as? String)
        #expect((created.object["amount"] as? [String: Any])?["amount"] as? String == "33.00", "\(created.object)")
        // The payer first looked at WeChat's QR code: starting Apple Pay closes that attempt, so the
        // sheet may reprice the order (no wallet is left holding the old amount).
        _ = try await world.start(id, "wechat.native")
        let started = try await world.start(id, "applepay")
        let request = try #require(started["payment_request"] as? [String: Any])
        let lines = try #require(request["lineItems"] as? [[String: String]])
        #expect(lines.map { $0["label"] ?? "" } == ["2 × Latte", "Bagel", "Voucher", "Tip", "Standard"])
        #expect(lines.map { $0["amount"] ?? "" } == ["24.00", "8.00", "-2.00", "3.00", "0.00"])
        #expect(lines.map { $0["type"] ?? "" } == ["final", "final", "final", "pending", "final"])
        let total = try #require(request["total"] as? [String: String])
        #expect(total["label"] == "Cashier Sandbox" && total["amount"] == "33.00")
        #expect((request["shippingMethods"] as? [[String: String]])?.map { $0["identifier"] ?? "" } == ["standard", "express"])
        #expect(request["requiredShippingContactFields"] as? [String] == ["postalAddress", "phone"])

        // The app, with the publishable key and the client secret, picks express: +10.00.
        func update(_ body: [String: Any]) async throws -> MoneyWorld.Answer {
            var body = body
            body["client_secret"] = secret
            return try await world.call("POST", "/v1/orders/\(id)/payments/applepay/update", key: world.keys.publishable, json: body)
        }
        let oldToken = try await world.token(for: id)
        let express = try await update(["shipping_method": "express"])
        #expect(express.status == 200 && (express.object["newTotal"] as? [String: String])?["amount"] == "43.00", "\(express.object)")
        #expect((express.object["newLineItems"] as? [[String: String]])?.last?["label"] == "Express")
        #expect(try await world.store.order(id: id)?.total.minorUnits == 4300)
        // A token for the old total is refused, and the processor never hears of it.
        let before = world.processor.count
        let stale = try await world.authorize(id, token: oldToken)
        #expect(stale.object["status"] as? Int == 1 && (stale.object["message"] as? String)?.contains("43.00") == true, "\(stale.object)")
        #expect(world.processor.count == before)
        // Coupons: a good one takes 10% of the goods (33.00 → 3.30), a wrong or expired one is
        // the sheet's error and changes nothing.
        let coupon = try await update(["coupon_code": "welcome10"])
        #expect((coupon.object["newTotal"] as? [String: String])?["amount"] == "39.70", "\(coupon.object)")
        let wrong = try await update(["coupon_code": "NOPE"])
        #expect(((wrong.object["errors"] as? [[String: Any]])?.first)?["code"] as? String == "couponCodeInvalid")
        #expect((wrong.object["newTotal"] as? [String: String])?["amount"] == "39.70")
        let expired = try await update(["coupon_code": "old"])
        #expect(((expired.object["errors"] as? [[String: Any]])?.first)?["code"] as? String == "couponCodeExpired")
        // An address the merchant does not ship to: unserviceable, no methods.
        let abroad = try await update(["shipping_contact": ["countryCode": "US", "postalCode": "95014", "locality": "Cupertino"]])
        #expect(((abroad.object["errors"] as? [[String: Any]])?.first)?["code"] as? String == "addressUnserviceable")
        #expect((abroad.object["newShippingMethods"] as? [Any])?.isEmpty == true)
        let home = try await update(["shipping_contact": ["countryCode": "CN", "postalCode": "200000", "locality": "Shanghai"]])
        #expect((home.object["newShippingMethods"] as? [[String: String]])?.first?["identifier"] == "express", "\(home.object)")
        // Not offered, or two changes in one: refused.
        #expect(try await update(["shipping_method": "drone"]).status == 422)
        #expect(try await update(["shipping_method": "express", "coupon_code": "FIVE"]).status == 400)
        // Eight method changes at once: the order's lines and total still agree.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask { _ = try await update(["shipping_method": index % 2 == 0 ? "standard" : "express"]) }
            }
            try await group.waitForAll()
        }
        let settled = try #require(try await world.store.order(id: id))
        let items = try JSONDecoder().decode([LineItem].self, from: Data(settled.itemsJSON.utf8))
        #expect(try Money.sum(items.map(\.amount), currency: .cny) == settled.total)

        // Paid with contacts: they are kept on the payment; the sheet cannot change any more.
        let token = try JSONSerialization.jsonObject(with: try await world.token(for: id)) as? [String: Any] ?? [:]
        var payment = token
        payment["shippingContact"] = [
            "givenName": "Mei", "familyName": "Li", "phoneNumber": "+86 21 5555 0100", "addressLines": ["1 Nanjing Rd"],
            "locality": "Shanghai", "postalCode": "200000", "countryCode": "CN",
        ]
        payment["billingContact"] = ["postalCode": "200001", "countryCode": "CN"]
        let authorized = try await world.call(
            "POST", "/v1/orders/\(id)/payments/applepay/authorize", key: world.keys.publishable,
            json: ["token": payment, "client_secret": secret])
        #expect(authorized.status == 200 && authorized.object["status"] as? Int == 0, "\(authorized.object)")
        let kept = (try await world.orderJSON(id)["payments"] as? [[String: Any]])?.first { $0["status"] as? String == "succeeded" }
        #expect((kept?["shipping_contact"] as? [String: Any])?["locality"] as? String == "Shanghai")
        #expect((kept?["billing_contact"] as? [String: Any])?["postalCode"] as? String == "200001")
        for change in [["shipping_method": "standard"], ["shipping_method": "express"], ["coupon_code": ""]] {
            let late = try await update(change)
            #expect(late.status == 409 && late.errorMessage.contains("can no longer change"), "\(change): \(late.object)")
        }
        // The app never prices: shipping methods come from the backend only.
        let appOrder = try await world.call(
            "POST", "/v1/orders", key: world.keys.publishable,
            json: ["items": [["label": "x", "amount": "1.00"]], "currency": "CNY", "shipping_methods": []])
        #expect(appOrder.status == 403 || appOrder.status == 400)
        await world.stop()
    }

    /// A sheet may reprice its order ``OrderStoreLimits/sheetChangesPerOrder`` times: past that the
    /// update is refused with what to do, and the order keeps its total; a change that changes
    /// nothing is still answered.
    @Test func aSheetRepricesItsOrderALimitedNumberOfTimes() async throws {
        let world = try await MoneyWorld(.sqlite)
        let created = try await world.call(
            "POST", "/v1/orders",
            json: [
                "currency": "CNY", "items": [["label": "Tea", "amount": "20.00"]],
                "shipping_methods": [
                    ["identifier": "standard", "label": "Standard", "amount": "0.00"],
                    ["identifier": "express", "label": "Express", "amount": "10.00"],
                ],
            ])
        let id = try #require(created.object["id"] as? String, "\(created.object)")
        _ = try await world.start(id, "applepay")
        func pick(_ method: String) async throws -> MoneyWorld.Answer {
            try await world.call("POST", "/v1/orders/\(id)/payments/applepay/update", json: ["shipping_method": method])
        }
        for change in 0..<OrderStoreLimits.sheetChangesPerOrder {
            let answer = try await pick(change % 2 == 0 ? "express" : "standard")
            try #require(answer.status == 200, "change \(change): \(answer.object)")
        }
        // The last change chose standard: 20.00. Choosing it again changes nothing and is answered.
        let same = try await pick("standard")
        #expect(same.status == 200 && (same.object["newTotal"] as? [String: String])?["amount"] == "20.00", "\(same.object)")
        let refused = try await pick("express")
        #expect(refused.status == 409 && refused.errorCode == "invalid_state", "\(refused.object)")
        #expect(refused.errorMessage.contains("create a new order"), "\(refused.object)")
        #expect(try await world.store.order(id: id)?.total.minorUnits == 2000)
        let changes = try await world.store.events(orderID: id).filter { $0.kind == .sheetUpdated }
        #expect(changes.count == OrderStoreLimits.sheetChangesPerOrder)
        await world.stop()
    }

    /// The processor does not answer: the device is told so, the attempt is recorded failed, and
    /// nothing is charged. Its reply lost after it charged: the retry finds the charge, once.
    @Test func anOutageAtTheProcessorIsNeverAChargeTwiceOrAPaidOrderWithoutMoney() async throws {
        let world = try await MoneyWorld(.sqlite)
        let down = try await world.order("12.99")  // the sandbox's Stripe answers 500
        _ = try await world.start(down.id, "applepay")
        let answer = try await world.authorize(down.id, token: try await world.token(for: down.id))
        #expect(answer.status == 503 && answer.errorCode == "provider_unavailable", "\(answer.object)")
        #expect(try await world.status(down.id) != "paid")
        #expect(world.sandbox.stripe.core.processor.entries.isEmpty)
        let lost = try await world.order("14.00")
        _ = try await world.start(lost.id, "applepay")
        world.sandbox.setFault(.lostReplies(1))
        let recovered = try await world.authorize(lost.id, token: try await world.token(for: lost.id))
        #expect(recovered.status == 200 && recovered.object["status"] as? Int == 0, "\(recovered.object)")
        #expect(world.sandbox.stripe.core.processor.entries.count == 1)
        try await world.expectBooksAgreeThenStop()
    }

    @Test func webSessionsAndTheDomainAssociationFile() async throws {
        let world = try await MoneyWorld(.sqlite)
        let file = try await world.call("GET", "/.well-known/apple-developer-merchantid-domain-association", key: "none")
        #expect(file.status == 200 && String(decoding: file.body, as: UTF8.self).contains("cashier-sandbox-domain-association"))
        let apple = world.sandbox.baseURL.absoluteString + "sandbox/applepay/paymentservices/startSession"
        let session = try await world.call("POST", "/v1/applepay/sessions", key: world.keys.publishable, json: ["validation_url": apple])
        #expect(
            session.status == 200 && (session.object["merchantSessionIdentifier"] as? String)?.hasPrefix("SSH") == true, "\(session.object)"
        )
        #expect(session.object["domainName"] as? String == "127.0.0.1")
        for foreign in ["https://evil.example.com/paymentservices/startSession", "http://127.0.0.1:1/steal", "file:///etc/passwd"] {
            let refused = try await world.call(
                "POST", "/v1/applepay/sessions", key: world.keys.publishable, json: ["validation_url": foreign])
            #expect(refused.status == 422 && refused.errorMessage.contains("Apple"), "\(foreign): \(refused.object)")
        }
        #expect(try await world.call("POST", "/v1/applepay/sessions", key: "pk_wrong", json: ["validation_url": apple]).status == 401)
        await world.stop()
        let bare = try await MoneyWorld(.sqlite) {
            $0.applePay?.webSession = nil
            $0.applePay?.domainAssociation = nil
        }
        let unconfigured = try await bare.call("POST", "/v1/applepay/sessions", json: ["validation_url": apple])
        #expect(unconfigured.status == 422 && unconfigured.errorMessage.contains("applepay.web"))  // a method not configured
        #expect(try await bare.call("GET", "/.well-known/apple-developer-merchantid-domain-association").status == 404)
        await bare.stop()
    }

    /// A subscription on the sheet: modelled, validated when the order is created, passed through
    /// to the app's payment request as Apple Pay JS's `recurringPaymentRequest`.
    @Test func commitmentsArePassedThroughWhenTheOrderAsks() async throws {
        let world = try await MoneyWorld(.sqlite)
        let recurring: [String: Any] = [
            "recurringPaymentRequest": [
                "paymentDescription": "Coffee club", "managementURL": "https://shop.example.com/account",
                "regularBilling": [
                    "label": "Monthly beans", "amount": "30.00", "recurringPaymentIntervalUnit": "month",
                    "recurringPaymentStartDate": "2027-01-01T00:00:00Z",
                ],
                "trialBilling": [
                    "label": "First month", "amount": "0.00", "recurringPaymentIntervalUnit": "month",
                    "recurringPaymentEndDate": "2026-12-31T00:00:00Z",
                ],
            ]
        ]
        func create(_ applepay: Any, key: String? = nil) async throws -> MoneyWorld.Answer {
            try await world.call(
                "POST", "/v1/orders", key: key,
                json: ["items": [["label": "Club sign-up", "amount": "30.00"]], "currency": "CNY", "applepay": applepay])
        }
        let created = try await create(recurring)
        try #require(created.status == 201, "\(created.object)")
        let id = try #require(created.object["id"] as? String)
        let request = try #require(try await world.start(id, "applepay")["payment_request"] as? [String: Any])
        let passed = try #require(request["recurringPaymentRequest"] as? [String: Any])
        #expect(passed["paymentDescription"] as? String == "Coffee club")
        let regular = passed["regularBilling"] as? [String: Any]
        #expect(regular?["amount"] as? String == "30.00" && regular?["paymentTiming"] as? String == "recurring")
        #expect(regular?["recurringPaymentIntervalUnit"] as? String == "month" && regular?["recurringPaymentIntervalCount"] as? Int == 1)
        #expect((passed["trialBilling"] as? [String: Any])?["amount"] as? String == "0.00")
        // Each mistake is named; nothing is created.
        var insecure = recurring
        insecure["recurringPaymentRequest"] = (recurring["recurringPaymentRequest"] as? [String: Any] ?? [:]).merging([
            "managementURL": "http://shop.example.com"
        ]) { $1 }
        let refused = try await create(insecure)
        #expect(refused.status == 422 && refused.errorMessage.contains("managementURL") && refused.errorMessage.contains("https"))
        let two = try await create([
            "recurringPaymentRequest": recurring["recurringPaymentRequest"] ?? [:],
            "deferredPaymentRequest": [:] as [String: Any],
        ])
        #expect(two.status == 422 && two.errorMessage.contains("exactly one"))
        let past = try await create([
            "deferredPaymentRequest": [
                "paymentDescription": "Hotel", "managementURL": "https://shop.example.com",
                "deferredBilling": ["label": "Stay", "amount": "500.00", "deferredPaymentDate": "2020-01-01T00:00:00Z"],
            ]
        ])
        #expect(past.status == 422 && past.errorMessage.contains("in the future"))
        let reload = try await create([
            "automaticReloadPaymentRequest": [
                "paymentDescription": "Card top-up", "managementURL": "https://shop.example.com",
                "automaticReloadBilling": ["label": "Top-up", "amount": "50.00", "automaticReloadPaymentThresholdAmount": "10.00"],
            ]
        ])
        #expect(reload.status == 201, "\(reload.object)")
        let fromApp = try await create(recurring, key: world.keys.publishable)
        #expect(fromApp.status == 403 || fromApp.status == 400)
        await world.stop()
    }

    /// The dashboard captures part of a held payment and voids another, through the same paths as the API.
    @Test func theDashboardCapturesAndVoids() async throws {
        let world = try await MoneyWorld(.sqlite) { $0.applePay?.capture = .manual }
        let base = world.base(0)
        let cookie = try await RecordsAndExportsTests.signIn(base, secret: world.keys.secret)
        func form(_ path: String, _ fields: String) async throws -> HTTPResponse {
            let page = String(
                decoding: try await RecordsAndExportsTests.get(
                    base + path.components(separatedBy: "/capture")[0].components(separatedBy: "/void")[0], cookie: cookie
                ).body, as: UTF8.self)
            let token = try #require(page.range(of: #"name="csrf" value=""#).map { String(page[$0.upperBound...].prefix(32)) })
            return try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: base + path)!,
                    headers: ["Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"],
                    body: Data("csrf=\(token)&\(fields)".utf8)))
        }
        let held = try await paid(world, "25.00")
        let page = String(
            decoding: try await RecordsAndExportsTests.get(base + "/dashboard/orders/\(held.id)", cookie: cookie).body, as: UTF8.self)
        #expect(page.contains(#"id="capture-form""#) && page.contains(#"id="void""#))
        let captured = try await form("/dashboard/orders/\(held.id)/capture", "amount=20.00")
        #expect(captured.status == 303 || captured.status == 302 || captured.status == 200, "\(captured.status)")
        #expect(try await world.store.payments(orderID: held.id).first { $0.status == .succeeded }?.capture == .captured)
        #expect(try await world.store.order(id: held.id)?.refunded.minorUnits == 500)
        let other = try await paid(world, "15.00")
        _ = try await form("/dashboard/orders/\(other.id)/void", "")
        #expect(try await world.store.order(id: other.id)?.status == .refunded)
        let refunds = try await world.store.refunds(orderID: other.id)
        #expect(refunds.count == 1 && refunds[0].reason == "voided" && refunds[0].requestedBy?.hasPrefix("dashboard") == true)
        try await world.expectBooksAgreeThenStop()
    }

    /// Apple Pay is reconciled against the processor's own records: Stripe's PaymentIntents, and
    /// Adyen's daily Payment accounting report read with a report user's key.
    @Test(arguments: ["stripe", "adyen"])
    func applePayIsReconciledAgainstTheProcessor(processor: String) async throws {
        let world = try await MoneyWorld(.sqlite) { configuration in
            // The sandbox's address, from its WeChat gateway (http://127.0.0.1:PORT/wechat/).
            guard processor == "adyen", let wechat = configuration.wechat?.baseURL, let port = wechat.port else { return }
            let base = "http://127.0.0.1:\(port)/adyen"
            configuration.applePay?.processor = ApplePay.AdyenProcessor(
                apiKey: "AQE_world", merchantAccount: "CashierWorld", baseURL: URL(string: base + "/v72")!,
                reports: .init(baseURL: URL(string: base + "/reports/download/MerchantAccount/")!, apiKey: "AQE_reports"),
                transport: ServerFixture.transport)
        }
        let first = try await paid(world, "30.00")
        _ = try await paid(world, "12.00")
        let refund = try await world.call("POST", "/v1/orders/\(first.id)/refunds", json: ["amount": "5.00"])
        #expect(refund.status == 200, "\(refund.object)")
        let simulator = processor == "adyen" ? world.sandbox.adyen.core : world.sandbox.stripe.core
        #expect(simulator.processor.entries.count == 2)
        let report = try await world.reconcile()
        #expect((report["discrepancies"] as? [Any])?.isEmpty == true, "\(report)")
        #expect((report["bill_rows"] as? [String: Int])?["applepay"] == 3, "\(report)")
        #expect((report["not_reconciled"] as? [String: Int])?["applepay"] == nil, "\(report)")
        await world.stop()
    }
}
