import Cashier
import CashierCrypto
import CashierCurl
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Money moves exactly once: each scenario a payer or a merchant can cause — paying twice
/// through two wallets, refunds and idempotent requests fired at once, Apple Pay tokens
/// presented twice or together, a foreign currency, a refund that fails after it was accepted —
/// run on SQLite and on three instances sharing PostgreSQL, and checked against the sandbox's
/// books, the processor's count and the day's reconciliation: nothing lost, nothing doubled,
/// every answer the caller got true. Each scenario fires its own requests at once; answered in
/// process (``MoneyWorld``), the scenarios hold no sockets and run beside each other.
@Suite(.timeLimit(.minutes(3))) struct MoneySafetyTests {
    typealias Backend = MoneyWorld.Backend

    /// Finding 1: an order's WeChat QR, then an Alipay QR. Starting Alipay closes the WeChat
    /// trade, so the stale QR takes no money; and where a wallet cannot be closed (an Alipay
    /// app-pay order string never opened), a second payment is recorded, flagged, announced,
    /// shown, refunded to that payment, and listed — not hidden — by reconciliation.
    @Test(arguments: Backend.available)
    func twoWalletsOneOrder(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        // The QR that is superseded is closed at WeChat: the payer cannot pay it any more.
        let first = try await world.order("20.00")
        _ = try await world.start(first.id, "wechat.native")
        let alipay = try await world.start(first.id, "alipay.qr")
        #expect(await world.sandbox.wechatV2.tradeState(outTradeNo: first.number) == "CLOSED")
        try await world.pay("alipay", number: alipay["out_trade_no"] as? String)
        #expect(try await world.waitFor(first.id, .paid))
        #expect(try await world.pay("wechat", number: first.number) == "CLOSED")

        // An order string cannot be closed before the payer opens it: the payer pays twice.
        let twice = try await world.order("30.00")
        let stale = try await world.start(twice.id, "alipay.app")
        let native = try await world.start(twice.id, "wechat.native")
        try await world.pay("wechat", number: native["out_trade_no"] as? String)
        #expect(try await world.waitFor(twice.id, .paid))
        #expect(try await world.pay("alipay", orderString: stale["order_string"] as? String) == "9000")
        await world.settled()
        #expect(try await world.store.order(id: twice.id)?.refundRequired == true)
        let order = try await world.orderJSON(twice.id)
        let payments = try #require(order["payments"] as? [[String: Any]])
        let duplicate = try #require(payments.first { $0["method"] as? String == "alipay.app" })
        let settling = try #require(payments.first { $0["method"] as? String == "wechat.native" })
        #expect(order["status"] as? String == "paid" && order["payment_id"] as? String == settling["id"] as? String)
        #expect(duplicate["status"] as? String == "succeeded" && duplicate["refund_required"] as? Bool == true)
        #expect(settling["refund_required"] as? Bool == false)
        // Announced, naming the payment.
        await world.settled()
        #expect(
            world.webhooks("order.refund_required", order: twice.id).contains {
                (($0["data"] as? [String: Any])?["payment"] as? [String: Any])?["id"] as? String == duplicate["id"] as? String
            })
        // Shown in the dashboard.
        let page = try await Self.dashboardPage(world, "/dashboard/orders/\(twice.id)")
        #expect(page.contains("paid the order a second time") && page.contains(duplicate["id"] as? String ?? "?"))
        // Reconciliation: both payments are on the bills and here — matched, the second listed to refund.
        let report = try await world.reconcile()
        #expect((report["discrepancies"] as? [Any])?.isEmpty == true, "\(report)")
        let owed = try #require(report["refund_required"] as? [[String: Any]])
        #expect(owed.map { $0["payment_id"] as? String } == [duplicate["id"] as? String])
        // The refund goes to the payment that took the money twice, and nothing is owed after it.
        let refund = try await world.call(
            "POST", "/v1/orders/\(twice.id)/refunds", json: ["payment": duplicate["id"] as? String ?? "", "reason": "paid twice"])
        #expect(refund.status == 200 && (refund.object["refund"] as? [String: Any])?["payment_id"] as? String == duplicate["id"] as? String)
        #expect(refund.object["status"] as? String == "paid" && refund.object["refund_required"] as? Bool == false)
        let books = try await world.ledger()
        #expect(books.first { $0.provider == "alipay" && $0.out_trade_no == twice.number }?.refunded_minor == 3000)
        #expect(books.first { $0.provider == "wechat.v2" && $0.out_trade_no == twice.number }?.refunded_minor == 0)
        #expect((try await world.reconcile()["refund_required"] as? [Any])?.isEmpty == true)
        try await world.expectBooksAgreeThenStop()
    }

    /// Counter payments fired at once: the same payment code scanned again and again (a till
    /// that retries, two tills on one order) across instances, at once and while the payer is
    /// still entering the password, and a payment code against a QR the payer pays at the same
    /// moment — the order is paid once, the provider took the money once, one `order.paid`.
    @Test(arguments: Backend.available)
    func counterPaymentsFiredAtOnceTakeMoneyOnce(backend: Backend) async throws {
        let world = try await MoneyWorld(backend) {
            $0.barcode.answerWithin = 3
            $0.barcode.giveUpAfter = 6
            $0.barcode.queryInterval = 0.1
        }
        await world.sandbox.wechatV2.setPasswordDelay(0.3)
        await world.sandbox.alipay.setPasswordDelay(0.3)
        var orders: [String] = []
        for (method, code) in [
            ("wechat.barcode", "134567890123450000"), ("wechat.barcode", "134567890123451111"),
            ("alipay.barcode", "286543210987650000"), ("alipay.barcode", "286543210987651111"),
        ] {
            let order = try await world.order("12.30")
            orders.append(order.id)
            let answers = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await world.call("POST", "/v1/orders/\(order.id)/payments", json: ["method": method, "auth_code": code])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let texts = answers.map { "\($0.status) \(String(decoding: $0.body, as: UTF8.self))" }
            #expect(answers.allSatisfy { $0.status == 200 || $0.status == 409 }, "\(method) \(code): \(texts)")
            #expect(answers.contains { $0.status == 200 && $0.object["status"] as? String == "paid" }, "\(texts)")
            #expect(try await world.status(order.id) == "paid")
        }
        // A QR shown earlier, paid by the payer while the till collects with a code: one of them takes the money.
        for round in 0..<3 {
            let order = try await world.order("7.00")
            orders.append(order.id)
            let qr = try await world.start(order.id, "wechat.native")
            async let payQR = world.pay("wechat", number: qr["out_trade_no"] as? String)
            let answers = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await world.call(
                            "POST", "/v1/orders/\(order.id)/payments",
                            json: ["method": "alipay.barcode", "auth_code": "286543210987650000"])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            _ = try await payQR
            #expect(answers.allSatisfy { [200, 402, 409].contains($0.status) }, "round \(round): \(answers.map(\.status))")
            await world.settled()
            #expect(try await world.status(order.id) == "paid")
            #expect(try await world.store.order(id: order.id)?.refundRequired == false)
        }
        await world.settled()  // a late duplicate webhook would have arrived by now
        for id in orders {
            let payments = try await world.store.payments(orderID: id).filter { $0.status == .succeeded }
            #expect(payments.count == 1, "\(id): \(payments.map(\.id))")
        }
        for id in orders { #expect(world.webhooks("order.paid", order: id).count == 1) }
        try await world.expectBooksAgreeThenStop()
    }

    /// Double payment across every wallet pair the server can be asked for: WeChat v2 and v3,
    /// Alipay and Apple Pay each settle an order whose stale Alipay order string is paid after.
    @Test(arguments: Backend.available)
    func doublePayAcrossWalletsIsAlwaysFlagged(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        for method in ["wechat.native v2", "wechat.native v3", "applepay"] {
            let order = try await world.order("8.00")
            let stale = try await world.start(order.id, "alipay.app")
            if method == "applepay" {
                _ = try await world.start(order.id, "applepay")
                let answer = try await world.authorize(order.id, token: try await world.token(for: order.id))
                #expect(answer.object["status"] as? Int == 0, "\(answer.object)")
            } else {
                let api = String(method.suffix(2))
                let placed = try await world.start(order.id, "wechat.native", api: api)
                if api == "v2" {
                    await world.sandbox.wechatV2.pay(outTradeNo: placed["out_trade_no"] as? String ?? "", outcome: .success)
                } else {
                    await world.sandbox.wechatV3.pay(outTradeNo: placed["out_trade_no"] as? String ?? "", outcome: .success)
                }
            }
            #expect(try await world.waitFor(order.id, .paid), "\(method)")
            try await world.pay("alipay", orderString: stale["order_string"] as? String)
            await world.settled()
            #expect(try await world.store.order(id: order.id)?.refundRequired == true, "\(method)")
            #expect(try await world.store.payments(orderID: order.id).filter { $0.status == .succeeded }.count == 2)
        }
        // WeChat v2 then v3 for one order: one number each, the first closed when the second starts.
        let order = try await world.order("9.00")
        let v2 = try await world.start(order.id, "wechat.native", api: "v2")
        let v3 = try await world.start(order.id, "wechat.native", api: "v3")
        #expect(v2["out_trade_no"] as? String == order.number && v3["out_trade_no"] as? String == order.number + "P2")
        #expect(await world.sandbox.wechatV2.pay(outTradeNo: order.number, outcome: .success) == "CLOSED")
        await world.sandbox.wechatV3.pay(outTradeNo: order.number + "P2", outcome: .success)
        #expect(try await world.waitFor(order.id, .paid))
        let report = try await world.reconcile()
        #expect((report["discrepancies"] as? [Any])?.isEmpty == true, "\(report)")
        #expect((report["refund_required"] as? [Any])?.count == 3)
        try await world.expectBooksAgreeThenStop()
    }

    /// Finding 3: twelve `POST /v1/orders` at once with one key and one body make one order;
    /// the others are told the key is in use (or replay the answer), never a second order.
    @Test(arguments: Backend.available)
    func oneIdempotencyKeyMakesOneOrder(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        @Sendable func body() -> [String: Any] {
            ["items": [["label": "Latte", "amount": "12.75"]], "currency": "CNY", "description": "Latte"]
        }
        let before = try await world.store.orders(status: nil, before: nil, limit: 1000).count
        let answers = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
            for _ in 0..<12 {
                group.addTask { try await world.call("POST", "/v1/orders", headers: ["Idempotency-Key": "cart-42"], json: body()) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let created = answers.filter { $0.status == 201 }
        #expect(!created.isEmpty && Set(created.compactMap { $0.object["id"] as? String }).count == 1)
        #expect(answers.allSatisfy { $0.status == 201 || ($0.status == 409 && $0.errorCode == "idempotency_key_in_use") })
        #expect(try await world.store.orders(status: nil, before: nil, limit: 1000).count == before + 1)
        // Once it finished, the key replays it.
        let again = try await world.call("POST", "/v1/orders", headers: ["Idempotency-Key": "cart-42"], json: body())
        #expect(again.status == 201 && again.object["id"] as? String == created.first?.object["id"] as? String)
        await world.stop()
    }

    /// Finding 4: Apple Pay is authorised once per order: a second token for a paid order is
    /// refused without calling the processor, a token is accepted once ever, and tokens presented
    /// together are authorised one at a time.
    @Test(arguments: Backend.available)
    func applePayIsAuthorisedOnce(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        let order = try await world.order("46.00")
        _ = try await world.start(order.id, "applepay")
        let first = try await world.token(for: order.id)
        let paid = try await world.authorize(order.id, token: first)
        #expect(paid.object["status"] as? Int == 0 && paid.object["order_status"] as? String == "paid")
        #expect(world.processor.count == 1)
        let second = try await world.authorize(order.id, token: try await world.token(for: order.id))
        #expect(second.status == 409 && second.errorCode == "invalid_state")
        #expect(world.processor.count == 1)
        // The same token for another order of the same amount: refused, whatever it decrypts to.
        let other = try await world.order("46.00")
        let reused = try await world.authorize(other.id, token: first)
        #expect(reused.status == 409 || reused.object["status"] as? Int == 1, "\(reused.object)")
        #expect(world.processor.count == 1)
        // A token the processor declined is spent too: presented again it is refused unsent.
        let declined = try await world.order("18.51")  // the sandbox processor: insufficient funds
        let spent = try await world.token(for: declined.id)
        #expect(try await world.authorize(declined.id, token: spent).object["status"] as? Int == 1)
        #expect(world.processor.count == 2)
        let again = try await world.authorize(declined.id, token: spent)
        #expect(again.status == 409 && again.errorCode == "token_reused", "\(again.object)")
        #expect(world.processor.count == 2)
        // Six tokens at once for one order: one authorisation.
        let together = try await world.order("18.00")
        var tokens: [Data] = []
        for _ in 0..<6 { tokens.append(try await world.token(for: together.id)) }
        let answers = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
            for token in tokens { group.addTask { try await world.authorize(together.id, token: token) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0.status == 200 && $0.object["status"] as? Int == 0 }.count == 1, "\(answers.map(\.object))")
        #expect(answers.filter { $0.status == 409 }.count == 5)
        #expect(world.processor.count == 3)
        #expect(try await world.store.payments(orderID: together.id).filter { $0.status == .succeeded }.count == 1)
        // Apple Pay refunds go through the processor (the sandbox's Stripe): eight of 10.00 at once
        // on 46.00 return four, and the processor's books say what Cashier's say.
        let refunds = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
            for _ in 0..<8 { group.addTask { try await world.call("POST", "/v1/orders/\(order.id)/refunds", json: ["amount": "10.00"]) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(refunds.filter { $0.status == 200 }.count == 4, "\(refunds.map(\.object))")
        #expect(refunds.filter { $0.status != 200 }.allSatisfy { $0.status == 409 || $0.status == 400 }, "\(refunds.map(\.object))")
        let settled = try #require(try await world.store.payments(orderID: order.id).first { $0.status == .succeeded })
        let reference = try #require(settled.transactionID)
        let atStripe = try #require(world.sandbox.stripe.core.processor.entry(reference))
        #expect(settled.refunded.minorUnits == 4000 && atStripe.refunded == settled.refunded && atStripe.captured == settled.amount)
        try await world.expectBooksAgreeThenStop()
    }

    /// Finding 5: WeChat Pay and Alipay's domestic APIs take CNY only: another currency is
    /// refused when the payment is started, before anything is sent — unless the merchant has a
    /// cross-border WeChat account for it.
    @Test(arguments: Backend.available)
    func eachProviderTakesItsOwnCurrencies(backend: Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.wechat?.crossBorderCurrencies = [try! Currency(code: "HKD")] }
        let yen = try await world.order("1000", currency: "JPY")
        for method in ["alipay.qr", "alipay.app", "wechat.native"] {
            let refused = try await world.call("POST", "/v1/orders/\(yen.id)/payments", json: ["method": method])
            #expect(refused.status == 400 && refused.errorMessage.contains("CNY") && refused.errorMessage.contains("JPY"), "\(method)")
        }
        #expect(try await world.store.payments(orderID: yen.id).isEmpty)
        #expect(try await world.ledger().allSatisfy { $0.out_trade_no != yen.number })
        // Apple Pay's processor takes it; a cross-border WeChat merchant takes HKD through v2.
        #expect(try await world.call("POST", "/v1/orders/\(yen.id)/payments", json: ["method": "applepay"]).status == 200)
        let hkd = try await world.order("10.00", currency: "HKD")
        #expect(
            try await world.call("POST", "/v1/orders/\(hkd.id)/payments", json: ["method": "wechat.native", "api": "v2"]).status == 200)
        #expect(
            try await world.call("POST", "/v1/orders/\(hkd.id)/payments", json: ["method": "wechat.native", "api": "v3"]).status == 400)
        await world.stop()
    }

    /// Siblings: a notification storm racing the query fallback, keyed refunds and a close, on
    /// every instance at once: paid once, refunded exactly what was answered, never closed.
    @Test(arguments: Backend.available)
    func notificationsQueriesRefundsAndACloseRaceSafely(backend: Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.queryAfter = 0 }
        let order = try await world.order("50.00")
        _ = try await world.start(order.id, "wechat.native")
        await world.sandbox.wechatV2.pay(outTradeNo: order.number, outcome: .success)
        let notifyURLs = world.servers.map { $0.baseURL.absoluteString + "/notify/wechat/v2" }
        let (refunds, close) = try await withThrowingTaskGroup(of: (refund: Int?, close: Int?).self) { group in
            group.addTask {
                // Replayed once the sandbox has sent the first one (its delivery runs on its own).
                let replayed = try await eventually {
                    try await world.sandboxCall("POST", "sandbox/replay", json: ["key": order.number, "copies": 40, "urls": notifyURLs])
                        .status == 200
                }
                #expect(replayed)
                return (nil, nil)
            }
            for _ in 0..<10 {
                group.addTask {
                    _ = try await world.call("GET", "/v1/orders/\(order.id)")
                    return (nil, nil)
                }
            }
            for index in 0..<4 {
                group.addTask {
                    let answer = try await world.call(
                        "POST", "/v1/orders/\(order.id)/refunds", headers: ["Idempotency-Key": "race-\(index)"], json: ["amount": "5.00"])
                    return (answer.status, nil)
                }
            }
            group.addTask { (nil, try await world.call("POST", "/v1/orders/\(order.id)/close").status) }
            return try await group.reduce(into: ([Int](), [Int]())) { result, next in
                if let refund = next.refund { result.0.append(refund) }
                if let close = next.close { result.1.append(close) }
            }
        }
        // The close found the order paid (here or at WeChat) and refused; refunds that came before
        // the payment was known were refused too, the rest were made, once each.
        #expect(close == [409])
        #expect(refunds.allSatisfy { $0 == 200 || $0 == 409 }, "\(refunds)")
        #expect(try await world.waitFor(order.id, refunds.contains(200) ? .partiallyRefunded : .paid))
        let made = refunds.filter { $0 == 200 }.count
        let stored = try #require(try await world.store.order(id: order.id))
        #expect(stored.refunded.minorUnits == Int64(500 * made))
        #expect(try await world.store.events(orderID: order.id).filter { $0.to == .paid }.count == 1)
        #expect(try await world.ledger().first { $0.out_trade_no == order.number }?.refunds.count == made)
        await world.settled()
        #expect(world.webhooks("order.paid", order: order.id).count == 1)
        try await world.expectBooksAgreeThenStop()
    }

    /// Signs in to the dashboard of the first instance and returns a page's HTML.
    static func dashboardPage(_ world: MoneyWorld, _ path: String) async throws -> String {
        let cookie = try await RecordsAndExportsTests.signIn(world.base(0), secret: world.keys.secret)
        return String(decoding: try await RecordsAndExportsTests.get(world.base(0) + path, cookie: cookie).body, as: UTF8.self)
    }
}
