import CashierSandbox
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Issue 58, item 1: a barcode payment is collected at the merchant's counter, by its backend. The
/// publishable key ships inside every copy of the app and an order's client secret is handed to
/// its payer, so with both anyone could charge whatever payment code (付款码) they have seen: the
/// attempt is refused before anything is reserved or sent to the provider.
@Suite struct BarcodeKeyTests {
    @Test(arguments: [("wechat.barcode", "134567890123450000"), ("alipay.barcode", "286543210987650000")])
    func thePublishableKeyChargesNoPayersCode(method: String, authCode: String) async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(amount: "9.00")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        let books = { () async -> Int in
            (await fixture.sandbox.wechatV2.ledger()).count + (await fixture.sandbox.alipay.ledger()).count
        }
        let tradesBefore = await books()
        // As an attacker holding the app and one order would send it: the app's key, the order's
        // secret, someone else's code.
        let refused = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments", key: fixture.keys.publishable,
            json: ["method": method, "auth_code": authCode, "client_secret": secret])
        #expect(refused.status == 403, "\(String(decoding: refused.body, as: UTF8.self))")
        #expect((refused.object["error"] as? [String: Any])?["code"] as? String == "forbidden")
        // Nothing collected: no attempt here, no trade at the provider, the order as it was.
        #expect(try await fixture.store.payments(orderID: id).isEmpty)
        #expect(await books() == tradesBefore)
        #expect(try await fixture.store.order(id: id)?.status == .created)
        // Without the client secret the answer says no more (the same 403, before the order is read).
        let blind = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments", key: fixture.keys.publishable, json: ["method": method, "auth_code": authCode])
        #expect(blind.status == 403)
        // The backend's secret key collects it, as the counter does.
        let collected = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": method, "auth_code": authCode])
        #expect(collected.status == 200 && collected.object["status"] as? String == "paid", "\(collected.object)")
        #expect(await books() == tradesBefore + 1)
        await fixture.stop()
    }

    /// The hosted checkout starts payments with the app's rights: it offers no barcode method, and
    /// one named in its form is refused without reaching a provider.
    @Test func theCheckoutCollectsNoCodeEither() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(amount: "9.00")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        for method in ["wechat.barcode", "alipay.barcode"] {
            let page = await fixture.server.call(
                "POST", "/pay/\(id)", form: [("client_secret", secret), ("method", method), ("auth_code", "134567890123450000")])
            #expect(page.status == 400, "\(method)")
        }
        #expect(try await fixture.store.payments(orderID: id).isEmpty)
        await fixture.stop()
    }
}
