import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierCurl
import CashierSandbox
import CashierSandboxMode
import CashierStore
import Foundation
import TestSupport
import Testing
import WeChatPay

@testable import CashierServer

/// What the server does when the happy path breaks: a notification that never arrives (the query
/// fallback finds the payment), an order that expires unpaid, a provider that fails or is slow, and
/// the daily bill that disagrees with the ledger (reconciliation).
@Suite struct RecoveryTests {
    @Test func aLostNotificationIsCaughtByTheQueryFallback() async throws {
        // The providers cannot reach this server (its public URL goes nowhere): only a query can tell.
        let fixture = try await ServerFixture(publicBaseURL: "http://127.0.0.1:9", queryAfter: 0)
        for method in ["wechat.native", "alipay.qr"] {
            let order = try await fixture.createOrder(amount: "3.30")
            let id = try #require(order["id"] as? String)
            _ = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": method])
            let number = order["out_trade_no"] as? String ?? ""
            if method == "wechat.native" {
                await fixture.sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
            } else {
                await fixture.sandbox.alipay.pay(outTradeNo: number, outcome: .success)
            }
            #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String == "paid", "\(method)")
            #expect(try await fixture.store.events(orderID: id).contains { $0.kind == .query && $0.to == .paid })
        }
        await fixture.stop()
    }

    @Test func expiredUnpaidOrdersAreClosedAtTheProviderAndHere() async throws {
        // The job itself runs every minute here; the test moves the server's clock past the expiry and runs it.
        let clock = ManualClock()
        let fixture = try await ServerFixture(clock: clock)
        let result = try await fixture.call(
            "POST", "/v1/orders", json: ["items": [["label": "Tea", "amount": "2.00"]], "currency": "CNY", "expires_in": 600])
        let id = try #require(result.object["id"] as? String)
        let paidSoon = try await fixture.createOrder(amount: "2.00")  // two hours to live: untouched
        let started = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"])
        try #require(started.status == 200, "the payment must start before the order expires")
        clock.advance(by: 700)
        #expect(try await fixture.server.closeExpiredOrders() == 1)
        #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String == "closed")
        #expect(await fixture.sandbox.wechatV2.tradeState(outTradeNo: result.object["out_trade_no"] as? String ?? "") == "CLOSED")
        #expect(try await fixture.store.events(orderID: id).last?.kind == .expired)
        #expect(try await fixture.call("GET", "/v1/orders/\(paidSoon["id"] as? String ?? "")").object["status"] as? String == "created")
        await fixture.stop()
    }

    @Test func aLostV3NotificationIsCaughtByTheQueryFallback() async throws {
        let fixture = try await ServerFixture(publicBaseURL: "http://127.0.0.1:9", queryAfter: 0)
        let order = try await fixture.createOrder(amount: "3.30")
        let id = try #require(order["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native", "api": "v3"])
        await fixture.sandbox.wechatV3.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String == "paid")
        #expect(try await fixture.store.events(orderID: id).contains { $0.kind == .query && $0.to == .paid })
        // Closing a v3 order that was never paid closes it at WeChat too.
        let unpaid = try await fixture.createOrder(amount: "1.00")
        let unpaidID = try #require(unpaid["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(unpaidID)/payments", json: ["method": "wechat.native", "api": "v3"])
        #expect(try await fixture.call("POST", "/v1/orders/\(unpaidID)/close").object["status"] as? String == "closed")
        #expect(await fixture.sandbox.wechatV3.pay(outTradeNo: unpaid["out_trade_no"] as? String ?? "", outcome: .success) == "CLOSED")
        await fixture.stop()
    }

    @Test func reconciliationFindsEveryKindOfDisagreement() async throws {
        let fixture = try await ServerFixture()
        let v3 = try #require(fixture.mode.configuration.wechatV3)
        let today = BeijingTime.formatter("yyyy-MM-dd").string(from: Date())
        func pay(_ amount: String, _ method: String, api: String? = nil) async throws -> [String: Any] {
            let order = try await fixture.createOrder(amount: amount)
            let id = try #require(order["id"] as? String)
            var body: [String: Any] = ["method": method]
            if let api { body["api"] = api }
            #expect(try await fixture.call("POST", "/v1/orders/\(id)/payments", json: body).status == 200)
            let number = order["out_trade_no"] as? String ?? ""
            switch (method, api) {
            case ("alipay.qr", _): await fixture.sandbox.alipay.pay(outTradeNo: number, outcome: .success)
            case (_, "v3"): await fixture.sandbox.wechatV3.pay(outTradeNo: number, outcome: .success)
            default: await fixture.sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
            }
            #expect(try await fixture.waitForStatus(id, "paid"))
            return order
        }
        // Agreeing trades: WeChat v2 and v3, Alipay with a refund.
        _ = try await pay("1.00", "wechat.native")
        _ = try await pay("2.00", "wechat.app", api: "v3")
        let refunded = try await pay("3.00", "alipay.qr")
        let refundedID = try #require(refunded["id"] as? String)
        #expect(try await fixture.call("POST", "/v1/orders/\(refundedID)/refunds", json: ["amount": "1.00"]).status == 200)
        let clean = try await fixture.call("GET", "/v1/reconciliations/\(today)")
        #expect(clean.status == 200, "\(clean.object)")
        #expect(clean.object["matched"] as? Int == 4 && (clean.object["discrepancies"] as? [Any])?.isEmpty == true, "\(clean.object)")
        #expect((clean.object["bill_rows"] as? [String: Int]) == ["wechat": 2, "alipay": 2])
        // The bills came as the providers ship them (WeChat v3 gzipped, Alipay a zip of GBK CSVs), with fees (0.6 %,
        // rounded to the fen per trade: 0.01 + 0.01 at WeChat; 0.02 less 0.01 returned with the refund at Alipay), and the
        // fund-flow bills agree with them.
        #expect((clean.object["fees"] as? [String: String]) == ["wechat": "0.02 CNY", "alipay": "0.01 CNY"], "\(clean.object)")
        let flows = try #require(clean.object["fund_flow"] as? [String: [String: Any]])
        #expect(flows["wechat"]?["fees"] as? String == "0.02 CNY" && flows["wechat"]?["rows"] as? Int == 4)
        #expect(flows["alipay"]?["fees"] as? String == "0.01 CNY" && flows["alipay"]?["income"] as? String == "3.01 CNY")
        #expect(flows["alipay"]?["expense"] as? String == "1.02 CNY")

        // Money at WeChat for an order this server never made.
        let direct = WeChatPay.V3.Client(
            merchant: v3.merchant, keys: v3.platformKeys, transport: ServerFixture.transport, baseURL: v3.baseURL)
        func payAtWeChatDirectly(_ outTradeNo: String, fen: Int64) async throws {
            _ = try await direct.prepay(
                .native, appID: v3.appID, description: "direct", outTradeNo: outTradeNo, total: Money(minorUnits: fen, currency: .cny),
                notifyURL: "http://127.0.0.1:9/nowhere")
            await fixture.sandbox.wechatV3.pay(outTradeNo: outTradeNo, outcome: .success)
        }
        let stranger = TradeNumber.generate()
        try await payAtWeChatDirectly(stranger, fen: 700)
        // Paid one fen short at WeChat (the notification was refused: the order is still unpaid here).
        let short = try await fixture.createOrder(amount: "5.00")
        let shortNumber = try #require(short["out_trade_no"] as? String)
        try await payAtWeChatDirectly(shortNumber, fen: 499)
        // Paid here, never at the provider.
        let phantom = try await fixture.createOrder(amount: "6.00")
        let phantomID = try #require(phantom["id"] as? String)
        let phantomPayment = try await fixture.call("POST", "/v1/orders/\(phantomID)/payments", json: ["method": "wechat.native"])
        let phantomPaymentID = try #require(phantomPayment.object["payment_id"] as? String)
        try await fixture.store.recordPayment(
            .succeeded(transactionID: "forged", amount: Money(minorUnits: 600, currency: .cny)), of: phantomPaymentID,
            record: EventRecord(kind: EventKind(rawValue: "forged")), now: Date())
        // A refund recorded here that Alipay never made.
        let forgedRefund = try await fixture.store.reserveRefund(
            NewRefund(orderID: refundedID, amount: Money(minorUnits: 200, currency: .cny)), now: Date())
        _ = try await fixture.store.finishRefund(forgedRefund.refund.id, outcome: .succeeded(providerRefundID: nil), now: Date())

        let report = try await fixture.server.reconcile(date: today)
        let kinds = Dictionary(report.discrepancies.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(
            kinds.keys.sorted() == ["amount_differs", "missing_at_provider", "missing_here", "refund_differs"], "\(report.discrepancies)")
        #expect(kinds["missing_here"]?.out_trade_no == stranger && kinds["missing_here"]?.provider_says == "paid 7.00 CNY")
        #expect(kinds["amount_differs"]?.out_trade_no == shortNumber && kinds["amount_differs"]?.here == "created 5.00 CNY")
        #expect(kinds["missing_at_provider"]?.order_id == phantomID)
        #expect(kinds["refund_differs"]?.provider_says == "refunded 1.00 CNY" && kinds["refund_differs"]?.here == "refunded 3.00 CNY")
        #expect(report.text.contains("discrepancies: 4"))
        // Only the secret key reconciles, and a date must be a date.
        #expect(try await fixture.call("GET", "/v1/reconciliations/\(today)", key: fixture.keys.publishable).status == 401)
        #expect(try await fixture.call("GET", "/v1/reconciliations/2026-13-01").status == 400)
        await fixture.stop()
    }

    @Test func theQueryFallbackJobFindsPaymentsWhoseNotificationsAreLost() async throws {
        let clock = ManualClock()
        let fixture = try await ServerFixture(publicBaseURL: "http://127.0.0.1:9", queryAfter: 0, clock: clock)
        let paid = try await fixture.createOrder(amount: "4.40")
        let paidID = try #require(paid["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(paidID)/payments", json: ["method": "wechat.native", "api": "v3"])
        let unpaid = try await fixture.createOrder(amount: "5.50")
        let unpaidID = try #require(unpaid["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(unpaidID)/payments", json: ["method": "alipay.qr"])
        await fixture.sandbox.wechatV3.pay(outTradeNo: paid["out_trade_no"] as? String ?? "", outcome: .success)
        // No one reads the orders: the job alone finds the payment, and leaves the unpaid one pending.
        #expect(try await fixture.server.queryPendingPayments() == 1)
        #expect(try await fixture.store.order(id: paidID)?.status == .paid)
        #expect(try await fixture.store.order(id: unpaidID)?.status == .pending)
        #expect(try await fixture.store.events(orderID: paidID).contains { $0.kind == .query && $0.to == .paid })
        // The unpaid one now waits before it is asked again; once paid, its turn finds it.
        await fixture.sandbox.alipay.pay(outTradeNo: unpaid["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.server.queryPendingPayments() == 0)
        clock.advance(by: 2)
        #expect(try await fixture.server.queryPendingPayments() == 1)
        #expect(try await fixture.store.order(id: unpaidID)?.status == .paid)
        // Every job's runs are counted for /metrics.
        var metrics = ""
        _ = try await eventually {
            metrics = String(decoding: try await fixture.call("GET", "/metrics").body, as: UTF8.self)
            return metrics.contains(#"cashier_job_runs_total{job="query_fallback"}"#)
        }
        #expect(
            metrics.contains(#"cashier_job_runs_total{job="expiry"}"#) && metrics.contains(#"cashier_job_runs_total{job="query_fallback"}"#)
        )
        await fixture.stop()
    }

    @Test func pendingPaymentsAreAskedAboutLessAndLessOften() {
        let schedule = QueryFallbackSchedule(maximumInterval: 60)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(schedule.isDue("ord", now: start))
        var waits: [TimeInterval] = []
        var now = start
        for _ in 0..<6 {
            schedule.backOff("ord", now: now, first: 10)
            var wait: TimeInterval = 0
            while !schedule.isDue("ord", now: now.addingTimeInterval(wait)) { wait += 1 }
            waits.append(wait)
            now = now.addingTimeInterval(wait)
        }
        #expect(waits == [10, 20, 40, 60, 60, 60])
        schedule.keep(only: [])
        #expect(schedule.isDue("ord", now: start))
    }

    @Test func aFailingProviderGetsClearErrorsSafeRetriesAndARest() async throws {
        // The breaker's rest is on the server's clock, moved by the test: no race with a loaded machine.
        let clock = ManualClock(Date())
        let fixture = try await ServerFixture(breakerThreshold: 3, breakerCooldown: 30, clock: clock)
        let order = try await fixture.createOrder(amount: "8.00")
        let id = try #require(order["id"] as? String)
        func start() async throws -> (status: Int, object: [String: Any], body: Data) {
            try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"])
        }
        func message(_ answer: (status: Int, object: [String: Any], body: Data)) -> String {
            (answer.object["error"] as? [String: String])?["message"] ?? ""
        }
        // The gateway answers garbage, then 5xx: a clear error each time, and the order did not move.
        fixture.sandbox.setFault(.garbage)
        let garbled = try await start()
        #expect(garbled.status == 502 && !message(garbled).isEmpty, "\(garbled.object)")
        fixture.sandbox.setFault(.serverError)
        for _ in 0..<3 {
            let down = try await start()
            #expect(down.status == 503 && !message(down).isEmpty, "\(down.object)")
        }
        #expect(try await fixture.store.order(id: id)?.status == .created)
        // Three outages in a row: WeChat's calls are paused — even now that it is back, none is sent.
        fixture.sandbox.setFault(.none)
        let paused = try await start()
        #expect(paused.status == 503 && message(paused).contains("paused"), "\(paused.object)")
        #expect(await fixture.sandbox.wechatV2.trade(outTradeNo: order["out_trade_no"] as? String ?? "") == nil)
        // After the rest, one call is tried, succeeds, and the order is placed once, under its own number.
        clock.advance(by: 31)
        let placed = try await start()
        #expect(placed.status == 200 && (placed.object["code_url"] as? String)?.hasPrefix("weixin://") == true)
        // An answer whose signature is not the provider's is refused, whichever provider, and moves nothing.
        fixture.sandbox.setFault(.badSignature)
        for method in [["method": "wechat.native", "api": "v2"], ["method": "wechat.native", "api": "v3"], ["method": "alipay.qr"]] {
            let other = try await fixture.createOrder(amount: "2.00")
            let otherID = try #require(other["id"] as? String)
            let forged = try await fixture.call("POST", "/v1/orders/\(otherID)/payments", json: method)
            #expect(forged.status == 502 && message(forged).lowercased().contains("sign"), "\(method): \(forged.object)")
            #expect(try await fixture.store.order(id: otherID)?.status == .created)
        }
        // A slow gateway is only slow.
        fixture.sandbox.setFault(.latency(.milliseconds(50)))
        #expect(try await fixture.call("GET", "/v1/orders/\(id)").status == 200)
        fixture.sandbox.setFault(.none)

        // A refund while the gateway is down fails cleanly; retried with its key, it happens once.
        await fixture.sandbox.wechatV2.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        fixture.sandbox.setFault(.serverError)
        let failed = try await fixture.call(
            "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "r-1"], json: ["amount": "3.00"])
        #expect(failed.status == 503 && !message(failed).isEmpty)
        #expect(try await fixture.store.order(id: id)?.refunded.minorUnits == 0)
        fixture.sandbox.setFault(.none)
        let retried = try await fixture.call(
            "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "r-1"], json: ["amount": "3.00"])
        #expect(retried.status == 200 && retried.object["status"] as? String == "partially_refunded")
        let ledger = try await WeChatPay.V2.Client(
            merchant: fixture.wechatMerchant, transport: ServerFixture.transport, baseURL: fixture.sandbox.wechatV2URL
        )
        .call("pay/refundquery", [("out_trade_no", order["out_trade_no"] as? String ?? "")])
        #expect(ledger["refund_count"] == "1" && ledger["refund_fee_0"] == "300")
        await fixture.stop()
    }
}
