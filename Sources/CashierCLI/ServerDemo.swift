import ApplePay
import Cashier
import CashierCrypto
import CashierSandbox
import CashierServer
import CashierStore
import Foundation
import WeChatPay

/// The merchant-server part of `cashier demo`: `cashier serve`'s server and the sandboxes in
/// process, driven over HTTP as a merchant's backend, an app and a payer would drive them.
enum ServerDemo {
    struct Session {
        let server: MerchantServer
        let sandbox: SandboxServer
        let secret: String
        let merchant: WeChatPay.V2.Merchant

        func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(secret)")
            let data = try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
            let response = try await URLSessionTransport().send(
                HTTPRequest(method: method, url: URL(string: server.baseURL.absoluteString + path)!, headers: headers, body: data))
            return (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
        }

        func order(_ amount: String, _ label: String) async throws -> (id: String, number: String) {
            let order = try await call(
                "POST", "/v1/orders", ["items": [["label": label, "amount": amount]], "currency": "CNY", "description": label])
            return (order["id"] as? String ?? "", order["out_trade_no"] as? String ?? "")
        }

        func status(_ id: String, becomes wanted: String) async throws -> Bool {
            for _ in 0..<250 {
                if try await call("GET", "/v1/orders/\(id)")["status"] as? String == wanted { return true }
                try await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
    }

    static func run(_ step: WeChatDemo.Step) async {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cashier-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let session: Session
        do {
            session = try await start(folder: folder)
        } catch {
            await step("server: start") { ("\(error)", false) }
            return
        }
        let clock = ContinuousClock()
        func timed(_ name: String, _ body: @escaping () async throws -> (String, Bool)) async {
            await step(name) {
                let start = clock.now
                let (detail, ok) = try await body()
                let milliseconds = (clock.now - start) / .milliseconds(1)
                return ("\(detail) (\(Int(milliseconds)) ms)", ok)
            }
        }
        await timed("server: wechat.app (v2)") {
            let order = try await session.order("18.00", "Mocha")
            let pay = try await session.call("POST", "/v1/orders/\(order.id)/payments", ["method": "wechat.app"])
            await session.sandbox.wechatV2.pay(outTradeNo: order.number, outcome: .success)
            let paid = try await session.status(order.id, becomes: "paid")
            return ("PayReq prepayid \((pay["wechat"] as? [String: String])?["prepayid"]?.prefix(12) ?? "?")…, notified → paid", paid)
        }
        await timed("server: wechat.native + refund") {
            let order = try await session.order("12.00", "Latte")
            _ = try await session.call("POST", "/v1/orders/\(order.id)/payments", ["method": "wechat.native"])
            await session.sandbox.wechatV2.pay(outTradeNo: order.number, outcome: .success)
            guard try await session.status(order.id, becomes: "paid") else { return ("never paid", false) }
            let refunded = try await session.call("POST", "/v1/orders/\(order.id)/refunds", ["amount": "2.00"])
            // The same notification again: acknowledged, nothing changes.
            let replayed = try await replay(session, order.number, minor: 1200)
            let status = refunded["status"] as? String ?? "?"
            return (
                "paid, refund 2.00 → \(status), replayed notification acknowledged: \(replayed)", status == "partially_refunded" && replayed
            )
        }
        await timed("server: alipay.app") {
            let order = try await session.order("8.80", "Tea")
            let pay = try await session.call("POST", "/v1/orders/\(order.id)/payments", ["method": "alipay.app"])
            let answer = await session.sandbox.alipay.payOrderString(pay["order_string"] as? String ?? "", outcome: .success)
            let paid = try await session.status(order.id, becomes: "paid")
            return ("resultStatus \(answer["resultStatus"] ?? "?"), the server's word: paid", paid)
        }
        await timed("server: alipay.qr") {
            let order = try await session.order("6.60", "Cake")
            let pay = try await session.call("POST", "/v1/orders/\(order.id)/payments", ["method": "alipay.qr"])
            await session.sandbox.alipay.pay(outTradeNo: order.number, outcome: .success)
            let paid = try await session.status(order.id, becomes: "paid")
            return ("QR \((pay["qr_code"] as? String)?.prefix(24) ?? "?")…, notified → paid", paid)
        }
        await timed("server: applepay (EC_v1)") {
            let order = try await session.order("46.00", "Beans")
            let pay = try await session.call("POST", "/v1/orders/\(order.id)/payments", ["method": "applepay"])
            let applicationData = ((pay["payment_request"] as? [String: Any])?["applicationData"] as? String).flatMap {
                try? Base64.decode($0)
            }
            let token = try await session.sandbox.applePay.mintPayment(
                amount: Money(minorUnits: 4600, currency: .cny), applicationData: applicationData.map(Array.init))
            let answer = try await session.call(
                "POST", "/v1/orders/\(order.id)/payments/applepay/authorize", ["token": try JSONSerialization.jsonObject(with: token)])
            return (
                "token verified and decrypted, status \(answer["status"] as? Int ?? -1) → \(answer["order_status"] as? String ?? "?")",
                answer["order_status"] as? String == "paid"
            )
        }
        await timed("server: close an unpaid order") {
            let order = try await session.order("3.00", "Water")
            _ = try await session.call("POST", "/v1/orders/\(order.id)/payments", ["method": "wechat.native"])
            let closed = try await session.call("POST", "/v1/orders/\(order.id)/close")
            let there = await session.sandbox.wechatV2.tradeState(outTradeNo: order.number) ?? "?"
            return ("closed here, \(there) at WeChat", closed["status"] as? String == "closed" && there == "CLOSED")
        }
        await session.server.stop()
        await session.sandbox.stop()
    }

    static func start(folder: URL) async throws -> Session {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let mode = try await SandboxMode.start(timeScale: 0.001)
        let server = MerchantServer(
            configuration: mode.configuration, store: try SQLiteOrderStore(path: folder.appendingPathComponent("demo.db").path))
        try await server.start()
        return Session(server: server, sandbox: mode.sandbox, secret: mode.configuration.secretKey, merchant: mode.wechatMerchant)
    }

    /// Sends a correctly signed copy of the payment notification again; `true` when it is
    /// acknowledged and the order did not move.
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
