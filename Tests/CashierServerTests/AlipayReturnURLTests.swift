import Cashier
import CashierSandbox
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Issue 58, item 6: Alipay's wap and page cashiers send the browser back to the payment's
/// `return_url` (and the wap cashier's back button to `quit_url`, the same address), signed into
/// the form by this server. Only an origin listed in `checkout.return_origins`, or this server's
/// own, is taken; anything else is refused (422) before an attempt is reserved or Alipay is asked,
/// so the signed form can never carry a payer to an attacker's page.
@Suite struct AlipayReturnURLTests {
    @Test(arguments: ["alipay.wap", "alipay.page"])
    func aReturnURLOffTheListIsRefusedAndNothingPlaced(method: String) async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(amount: "7.00")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        let shop = fixture.sandbox.baseURL.absoluteString  // listed in sandbox mode: http://127.0.0.1:PORT/
        let shopHost = try #require(fixture.sandbox.baseURL.host)
        let hostile = [
            "https://evil.example.com/return", "http://evil.example.com", "HTTPS://EVIL.EXAMPLE.COM/back",
            "https://evil.example.com/\(shop)", "https://evil.example.com/?next=\(shop)", "http://\(shopHost).evil.example.com/",
            "http://\(shopHost):1/elsewhere", "https://\(shopHost)@evil.example.com/",
            "http://user@\(shopHost):\(fixture.sandbox.baseURL.port ?? 0)/",
            "//evil.example.com/x", "javascript:alert(document.cookie)", "data:text/html,<script>alert(1)</script>", "/relative", "",
        ]
        let tradesBefore = (await fixture.sandbox.alipay.ledger()).count
        for url in hostile {
            // The app (publishable key and the order's secret), as the issue found it, and the backend alike.
            for key in [fixture.keys.publishable, fixture.keys.secret] {
                let answer = try await fixture.call(
                    "POST", "/v1/orders/\(id)/payments", key: key, json: ["method": method, "return_url": url, "client_secret": secret])
                #expect(answer.status == 422, "\(method) \(url): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
                #expect(!String(decoding: answer.body, as: UTF8.self).contains("alipaysubmit"))
            }
        }
        #expect(try await fixture.store.payments(orderID: id).isEmpty)
        #expect((await fixture.sandbox.alipay.ledger()).count == tradesBefore)
        // A listed origin, and this server's own (where the hosted checkout sends its payers back), are taken.
        for url in [shop + "shop/return?order=\(id)", fixture.server.baseURL.absoluteString + "/pay/\(id)?returned=1"] {
            let placed = try await fixture.call(
                "POST", "/v1/orders/\(id)/payments", key: fixture.keys.publishable,
                json: ["method": method, "return_url": url, "client_secret": secret])
            #expect(placed.status == 200, "\(url): \(String(decoding: placed.body, as: UTF8.self))")
            let link = placed.object["url"] as? String ?? ""
            #expect(link.contains(FormEncoding.escape(url)) || link.removingPercentEncoding?.contains(url) == true, "\(link)")
        }
        await fixture.stop()
    }

    /// The hosted checkout still hands a payer to the wap cashier: its own return address is this server's.
    @Test func theCheckoutsOwnReturnAddressIsTaken() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(amount: "7.00")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        let page = await fixture.server.call(
            "POST", "/pay/\(id)",
            headers: ["User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148 Safari/604.1"],
            form: [("client_secret", secret), ("method", "alipay.wap")])
        #expect(page.status == 200 && page.text.contains("id=\"handoff\""), "\(page.status)")
        #expect(try await fixture.store.payments(orderID: id).count == 1)
        await fixture.stop()
    }
}
