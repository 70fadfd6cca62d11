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

/// The merchant server over real sockets, against the in-process sandboxes: orders, payment
/// parameters, notifications (verified, once), Apple Pay authorisation.
@Suite struct MerchantServerTests {
    @Test func ordersAuthAndIdempotency() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(key: "idem-1")
        #expect(order["status"] as? String == "created" && (order["amount"] as? [String: Any])?["amount_minor"] as? Int == 5100)
        let replay = try await fixture.createOrder(key: "idem-1")
        #expect(replay["id"] as? String == order["id"] as? String)
        let conflict = try await fixture.call(
            "POST", "/v1/orders", headers: ["Idempotency-Key": "idem-1"],
            json: ["items": [["label": "Tea", "amount": "1.00"]], "currency": "CNY"])
        #expect(conflict.status == 409)
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        // The app: publishable key plus client secret; it cannot create orders or read others.
        #expect(try await fixture.call("GET", "/v1/orders/\(id)?client_secret=\(secret)", key: fixture.keys.publishable).status == 200)
        #expect(try await fixture.call("GET", "/v1/orders/\(id)?client_secret=wrong", key: fixture.keys.publishable).status == 404)
        #expect(
            try await fixture.call("POST", "/v1/orders", key: fixture.keys.publishable, json: ["items": [], "currency": "CNY"]).status
                == 403)
        #expect(try await fixture.call("GET", "/v1/orders/\(id)", key: "sk_wrong").status == 401)
        let bad = try await fixture.call("POST", "/v1/orders", json: ["items": [["label": "x", "amount": "1.005"]], "currency": "CNY"])
        // A decimal amount too precise for the currency: the document's pattern allows it, the currency refuses it (422).
        #expect(bad.status == 422 && (bad.object["error"] as? [String: String])?["message"]?.contains("items[0].amount") == true)
        await fixture.stop()
    }

    @Test func wechatPaymentIsPaidOnceDespiteDuplicatesAndRefusesATamperedAmount() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder()
        let id = try #require(order["id"] as? String)
        let outTradeNo = try #require(order["out_trade_no"] as? String)
        let started = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.app"])
        #expect(started.status == 200)
        let wechat = try #require(started.object["wechat"] as? [String: String])
        #expect(wechat["package"] == "Sign=WXPay" && wechat["partnerid"] == "10000100" && wechat["sign"]?.isEmpty == false)

        // A forged notification (another amount, signed with the right key) changes nothing.
        let notifyURL = fixture.server.baseURL.absoluteString + "/notify/wechat/v2"
        func notification(totalFee: Int64) -> Data {
            var fields: [(String, String)] = [
                ("appid", fixture.wechatMerchant.appID), ("mch_id", fixture.wechatMerchant.mchID),
                ("nonce_str", SecureRandom.alphanumeric(count: 16)),
                ("result_code", "SUCCESS"), ("return_code", "SUCCESS"), ("out_trade_no", outTradeNo), ("transaction_id", "4200000001"),
                ("total_fee", String(totalFee)), ("fee_type", "CNY"), ("trade_type", "APP"), ("openid", "o1"),
                ("time_end", "20261129120000"),
            ]
            fields.append(("sign", fixture.wechatMerchant.signer.signature(for: fields, type: .md5)))
            return Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)
        }
        let forged = try await ServerFixture.transport.send(
            HTTPRequest(method: "POST", url: URL(string: notifyURL)!, body: notification(totalFee: 5099)))
        #expect(String(decoding: forged.body, as: UTF8.self).contains("FAIL"))
        #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String == "pending")

        // 50 copies of the genuine notification at once: one transition.
        let genuine = notification(totalFee: 5100)
        let replies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    String(
                        decoding: try await ServerFixture.transport.send(
                            HTTPRequest(method: "POST", url: URL(string: notifyURL)!, body: genuine)
                        ).body, as: UTF8.self)
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(replies.allSatisfy { $0.contains("SUCCESS") })
        #expect(try await fixture.call("GET", "/v1/orders/\(id)").object["status"] as? String == "paid")
        let events = try await fixture.store.events(orderID: id)
        #expect(events.filter { $0.to == .paid }.count == 1)
        #expect(events.filter { $0.kind == .notificationDuplicate }.count == 49)
        #expect(events.contains { $0.kind == .notificationRefused && $0.bodySHA256 != nil })
        #expect(try await fixture.store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10).map(\.type) == ["order.paid"])
        // /metrics counts them: one transition to paid, 50 acknowledged, 1 refused.
        let metrics = String(decoding: try await fixture.call("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"cashier_transitions_total{to="paid"} 1"#))
        #expect(metrics.contains(#"cashier_notifications_total{outcome="acknowledged",provider="wechat"} 50"#))
        #expect(metrics.contains(#"cashier_notifications_total{outcome="refused",provider="wechat"} 1"#))
        #expect(metrics.contains("# TYPE cashier_http_requests_total counter"))
        // A paid order takes no new payment.
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.app"]).status == 409)
        await fixture.stop()
    }

    @Test func sandboxPaymentsReachTheServer() async throws {
        let fixture = try await ServerFixture()
        // WeChat Native: the payer pays in the sandbox, the sandbox notifies the server.
        let native = try await fixture.createOrder(amount: "12.00")
        let nativeID = try #require(native["id"] as? String)
        let qr = try await fixture.call("POST", "/v1/orders/\(nativeID)/payments", json: ["method": "wechat.native"])
        #expect((qr.object["code_url"] as? String)?.hasPrefix("weixin://") == true)
        await fixture.sandbox.wechatV2.pay(outTradeNo: native["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(nativeID, "paid"))

        // Alipay app pay: the order string goes to the "Alipay app" (the sandbox payer API).
        let alipay = try await fixture.createOrder(amount: "8.80")
        let alipayID = try #require(alipay["id"] as? String)
        let secret = try #require(alipay["client_secret"] as? String)
        let app = try await fixture.call(
            "POST", "/v1/orders/\(alipayID)/payments", key: fixture.keys.publishable,
            json: ["method": "alipay.app", "client_secret": secret])
        let orderString = try #require(app.object["order_string"] as? String)
        let answer = await fixture.sandbox.alipay.payOrderString(orderString, outcome: .success)
        #expect(answer["resultStatus"] == "9000")
        #expect(try await fixture.waitForStatus(alipayID, "paid"))
        await fixture.stop()
    }

    @Test func applePayIsAuthorisedOnceForTheRightAmount() async throws {
        let fixture = try await ServerFixture()
        let id = try await fixture.createOrderID(amount: "46.00")
        let started = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "applepay"])
        let request = try #require(started.object["payment_request"] as? [String: Any])
        #expect((request["total"] as? [String: String])?["amount"] == "46.00")
        let appData = try #require(request["applicationData"] as? String)
        // A token for another amount is refused and nothing changes.
        let wrong = try await fixture.sandbox.applePay.mintPayment(
            amount: Money(minorUnits: 4500, currency: .cny), applicationData: Array(try Base64.decode(appData)))
        let refused = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments/applepay/authorize", json: ["token": try JSONSerialization.jsonObject(with: wrong)])
        #expect(refused.object["status"] as? Int == 1 && refused.object["order_status"] as? String == "pending")
        let token = try await fixture.sandbox.applePay.mintPayment(
            amount: Money(minorUnits: 4600, currency: .cny), applicationData: Array(try Base64.decode(appData)))
        let authorized = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments/applepay/authorize", json: ["token": try JSONSerialization.jsonObject(with: token)])
        #expect(authorized.object["status"] as? Int == 0 && authorized.object["order_status"] as? String == "paid")
        await fixture.stop()
    }

    @Test func wechatRefundsAreConfirmedByTheirNotification() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(amount: "9.00")
        let id = try #require(order["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"])
        await fixture.sandbox.wechatV2.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        #expect(
            try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "4.00"]).object["status"] as? String
                == "partially_refunded")
        await fixture.settled()
        #expect(try await fixture.store.events(orderID: id).contains { $0.kind == .refundNotification && $0.detail.contains("4.00") })
        // /metrics counts the refund by the status it reached.
        let metrics = String(decoding: try await fixture.call("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"cashier_refunds_total{status="succeeded"} 1"#), "\(metrics)")
        // A refund notification under another key does not decrypt: refused, nothing logged.
        let forged = Data(
            WeChatPay.V2.XMLDocument([
                ("return_code", "SUCCESS"), ("appid", fixture.wechatMerchant.appID), ("mch_id", fixture.wechatMerchant.mchID),
                ("req_info", "bm90IGVuY3J5cHRlZA=="),
            ]).xmlString.utf8)
        let answer = try await ServerFixture.transport.send(
            HTTPRequest(method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + "/notify/wechat/v2/refund")!, body: forged)
        )
        #expect(String(decoding: answer.body, as: UTF8.self).contains("FAIL"))
        await fixture.stop()
    }

    @Test func refundsNeverExceedWhatWasPaidAndUnpaidOrdersClose() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(amount: "30.00")
        let id = try #require(order["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "alipay.qr"])
        // Not paid yet: nothing to refund.
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "1.00"]).status == 409)
        await fixture.sandbox.alipay.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        let partial = try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "10.00", "reason": "one cup spilt"])
        #expect(partial.status == 200 && partial.object["status"] as? String == "partially_refunded")
        // A payment that is not this order's, or no payment at all: 404, nothing refunded.
        let other = try await fixture.createOrder(amount: "1.00")
        let otherID = try #require(other["id"] as? String)
        let paymentID = try #require(partial.object["payment_id"] as? String)
        #expect(try await fixture.call("POST", "/v1/orders/\(otherID)/refunds", json: ["payment": paymentID]).status == 404)
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["payment": "pay_nope", "amount": "1.00"]).status == 404)
        let tooMuch = try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount_minor": 2001])
        #expect(tooMuch.status == 409 && (tooMuch.object["error"] as? [String: String])?["code"] == "refund_too_large")
        let rest = try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: [String: String]())
        #expect(
            rest.object["status"] as? String == "refunded"
                && (rest.object["amount_refunded"] as? [String: Any])?["amount"] as? String == "30.00")
        // The publishable key cannot refund.
        #expect(
            try await fixture.call("POST", "/v1/orders/\(id)/refunds", key: fixture.keys.publishable, json: ["amount": "1.00"]).status
                == 401)
        // Each refund is confirmed by Alipay's refund notification (logged as it arrives, before or after the refund's line).
        await fixture.settled()
        let events = try await fixture.call("GET", "/v1/orders/\(id)/events")
        let kinds = (events.object["data"] as? [[String: Any]])?.compactMap { $0["kind"] as? String } ?? []
        #expect(
            kinds.filter { $0 != "refund_notification" } == ["payment_started", "notification", "refund", "refund"]
                && kinds.filter { $0 == "refund_notification" }.count == 2, "\(kinds)")

        // An unpaid order closes at the provider and here; a paid one cannot be closed.
        let unpaid = try await fixture.createOrder(amount: "5.00")
        let unpaidID = try #require(unpaid["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(unpaidID)/payments", json: ["method": "wechat.native"])
        let closed = try await fixture.call("POST", "/v1/orders/\(unpaidID)/close")
        #expect(closed.object["status"] as? String == "closed")
        #expect(await fixture.sandbox.wechatV2.tradeState(outTradeNo: unpaid["out_trade_no"] as? String ?? "") == "CLOSED")
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/close").status == 409)
        await fixture.stop()
    }

    @Test func theMerchantHearsOfThePaymentByWebhook() async throws {
        let receiver = try ServerFixture.receiver(failures: 0)
        let fixture = try await ServerFixture(webhook: .init(url: receiver.url, secret: "whsec_e2e"))
        let order = try await fixture.createOrder(amount: "7.00")
        let id = try #require(order["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "alipay.qr"])
        await fixture.sandbox.alipay.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        await fixture.settled()
        #expect(!receiver.received.isEmpty)
        let delivery = try #require(receiver.received.first)
        #expect(WebhookSignature.verify(header: delivery.signature, body: delivery.body, secret: "whsec_e2e"))
        let event = try JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any]
        #expect(event?["type"] as? String == "order.paid" && (event?["data"] as? [String: Any])?["order_id"] as? String == id)
        await fixture.stop()
        await receiver.server.stop()
    }

    @Test func theOpenAPIDocumentNamesExactlyTheRoutes() async throws {
        let fixture = try await ServerFixture()
        let document = try await fixture.call("GET", "/openapi.json", key: "")
        #expect(document.object["openapi"] as? String == "3.1.0")
        let paths = try #require(document.object["paths"] as? [String: [String: Any]])
        let documented = Set(paths.flatMap { path, methods in methods.keys.map { "\($0.uppercased()) \(path)" } })
        // The dashboard's and the checkout's pages are for browsers, not part of the API.
        let routed = Set(
            fixture.server.routeTable.filter {
                !$0.pattern.hasPrefix("/dashboard") && !$0.pattern.hasPrefix("/pay/") && !$0.pattern.hasPrefix("/c/")
            }.map {
                "\($0.method) \($0.pattern)"
            })
        #expect(
            documented == routed,
            "documented but not routed: \(documented.subtracting(routed)); routed but not documented: \(routed.subtracting(documented))")
        await fixture.stop()
    }

    @Test func ordersListNewestFirstInPages() async throws {
        let fixture = try await ServerFixture()
        var ids: [String] = []
        for _ in 0..<5 { ids.append(try #require(try await fixture.createOrder(amount: "1.00")["id"] as? String)) }
        _ = try await fixture.call("POST", "/v1/orders/\(ids[0])/close")
        let first = try await fixture.call("GET", "/v1/orders?limit=2")
        let firstIDs = (first.object["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
        #expect(firstIDs == [ids[4], ids[3]] && first.object["has_more"] as? Bool == true)
        let second = try await fixture.call("GET", "/v1/orders?limit=10&starting_after=\(ids[3])")
        #expect((second.object["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[2], ids[1], ids[0]])
        #expect(second.object["has_more"] as? Bool == false)
        let closed = try await fixture.call("GET", "/v1/orders?status=closed")
        #expect((closed.object["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[0]])
        #expect(try await fixture.call("GET", "/v1/orders?status=lost").status == 400)
        let number = try #require(try await fixture.store.order(id: ids[2])?.outTradeNo)
        let found = try await fixture.call("GET", "/v1/orders?out_trade_no=\(number)")
        #expect((found.object["data"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [ids[2]])
        #expect((try await fixture.call("GET", "/v1/orders?out_trade_no=\(number)&status=paid").object["data"] as? [Any])?.isEmpty == true)
        #expect(try await fixture.call("GET", "/v1/orders", key: fixture.keys.publishable).status == 401)
        await fixture.stop()
    }

    @Test func h5JSAPIAndWapPaymentsReachPaid() async throws {
        let fixture = try await ServerFixture()
        // WeChat H5: a page to open in the mobile browser.
        let h5 = try await fixture.createOrder(amount: "1.10")
        let h5ID = try #require(h5["id"] as? String)
        let h5Pay = try await fixture.call("POST", "/v1/orders/\(h5ID)/payments", json: ["method": "wechat.h5"])
        #expect(
            (h5Pay.object["mweb_url"] as? String)?.hasPrefix(fixture.sandbox.baseURL.absoluteString + "sandbox/wechat/h5?prepay_id=")
                == true)
        await fixture.sandbox.wechatV2.pay(outTradeNo: h5["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(h5ID, "paid"))

        // WeChat JSAPI: needs the payer's openid, answers the JSAPI parameters.
        let jsapi = try await fixture.createOrder(amount: "2.20")
        let jsapiID = try #require(jsapi["id"] as? String)
        #expect(try await fixture.call("POST", "/v1/orders/\(jsapiID)/payments", json: ["method": "wechat.jsapi"]).status == 422)
        let jsapiPay = try await fixture.call(
            "POST", "/v1/orders/\(jsapiID)/payments", json: ["method": "wechat.jsapi", "openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"])
        let parameters = try #require(jsapiPay.object["wechat"] as? [String: String])
        #expect(parameters.values.contains { $0.hasPrefix("prepay_id=") })
        await fixture.sandbox.wechatV2.pay(outTradeNo: jsapi["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(jsapiID, "paid"))

        // Alipay wap: a URL (and an auto-submitting form) for the browser; the payer pays on Alipay's page.
        let wap = try await fixture.createOrder(amount: "3.30")
        let wapID = try #require(wap["id"] as? String)
        #expect(try await fixture.call("POST", "/v1/orders/\(wapID)/payments", json: ["method": "alipay.wap"]).status == 422)
        let wapPay = try await fixture.call(
            "POST", "/v1/orders/\(wapID)/payments",
            json: ["method": "alipay.wap", "return_url": fixture.sandbox.baseURL.absoluteString + "return"])
        let url = try #require((wapPay.object["url"] as? String).flatMap(URL.init(string:)))
        #expect((wapPay.object["form"] as? String)?.contains("alipaysubmit") == true)
        #expect(try await ServerFixture.transport.send(HTTPRequest(method: "GET", url: url)).status == 200)  // the cashier page opens
        await fixture.sandbox.alipay.pay(outTradeNo: wap["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(wapID, "paid"))
        await fixture.stop()
    }

    @Test func wechatV3AndMiniProgramPaymentsArePaidRefundedAndChecked() async throws {
        let fixture = try await ServerFixture()
        let v3 = try #require(fixture.mode.configuration.wechatV3)
        // APP pay through API v3: the invoke signature verifies under the merchant's key.
        let app = try await fixture.createOrder(amount: "12.75")
        let appID = try #require(app["id"] as? String)
        let started = try await fixture.call("POST", "/v1/orders/\(appID)/payments", json: ["method": "wechat.app", "api": "v3"])
        #expect(started.status == 200 && started.object["api"] as? String == "v3")
        let wechat = try #require(started.object["wechat"] as? [String: String])
        let message = [wechat["appid"], wechat["timestamp"], wechat["noncestr"], wechat["prepayid"]].compactMap { $0 }.map { $0 + "\n" }
            .joined()
        #expect(
            v3.merchant.privateKey.publicKey.isValidSignature(
                try Base64.decode(wechat["sign"] ?? ""), for: Array(message.utf8), scheme: .insecurePKCS1v1_5SHA256))
        #expect(try await fixture.call("POST", "/v1/orders/\(appID)/payments", json: ["method": "wechat.app", "api": "v4"]).status == 400)
        await fixture.sandbox.wechatV3.pay(outTradeNo: app["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(appID, "paid"))
        // The refund goes through v3 too, and its REFUND.SUCCESS notification is logged.
        #expect(
            try await fixture.call("POST", "/v1/orders/\(appID)/refunds", json: ["amount": "2.75"]).object["status"] as? String
                == "partially_refunded")
        await fixture.settled()
        #expect(try await fixture.store.events(orderID: appID).contains { $0.kind == .refundNotification && $0.detail.contains("2.75") })

        // A mini program: js_code is exchanged for the openid on the server; the parameters are for the mini program's appid.
        for api in ["v2", "v3"] {
            let mini = try await fixture.createOrder(amount: "6.60")
            let miniID = try #require(mini["id"] as? String)
            #expect(
                try await fixture.call("POST", "/v1/orders/\(miniID)/payments", json: ["method": "wechat.miniprogram", "api": api]).status
                    == 422)
            let pay = try await fixture.call(
                "POST", "/v1/orders/\(miniID)/payments", json: ["method": "wechat.miniprogram", "api": api, "js_code": "code-\(api)"])
            let parameters = try #require(pay.object["wechat"] as? [String: String], "\(pay.object)")
            #expect(parameters["appId"] == SandboxMode.miniProgramAppID && parameters["package"]?.hasPrefix("prepay_id=") == true)
            #expect(parameters["signType"] == (api == "v3" ? "RSA" : "MD5"))
            // The same code twice is refused by WeChat: a clear provider error, not a payment.
            let reused = try await fixture.call(
                "POST", "/v1/orders/\(miniID)/payments", json: ["method": "wechat.miniprogram", "api": api, "js_code": "code-\(api)"])
            #expect(reused.status == 502)
            let number = mini["out_trade_no"] as? String ?? ""
            if api == "v2" {
                await fixture.sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
            } else {
                await fixture.sandbox.wechatV3.pay(outTradeNo: number, outcome: .success)
            }
            #expect(try await fixture.waitForStatus(miniID, "paid"), "\(api)")
        }

        // A genuinely signed v3 notification for one fen less is refused and changes nothing.
        let short = try await fixture.createOrder(amount: "5.00")
        let shortID = try #require(short["id"] as? String)
        let number = try #require(short["out_trade_no"] as? String)
        let direct = WeChatPay.V3.Client(
            merchant: v3.merchant, keys: v3.platformKeys, transport: ServerFixture.transport, baseURL: v3.baseURL)
        _ = try await direct.prepay(
            .native, appID: v3.appID, description: "short", outTradeNo: number, total: try Money(decimal: "4.99", currency: .cny),
            notifyURL: fixture.server.baseURL.absoluteString + "/notify/wechat/v3")
        await fixture.sandbox.wechatV3.pay(outTradeNo: number, outcome: .success)
        await fixture.settled()
        #expect(try await fixture.store.events(orderID: shortID).contains { $0.kind == .notificationRefused })
        #expect(try await fixture.store.order(id: shortID)?.status == .created)

        // Signed by someone else (the platform's serial, another key): 401, nothing recorded.
        let body = Data(#"{"id":"x","event_type":"TRANSACTION.SUCCESS","resource_type":"encrypt-resource","resource":{}}"#.utf8)
        let forger = TestKeys.rsa(4)
        let timestamp = String(Int(Date().timeIntervalSince1970))
        let signature = try forger.signature(
            for: "\(timestamp)\nnonce\n\(String(decoding: body, as: UTF8.self))\n", scheme: .insecurePKCS1v1_5SHA256)
        let forged = try await ServerFixture.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + "/notify/wechat/v3")!,
                headers: [
                    "Wechatpay-Timestamp": timestamp, "Wechatpay-Nonce": "nonce", "Wechatpay-Signature": Base64.encode(signature),
                    "Wechatpay-Serial": fixture.sandbox.wechatV3.platformCertificate.serialNumberHex, "Content-Type": "application/json",
                ], body: body))
        #expect(forged.status == 401)
        await fixture.stop()
    }

    @Test func theAppOrdersCatalogSKUsAndNeverSetsAPrice() async throws {
        let catalog = try CatalogTests.breakfast()
        let fixture = try await ServerFixture(catalog: catalog)
        let app = fixture.keys.publishable
        let order = try await fixture.call(
            "POST", "/v1/orders", key: app,
            json: ["items": [["sku": "latte", "quantity": 2], ["sku": "bagel"]], "description": "Breakfast"])
        #expect(order.status == 201, "\(order.object)")
        #expect((order.object["amount"] as? [String: Any])?["amount_minor"] as? Int == 3350)
        #expect((order.object["client_secret"] as? String)?.isEmpty == false)
        let bare = try await fixture.call(
            "POST", "/v1/orders", key: app, json: ["items": [["sku": "latte", "quantity": 2], ["sku": "bagel"]]])
        #expect(bare.object["description"] as? String == "2 × Latte, Bagel")
        // A price from the app, an unknown SKU, or a SKU with a price: refused, nothing created.
        let before = try await fixture.store.orders(status: nil, before: nil, limit: 100).count
        let priced = try await fixture.call(
            "POST", "/v1/orders", key: app, json: ["items": [["label": "Latte", "amount": "0.01"]], "currency": "CNY"])
        #expect(priced.status == 403)
        let unknown = try await fixture.call("POST", "/v1/orders", key: app, json: ["items": [["sku": "caviar"]]])
        #expect(unknown.status == 422 && (unknown.object["error"] as? [String: String])?["message"]?.contains("caviar") == true)
        let mixed = try await fixture.call("POST", "/v1/orders", key: app, json: ["items": [["sku": "latte", "amount": "0.01"]]])
        #expect(mixed.status == 403)
        #expect(try await fixture.store.orders(status: nil, before: nil, limit: 100).count == before)
        // The backend's idempotent answers stay the backend's: the app's key takes no Idempotency-Key
        // at all (every payer holds it, so one payer's key could replay another's order and secret).
        _ = try await fixture.createOrder(key: "shared-key")
        let countBefore = try await fixture.store.orders(status: nil, before: nil, limit: 100).count
        let replayed = try await fixture.call(
            "POST", "/v1/orders", key: app, headers: ["Idempotency-Key": "shared-key"], json: ["items": [["sku": "bagel"]]])
        #expect(replayed.status == 422 && replayed.object["id"] == nil && replayed.object["client_secret"] == nil)
        #expect(try await fixture.store.orders(status: nil, before: nil, limit: 100).count == countBefore)
        await fixture.stop()
    }

    @Test func theSandboxMintsApplePayTokensForAnOrderByItsID() async throws {
        let fixture = try await ServerFixture()
        await fixture.mode.connect(to: fixture.store)
        let id = try await fixture.createOrderID(amount: "46.00")
        _ = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "applepay"])
        func mint(_ body: [String: Any]) async throws -> (status: Int, token: Any?) {
            let response = try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: fixture.sandbox.baseURL.absoluteString + "sandbox/applepay/token")!,
                    body: try JSONSerialization.data(withJSONObject: body)))
            return (response.status, try? JSONSerialization.jsonObject(with: response.body))
        }
        #expect(try await mint(["order_id": "ord_nope"]).status == 404)
        // Another amount for this order: minted (that is how a test makes one), refused by the server.
        let wrong = try await mint(["order_id": id, "amount": "45.99"])
        let refused = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments/applepay/authorize", json: ["token": try #require(wrong.token)])
        #expect(
            refused.object["status"] as? Int == ApplePay.AuthorizationStatus.failure.rawValue
                && refused.object["order_status"] as? String == "pending")
        let right = try await mint(["order_id": id])
        let paid = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments/applepay/authorize", json: ["token": try #require(right.token)])
        #expect(paid.object["order_status"] as? String == "paid", "\(paid.object)")
        await fixture.stop()
    }

    @Test func theDashboardSignsInWithTheSecretKeyAndRefusesFormsWithoutTheirToken() async throws {
        let fixture = try await ServerFixture()
        let hostile = #"<script>alert("x")</script>"#
        let created = try await fixture.call(
            "POST", "/v1/orders", json: ["items": [["label": "Tea", "amount": "2.00"]], "currency": "CNY", "description": hostile])
        let id = try #require(created.object["id"] as? String)
        func browser(_ method: String, _ path: String, cookie: String? = nil, form: String? = nil) async throws -> HTTPResponse {
            var headers = HTTPHeaders()
            if let cookie { headers.add("Cookie", "cashier_session=\(cookie)") }
            if form != nil { headers.add("Content-Type", "application/x-www-form-urlencoded") }
            // libcurl, which (unlike URLSession) does not follow redirects: the 303s are what is checked.
            return try await ServerFixture.transport.send(
                HTTPRequest(
                    method: method, url: URL(string: fixture.server.baseURL.absoluteString + path)!, headers: headers,
                    body: Data((form ?? "").utf8)))
        }
        #expect(try await browser("GET", "/dashboard").headers["Location"] == "/dashboard/login")
        #expect(try await browser("POST", "/dashboard/login", form: "secret_key=sk_wrong").status == 401)
        let signedIn = try await browser("POST", "/dashboard/login", form: "secret_key=\(fixture.keys.secret)")
        let setCookie = try #require(signedIn.headers["Set-Cookie"])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/dashboard"))
        let session = try #require(setCookie.split(separator: ";").first?.split(separator: "=").last.map(String.init))
        let page = try await browser("GET", "/dashboard/orders/\(id)", cookie: session)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200 && !html.contains(hostile) && html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))
        let policy = page.headers["Content-Security-Policy"] ?? ""
        #expect(policy.contains("default-src 'none'") && !policy.contains("unsafe-inline") && policy.contains("frame-ancestors 'none'"))
        // The close form without its CSRF token: refused, the order untouched; with it: closed.
        #expect(try await browser("POST", "/dashboard/orders/\(id)/close", cookie: session, form: "csrf=forged").status == 403)
        #expect(try await fixture.store.order(id: id)?.status == .created)
        let token = try #require(html.range(of: #"name="csrf" value=""#).map { html[$0.upperBound...].prefix(32) })
        let closed = try await browser("POST", "/dashboard/orders/\(id)/close", cookie: session, form: "csrf=\(token)")
        #expect(closed.status == 303 && closed.headers["Location"]?.contains("message=Closed") == true)
        #expect(try await fixture.store.order(id: id)?.status == .closed)
        // The log names the session that closed it (not its cookie).
        let closedBy = try await fixture.store.events(orderID: id).last { $0.kind == .close }?.detail ?? ""
        #expect(closedBy.contains(#""by":"\#(DashboardSessions.actor(session))""#) && !closedBy.contains(session))
        // Signed out: the cookie no longer opens anything.
        _ = try await browser("POST", "/dashboard/logout", cookie: session, form: "csrf=\(token)")
        #expect(try await browser("GET", "/dashboard", cookie: session).headers["Location"] == "/dashboard/login")
        #expect(Dashboard.format(Money(minorUnits: 1275, currency: .cny)) == "¥12.75")
        #expect(Dashboard.format(Money(minorUnits: 1275, currency: try Currency(code: "KRW"))) == "1275 KRW")
        await fixture.stop()
    }

    @Test func aRetriedRefundWithItsIdempotencyKeyRefundsOnce() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(amount: "20.00")
        let id = try #require(order["id"] as? String)
        _ = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"])
        await fixture.sandbox.wechatV2.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        let first = try await fixture.call(
            "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "refund-1"], json: ["amount": "5.00"])
        let again = try await fixture.call(
            "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "refund-1"], json: ["amount": "5.00"])
        #expect(first.status == 200 && again.status == 200 && first.body == again.body)
        let other = try await fixture.call(
            "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "refund-1"], json: ["amount": "6.00"])
        #expect(other.status == 409)
        #expect(try await fixture.store.order(id: id)?.refunded.minorUnits == 500)
        #expect(try await fixture.store.events(orderID: id).filter { $0.kind == .refund }.count == 1)
        // Without a key, a second request is a second refund (as asked), still never beyond what was paid.
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "5.00"]).status == 200)
        #expect(try await fixture.store.order(id: id)?.refunded.minorUnits == 1000)
        await fixture.stop()
    }
}
