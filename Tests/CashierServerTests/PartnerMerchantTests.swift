import Alipay
import Cashier
import CashierCrypto
import CashierCurl
import CashierHTTP
import CashierSandbox
import CashierSandboxMode
import Foundation
import TestSupport
import Testing
import WeChatPay

@testable import CashierServer

/// A direct merchant and a sub-merchant of a service provider / ISV in one server: each order is
/// placed, paid, notified, refunded and reconciled under its own merchant — WeChat Pay v2 with
/// `sub_mch_id`, v3 through the partner APIs, Alipay with the sub-merchant's `app_auth_token` —
/// and one merchant's notification path never records another's payment.
@Suite struct PartnerMerchantTests {
    static let north = SandboxMode.subMerchantID

    static func order(_ fixture: ServerFixture, _ amount: String, merchant: String?, key: String? = nil) async throws
        -> (id: String, number: String, object: [String: Any])
    {
        var body: [String: Any] = ["items": [["label": "Latte", "amount": amount]], "currency": "CNY", "description": "Latte"]
        if let merchant { body["merchant"] = merchant }
        let created = try await fixture.call("POST", "/v1/orders", key: key, json: body)
        try #require(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        return (created.object["id"] as? String ?? "", created.object["out_trade_no"] as? String ?? "", created.object)
    }

    @Test func aSubMerchantAndTheDirectMerchantArePaidRefundedAndReconciledApart() async throws {
        let fixture = try await ServerFixture()
        let books = { () async -> [SandboxLedgerEntry] in
            (await fixture.sandbox.wechatV2.ledger()) + (await fixture.sandbox.wechatV3.ledger()) + (await fixture.sandbox.alipay.ledger())
        }
        // The direct merchant: as before.
        let direct = try await Self.order(fixture, "10.00", merchant: nil)
        #expect(direct.object["merchant"] is NSNull || direct.object["merchant"] == nil)
        #expect(try await fixture.call("POST", "/v1/orders/\(direct.id)/payments", json: ["method": "wechat.native"]).status == 200)
        await fixture.sandbox.wechatV2.pay(outTradeNo: direct.number, outcome: .success)
        #expect(try await fixture.waitForStatus(direct.id, "paid"))

        // The sub-merchant, through each provider: placed under the service provider naming the sub-merchant.
        var paid: [(id: String, number: String, method: String)] = []
        for (method, api) in [("wechat.native", "v2"), ("wechat.app", "v3"), ("alipay.qr", nil)] as [(String, String?)] {
            let order = try await Self.order(fixture, "20.00", merchant: Self.north)
            #expect(order.object["merchant"] as? String == Self.north)
            var body: [String: Any] = ["method": method]
            if let api { body["api"] = api }
            let started = try await fixture.call("POST", "/v1/orders/\(order.id)/payments", json: body)
            #expect(started.status == 200, "\(method): \(String(decoding: started.body, as: UTF8.self))")
            if method == "wechat.app" {
                // The app pays the sub-merchant: partnerid is its sub_mchid.
                #expect((started.object["wechat"] as? [String: String])?["partnerid"] == SandboxMode.subMerchantWeChatID)
            }
            switch (method, api) {
            case ("alipay.qr", _): await fixture.sandbox.alipay.pay(outTradeNo: order.number, outcome: .success)
            case (_, "v3"): await fixture.sandbox.wechatV3.pay(outTradeNo: order.number, outcome: .success)
            default: await fixture.sandbox.wechatV2.pay(outTradeNo: order.number, outcome: .success)
            }
            #expect(try await fixture.waitForStatus(order.id, "paid"), "\(method)")
            paid.append((order.id, order.number, method))
        }
        // At the counter too.
        let counter = try await Self.order(fixture, "6.00", merchant: Self.north)
        let collected = try await fixture.call(
            "POST", "/v1/orders/\(counter.id)/payments", json: ["method": "wechat.barcode", "auth_code": "134567890123450000"])
        #expect(collected.status == 200 && collected.object["status"] as? String == "paid")

        // The providers' books: the sub-merchant's trades are the service provider's, naming the sub-merchant.
        let ledger = await books()
        let v2Trade = await fixture.sandbox.wechatV2.ledger().first { $0.out_trade_no == paid[0].number }
        #expect(v2Trade?.paid == true)
        #expect(ledger.first { $0.out_trade_no == direct.number }?.paid == true)

        // Refunds go through the same merchant and are confirmed by its notifications.
        for order in paid {
            let refunded = try await fixture.call("POST", "/v1/orders/\(order.id)/refunds", json: ["amount": "5.00"])
            #expect(refunded.status == 200, "\(order.method): \(String(decoding: refunded.body, as: UTF8.self))")
            let number = try #require((refunded.object["refund"] as? [String: Any])?["out_refund_no"] as? String)
            await fixture.settled()
            #expect(try await fixture.store.refund(outRefundNo: number)?.confirmedAt != nil, "\(order.method)")
        }
        let refundedBooks = await books()
        for order in paid { #expect(refundedBooks.first { $0.out_trade_no == order.number }?.refunded_minor == 500) }

        // Reconciliation covers both merchants' bills: nothing disagrees.
        let today = BeijingTime.formatter("yyyy-MM-dd").string(from: Date())
        let report = try await fixture.server.reconcile(date: today)
        #expect(report.discrepancies.isEmpty, "\(report.discrepancies)")
        #expect(report.matched >= 8)
        await fixture.stop()
    }

    @Test func oneMerchantsPathNeverRecordsAnothersPayment() async throws {
        let fixture = try await ServerFixture()
        let mode = fixture.mode.configuration
        let sp = try #require(mode.serviceProvider?.wechat?.merchant)
        let order = try await Self.order(fixture, "8.00", merchant: Self.north)
        _ = try await fixture.call("POST", "/v1/orders/\(order.id)/payments", json: ["method": "wechat.native"])
        func notification(subMchID: String?) -> Data {
            var fields: [(String, String)] = [
                ("appid", sp.appID), ("mch_id", sp.mchID), ("nonce_str", "n"), ("result_code", "SUCCESS"), ("return_code", "SUCCESS"),
                ("out_trade_no", order.number), ("transaction_id", "4200000002"), ("total_fee", "800"), ("fee_type", "CNY"),
                ("trade_type", "NATIVE"), ("openid", "o1"), ("time_end", "20261201120000"),
            ]
            if let subMchID { fields.append(("sub_mch_id", subMchID)) }
            fields.append(("sign", sp.signer.signature(for: fields, type: .md5)))
            return Data(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)
        }
        func post(_ path: String, _ body: Data) async throws -> String {
            String(
                decoding: try await ServerFixture.transport.send(
                    HTTPRequest(method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + path)!, body: body)
                ).body, as: UTF8.self)
        }
        // Signed by the service provider, but naming another sub-merchant, or none: refused on north's path.
        #expect(try await post("/notify/wechat/v2/m/north", notification(subMchID: "1900000999")).contains("FAIL"))
        #expect(try await post("/notify/wechat/v2/m/north", notification(subMchID: nil)).contains("FAIL"))
        // The direct merchant's path does not take the service provider's messages.
        #expect(try await post("/notify/wechat/v2", notification(subMchID: SandboxMode.subMerchantWeChatID)).contains("FAIL"))
        // An unknown merchant's path does not exist.
        #expect(try await post("/notify/wechat/v2/m/south", notification(subMchID: SandboxMode.subMerchantWeChatID)).contains("not_found"))
        #expect(try await fixture.call("GET", "/v1/orders/\(order.id)").object["status"] as? String == "pending")
        // The genuine one, on north's path.
        #expect(try await post("/notify/wechat/v2/m/north", notification(subMchID: SandboxMode.subMerchantWeChatID)).contains("SUCCESS"))
        #expect(try await fixture.call("GET", "/v1/orders/\(order.id)").object["status"] as? String == "paid")
        await fixture.stop()
    }

    @Test func aMerchantsKeyActsForThatMerchantOnly() async throws {
        let fixture = try await ServerFixture()
        let (northKey, record) = MerchantServer.makeSecretKey(label: "north's backend", merchant: Self.north)
        try await fixture.store.createAPIKey(record)
        // Orders it makes are north's; it cannot make another merchant's.
        let own = try await Self.order(fixture, "3.00", merchant: nil, key: northKey)
        #expect(own.object["merchant"] as? String == Self.north)
        let unknown = try await fixture.call(
            "POST", "/v1/orders", json: ["items": [["label": "x", "amount": "1.00"]], "currency": "CNY", "merchant": "south"])
        #expect(unknown.status == 422)
        // It reads north's orders, not the direct merchant's.
        let direct = try await Self.order(fixture, "4.00", merchant: nil)
        #expect(try await fixture.call("GET", "/v1/orders/\(own.id)", key: northKey).status == 200)
        #expect(try await fixture.call("GET", "/v1/orders/\(direct.id)", key: northKey).status == 404)
        #expect(try await fixture.call("POST", "/v1/orders/\(direct.id)/refunds", key: northKey, json: ["amount": "1.00"]).status == 404)
        // Each order paid at the counter and refunded 1.00, each by its own key.
        for (order, key) in [(own, northKey), (direct, fixture.keys.secret)] {
            let paid = try await fixture.call(
                "POST", "/v1/orders/\(order.id)/payments", key: key, json: ["method": "wechat.barcode", "auth_code": "134567890123450000"])
            #expect(paid.object["status"] as? String == "paid", "\(String(decoding: paid.body, as: UTF8.self))")
            let refunded = try await fixture.call("POST", "/v1/orders/\(order.id)/refunds", key: key, json: ["amount": "1.00"])
            #expect(refunded.status == 200, "\(String(decoding: refunded.body, as: UTF8.self))")
        }
        // Its lists and exports hold north's records only; the platform's hold both merchants'.
        func listed(_ path: String, key: String?) async throws -> Set<String> {
            let page = try await fixture.call("GET", path, key: key)
            #expect(page.status == 200, "\(path): \(page.status)")
            return Set((page.object["data"] as? [[String: Any]] ?? []).compactMap { $0["order_id"] as? String ?? $0["id"] as? String })
        }
        #expect(try await listed("/v1/orders", key: northKey) == [own.id])
        #expect(try await listed("/v1/orders?out_trade_no=\(direct.number)", key: northKey).isEmpty)
        #expect(try await listed("/v1/orders?out_trade_no=\(own.number)", key: northKey) == [own.id])
        #expect(try await listed("/v1/payments", key: northKey) == [own.id])
        #expect(try await listed("/v1/refunds", key: northKey) == [own.id])
        for path in ["/v1/orders", "/v1/payments", "/v1/refunds"] {
            #expect(try await listed(path, key: nil).isSuperset(of: [own.id, direct.id]), "\(path)")
        }
        let day = { (offset: Double) in Date().addingTimeInterval(offset * 86_400).formatted(.iso8601.year().month().day()) }
        let range = "?from=\(day(-1))&to=\(day(1))"
        let export = try await fixture.call("GET", "/v1/exports/payments.csv" + range, key: northKey)
        let exported = String(decoding: export.body, as: UTF8.self)
        #expect(export.status == 200 && exported.contains(own.id) && !exported.contains(direct.id), "\(exported)")
        let platformExport = String(decoding: try await fixture.call("GET", "/v1/exports/payments.csv" + range).body, as: UTF8.self)
        #expect(platformExport.contains(own.id) && platformExport.contains(direct.id))
        // What belongs to the platform as a whole stays the platform's: reconciliation, the webhook log, the dashboard.
        for path in ["/v1/webhooks", "/v1/reconciliations/2026-12-01"] {
            let refused = try await fixture.call("GET", path, key: northKey)
            #expect(refused.status == 403, "\(path): \(refused.status)")
        }
        let signIn = try await ServerFixture.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + "/dashboard/login")!,
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data("secret_key=\(northKey)".utf8)))
        #expect(signIn.status == 401 && signIn.headers["Set-Cookie"] == nil)
        // The platform's key sees both.
        #expect(try await fixture.call("GET", "/v1/orders/\(own.id)").status == 200)
        await fixture.stop()
    }
}
