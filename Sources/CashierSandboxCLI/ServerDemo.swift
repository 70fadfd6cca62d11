import ApplePay
import Cashier
import CashierCrypto
import CashierSandbox
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import WeChatPay

/// The merchant-server part of `cashier-sandbox demo`: `cashier serve`'s server and the sandboxes in
/// process, driven over HTTP as a merchant's backend, an app and a payer would drive them — one
/// order per payment method, a refund, a close, a replayed notification, an order paid twice
/// (flagged and refunded to the payment that paid second), and the day reconciled.
enum ServerDemo {
    /// One order of the demo, for the closing table.
    struct OrderRow {
        let method: String
        let amount: String
        let expected: String
        let status: String
        let milliseconds: Int
        /// The order's hosted checkout page (`checkout_url`).
        let checkout: String
    }

    struct Session {
        let server: MerchantServer
        let store: SQLiteOrderStore
        let sandbox: SandboxServer
        let secret: String
        let merchant: WeChatPay.V2.Merchant

        func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
            try await send(method, server.baseURL.absoluteString + path, body, key: secret)
        }

        func send(_ method: String, _ url: String, _ body: [String: Any]?, key: String? = nil) async throws -> [String: Any] {
            var headers = HTTPHeaders()
            if let key { headers.add("Authorization", "Bearer \(key)") }
            let data = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
            let response = try await URLSessionTransport().send(
                HTTPRequest(method: method, url: URL(string: url)!, headers: headers, body: data))
            return (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
        }

        /// The payer, through the sandbox's payer API (`POST /sandbox/pay`).
        func pay(_ provider: String, _ fields: [String: String]) async throws -> [String: Any] {
            var body: [String: Any] = ["provider": provider, "outcome": "success"]
            for (key, value) in fields { body[key] = value }
            return try await send("POST", sandbox.baseURL.absoluteString + "sandbox/pay", body)
        }

        func order(_ amount: String, _ label: String, merchant: String? = nil) async throws -> Placed {
            var body: [String: Any] = ["items": [["label": label, "amount": amount]], "currency": "CNY", "description": label]
            if let merchant { body["merchant"] = merchant }
            let order = try await call("POST", "/v1/orders", body)
            return Placed(
                id: order["id"] as? String ?? "", number: order["out_trade_no"] as? String ?? "",
                secret: order["client_secret"] as? String ?? "", checkout: order["checkout_url"] as? String ?? "")
        }

        /// A page as a payer's browser gets it (`form`: posted as an HTML form).
        func page(_ url: String, agent: String, form: [String: String]? = nil) async throws -> String {
            var headers: HTTPHeaders = ["User-Agent": agent, "Accept-Language": "en"]
            var body = Data()
            if let form {
                headers.add("Content-Type", "application/x-www-form-urlencoded")
                body = Data(FormEncoding.encode(form.map { ($0.key, $0.value) }).utf8)
            }
            let response = try await URLSessionTransport().send(
                HTTPRequest(method: form == nil ? "GET" : "POST", url: URL(string: url)!, headers: headers, body: body))
            return String(decoding: response.body, as: UTF8.self)
        }

        func status(_ id: String, becomes wanted: String) async throws -> Bool {
            for _ in 0..<250 {
                if try await call("GET", "/v1/orders/\(id)")["status"] as? String == wanted { return true }
                try await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        func status(_ id: String) async throws -> String { try await call("GET", "/v1/orders/\(id)")["status"] as? String ?? "?" }
    }

    /// An order the merchant's backend created.
    struct Placed {
        let id: String
        let number: String
        let secret: String
        let checkout: String
    }

    /// Runs the server steps in a folder of their own, removed afterwards; returns the orders for
    /// the closing table.
    static func run(_ step: WeChatDemo.Step) async -> [OrderRow] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cashier-demo-\(UUID().uuidString)")
        let rows = await run(step, in: folder)
        // The store is closed by now: no connection is left to change the files while they go
        // (one still closing on its thread once made the removal stop short, leaving demo.db).
        try? FileManager.default.removeItem(at: folder)
        return rows
    }

    private static func run(_ step: WeChatDemo.Step, in folder: URL) async -> [OrderRow] {
        let session: Session
        do {
            session = try await start(folder: folder)
        } catch {
            await step("server: start") { ("\(error)", false) }
            return []
        }
        var rows: [OrderRow] = []
        let clock = ContinuousClock()
        /// One order through `method`: `body` places it, pays or leaves it, and says what happened.
        func order(
            _ method: String, _ amount: String, expect expected: String, merchant: String? = nil,
            _ body: @escaping (Placed) async throws -> String
        ) async {
            await step("server: \(method)") {
                let start = clock.now
                let placed = try await session.order(amount, method, merchant: merchant)
                let detail = try await body(placed)
                let status = try await session.status(placed.id)
                let milliseconds = Int((clock.now - start) / .milliseconds(1))
                rows.append(
                    OrderRow(
                        method: method, amount: amount, expected: expected, status: status, milliseconds: milliseconds,
                        checkout: placed.checkout))
                return ("\(detail) → \(status) (\(milliseconds) ms)", status == expected)
            }
        }
        func payments(_ id: String, _ body: [String: Any]) async throws -> [String: Any] {
            try await session.call("POST", "/v1/orders/\(id)/payments", body)
        }

        await order("wechat.app (v2)", "18.00", expect: "paid") { placed in
            let pay = try await payments(placed.id, ["method": "wechat.app", "api": "v2"])
            _ = try await session.pay("wechat", ["out_trade_no": placed.number])
            _ = try await session.status(placed.id, becomes: "paid")
            return "PayReq signed MD5, prepayid \((pay["wechat"] as? [String: String])?["prepayid"]?.prefix(10) ?? "?")…, notified"
        }
        await order("wechat.app (v3)", "19.00", expect: "paid") { placed in
            let pay = try await payments(placed.id, ["method": "wechat.app", "api": "v3"])
            _ = try await session.pay("wechat", ["out_trade_no": placed.number])
            _ = try await session.status(placed.id, becomes: "paid")
            return "PayReq signed RSA (\((pay["wechat"] as? [String: String])?["sign"]?.count ?? 0) chars), AES-GCM notification"
        }
        await order("wechat.miniprogram (JSAPI)", "9.90", expect: "paid") { placed in
            // wx.login's code goes to the server, which exchanges it for the payer's openid.
            let pay = try await payments(placed.id, ["method": "wechat.miniprogram", "api": "v3", "js_code": "demo-\(placed.number)"])
            _ = try await session.pay("wechat", ["out_trade_no": placed.number])
            _ = try await session.status(placed.id, becomes: "paid")
            return
                "js_code → openid on the server, wx.requestPayment \((pay["wechat"] as? [String: String])?["package"]?.prefix(14) ?? "?")…"
        }
        await order("wechat.native + refund + replay", "12.00", expect: "partially_refunded") { placed in
            let pay = try await payments(placed.id, ["method": "wechat.native"])
            _ = try await session.pay("wechat", ["out_trade_no": placed.number])
            guard try await session.status(placed.id, becomes: "paid") else { return "never paid" }
            _ = try await session.call("POST", "/v1/orders/\(placed.id)/refunds", ["amount": "2.00"])
            // The same notification again: acknowledged, nothing changes.
            let replayed = try await replay(session, placed.number, minor: 1200)
            return
                "QR \((pay["code_url"] as? String)?.prefix(18) ?? "?")…, paid, refund 2.00, replayed notification \(replayed ? "acknowledged" : "REFUSED")"
        }
        await order("wechat.native + refund in WeChat's platform", "16.00", expect: "partially_refunded") { placed in
            _ = try await payments(placed.id, ["method": "wechat.native"])
            _ = try await session.pay("wechat", ["out_trade_no": placed.number])
            guard try await session.status(placed.id, becomes: "paid") else { return "never paid" }
            // The merchant refunds 4.00 in WeChat Pay's merchant platform, not through Cashier; WeChat says so.
            let number = try await session.sandbox.wechatV2.consoleRefund(
                outTradeNo: placed.number, fee: 400, notifyURL: session.server.baseURL.absoluteString + "/notify/wechat/v2/refund")
            guard try await session.status(placed.id, becomes: "partially_refunded") else { return "the refund was not recorded" }
            return "refund \(number.prefix(10))… recorded from WeChat's notification (requested by wechat)"
        }
        await order("alipay.app", "8.80", expect: "paid") { placed in
            let pay = try await payments(placed.id, ["method": "alipay.app"])
            let answer = try await session.pay("alipay", ["order_string": pay["order_string"] as? String ?? ""])
            _ = try await session.status(placed.id, becomes: "paid")
            return "order string signed RSA2, resultStatus \(answer["resultStatus"] as? String ?? "?"), the server's word"
        }
        await order("alipay.wap", "6.60", expect: "paid") { placed in
            // Alipay sends the browser back only to an origin the server lists (sandbox mode lists the sandbox's own).
            let pay = try await payments(
                placed.id, ["method": "alipay.wap", "return_url": session.sandbox.baseURL.absoluteString + "return"])
            // The payer's browser opens Alipay's cashier page, then the payer pays.
            let page = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: URL(string: pay["url"] as? String ?? "")!))
            guard page.status == 200 else { return "the cashier page answered HTTP \(page.status)" }
            _ = try await session.pay("alipay", ["out_trade_no": placed.number])
            _ = try await session.status(placed.id, becomes: "paid")
            return "cashier page \((pay["url"] as? String).flatMap { URL(string: $0)?.path } ?? "?"), notified"
        }
        await order("applepay via Stripe + refund", "46.00", expect: "refunded") { placed in
            _ = try await payments(placed.id, ["method": "applepay"])
            // The device: a token minted by the sandbox for this order (its amount, its id as applicationData).
            let token = try await session.send(
                "POST", session.sandbox.baseURL.absoluteString + "sandbox/applepay/token", ["order_id": placed.id])
            let answer = try await session.call("POST", "/v1/orders/\(placed.id)/payments/applepay/authorize", ["token": token])
            let paid = try await session.call("GET", "/v1/orders/\(placed.id)")
            let intent = ((paid["payments"] as? [[String: Any]])?.first { $0["status"] as? String == "succeeded" })?["transaction_id"]
            let refund = try await session.call("POST", "/v1/orders/\(placed.id)/refunds", ["reason": "demo"])
            let back = ((refund["refund"] as? [String: Any])?["provider_refund_id"] as? String) ?? "?"
            return "token verified, PKPaymentAuthorizationStatus \(answer["status"] as? Int ?? -1), Stripe \(intent as? String ?? "?"), "
                + "refunded \(back.prefix(10))…"
        }
        await order("applepay via Stripe, disputed", "18.00", expect: "refunded") { placed in
            _ = try await payments(placed.id, ["method": "applepay"])
            let token = try await session.send(
                "POST", session.sandbox.baseURL.absoluteString + "sandbox/applepay/token", ["order_id": placed.id])
            _ = try await session.call("POST", "/v1/orders/\(placed.id)/payments/applepay/authorize", ["token": token])
            let paid = try await session.call("GET", "/v1/orders/\(placed.id)")
            let intent = ((paid["payments"] as? [[String: Any]])?.first { $0["status"] as? String == "succeeded" })?["transaction_id"]
            // The payer's bank disputes the charge; Stripe takes the funds and says so by a signed event.
            let disputed = try await session.send(
                "POST", session.sandbox.baseURL.absoluteString + "sandbox/stripe/dispute",
                ["payment_intent": intent as? String ?? "", "event": "funds_withdrawn"])
            guard disputed["event"] != nil else { return "the sandbox's Stripe did not open a dispute: \(disputed)" }
            guard try await session.status(placed.id, becomes: "refunded") else { return "the dispute's event was not recorded" }
            return "charge.dispute.funds_withdrawn verified (Stripe-Signature), recorded as a chargeback"
        }
        await order("applepay via Stripe, processing", "19.56", expect: "paid") { placed in
            _ = try await payments(placed.id, ["method": "applepay"])
            let token = try await session.send(
                "POST", session.sandbox.baseURL.absoluteString + "sandbox/applepay/token", ["order_id": placed.id])
            // The sandbox's Stripe leaves an amount ending in 56 processing: the sheet completes, the order waits.
            let answer = try await session.call("POST", "/v1/orders/\(placed.id)/payments/applepay/authorize", ["token": token])
            guard answer["order_status"] as? String == "pending" else { return "an undecided PaymentIntent counted as paid: \(answer)" }
            let waiting = try await session.call("GET", "/v1/orders/\(placed.id)")
            let intent = ((waiting["payments"] as? [[String: Any]])?.first { $0["status"] as? String == "pending" })?["transaction_id"]
            _ = try await session.send(
                "POST", session.sandbox.baseURL.absoluteString + "sandbox/stripe/decide",
                ["payment_intent": intent as? String ?? "", "outcome": "succeeded"])
            guard try await session.status(placed.id, becomes: "paid") else { return "Stripe's decision was not recorded" }
            return "pending while Stripe processed; payment_intent.succeeded verified, paid once"
        }
        await order("paid twice: flagged, refunded", "7.70", expect: "paid") { placed in
            // An order string the payer never opened cannot be closed: paid after WeChat, it is a second payment.
            let stale = try await payments(placed.id, ["method": "alipay.app"])
            _ = try await payments(placed.id, ["method": "wechat.native"])
            _ = try await session.pay("wechat", ["out_trade_no": placed.number])
            guard try await session.status(placed.id, becomes: "paid") else { return "never paid" }
            _ = try await session.pay("alipay", ["order_string": stale["order_string"] as? String ?? ""])
            var flagged: [String: Any] = [:]
            for _ in 0..<250 where flagged["refund_required"] as? Bool != true {
                try await Task.sleep(for: .milliseconds(20))
                flagged = try await session.call("GET", "/v1/orders/\(placed.id)")
            }
            let second = (flagged["payments"] as? [[String: Any]])?.first { $0["refund_required"] as? Bool == true }
            guard let id = second?["id"] as? String else { return "the second payment was not flagged" }
            let refund = try await session.call("POST", "/v1/orders/\(placed.id)/refunds", ["payment": id, "reason": "paid twice"])
            return "second payment \(second?["method"] as? String ?? "?") flagged refund_required, refunded to it "
                + "(refund_required now \(refund["refund_required"] as? Bool ?? true))"
        }
        await order("checkout page (desktop → QR)", "15.00", expect: "paid") { placed in
            // The payer opens the order's checkout_url on a desktop: WeChat's QR code and Alipay's page are offered.
            let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36"
            let page = try await session.page(placed.checkout, agent: desktop)
            guard page.contains("id=\"pay-wechat.native\""), page.contains("id=\"pay-alipay.page\"") else { return "no QR offered" }
            let qr = try await session.page(
                session.server.baseURL.absoluteString + "/pay/\(placed.id)", agent: desktop,
                form: ["client_secret": placed.secret, "method": "wechat.native"])
            guard qr.contains("<svg") else { return "no QR code shown" }
            _ = try await session.pay("wechat", ["out_trade_no": placed.number])
            _ = try await session.status(placed.id, becomes: "paid")
            return "/pay/\(placed.id.prefix(8))… offered wechat.native and alipay.page, showed the QR code, paid"
        }
        await order("wechat.barcode (counter, password)", "88.00", expect: "paid") { placed in
            // The till scans the payer's code; the payer enters a password (the sandbox's code ending 1111): the server queries.
            let start = ContinuousClock.now
            let answer = try await payments(placed.id, ["method": "wechat.barcode", "auth_code": "134567890123451111"])
            let waited = Int((ContinuousClock.now - start) / .milliseconds(1))
            return "micropay USERPAYING, queried until \(answer["status"] as? String ?? "?") after \(waited) ms, "
                + "transaction \((answer["transaction_id"] as? String)?.prefix(10) ?? "?")…"
        }
        await order("sub-merchant north: wechat.app (v3 partner) + refund", "26.00", expect: "partially_refunded", merchant: "north") {
            placed in
            let pay = try await payments(placed.id, ["method": "wechat.app", "api": "v3"])
            await session.sandbox.wechatV3.pay(outTradeNo: placed.number, outcome: .success)
            guard try await session.status(placed.id, becomes: "paid") else { return "never paid" }
            _ = try await session.call("POST", "/v1/orders/\(placed.id)/refunds", ["amount": "6.00"])
            return "/v3/pay/partner/transactions/app, partnerid \((pay["wechat"] as? [String: String])?["partnerid"] ?? "?") (sub_mchid), "
                + "notified on /notify/wechat/v3/m/north, refund 6.00"
        }
        await order("close an unpaid order", "3.00", expect: "closed") { placed in
            _ = try await payments(placed.id, ["method": "wechat.native"])
            _ = try await session.call("POST", "/v1/orders/\(placed.id)/close")
            return "closed here and \(await session.sandbox.wechatV2.tradeState(outTradeNo: placed.number) ?? "?") at WeChat"
        }
        await step("server: reconcile today") {
            let today = BeijingTime.formatter("yyyy-MM-dd").string(from: Date())
            let report = try await session.server.reconcile(date: today)
            let rows = report.bill_rows.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            return (
                "bills (\(rows)): \(report.matched) matched, \(report.discrepancies.count) discrepancies",
                report.discrepancies.isEmpty && report.matched == 21 && report.refund_required.isEmpty && report.not_reconciled.isEmpty
            )
        }
        await session.server.stop()
        await session.sandbox.stop()
        await session.store.close()
        return rows
    }

    static func start(folder: URL) async throws -> Session {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let mode = try await SandboxMode.start(timeScale: 0.001)
        await mode.sandbox.wechatV2.setPasswordDelay(0.4)  // a quick payer at the counter
        let store = try SQLiteOrderStore(path: folder.appendingPathComponent("demo.db").path)
        await mode.connect(to: store)
        let server = MerchantServer(configuration: mode.configuration, store: store, audit: SecretsAudit.fromEnvironment())
        do {
            try await server.start()
        } catch {
            await store.close()
            await mode.sandbox.stop()
            throw error
        }
        mode.connectStripeEvents(to: server.baseURL)
        return Session(
            server: server, store: store, sandbox: mode.sandbox, secret: mode.configuration.secretKey, merchant: mode.wechatMerchant)
    }

    /// Sends a correctly signed copy of the payment notification again; `true` when it is
    /// acknowledged (the order does not move: the table shows it).
    static func replay(_ session: Session, _ number: String, minor: Int64) async throws -> Bool {
        var fields: [(String, String)] = [
            ("appid", session.merchant.appID), ("mch_id", session.merchant.mchID), ("nonce_str", SecureRandom.alphanumeric(count: 16)),
            ("result_code", "SUCCESS"), ("return_code", "SUCCESS"), ("out_trade_no", number), ("transaction_id", "4200000000demo"),
            ("total_fee", String(minor)), ("fee_type", "CNY"), ("trade_type", "NATIVE"), ("openid", "demo"), ("time_end", "20261129120000"),
        ]
        fields.append(("sign", session.merchant.signer.signature(for: fields, type: .md5)))
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: URL(string: session.server.baseURL.absoluteString + "/notify/wechat/v2")!,
                body: Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)))
        return String(decoding: response.body, as: UTF8.self).contains("SUCCESS")
    }
}
