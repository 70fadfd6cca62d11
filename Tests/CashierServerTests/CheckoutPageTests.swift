import Cashier
import CashierCurl
import CashierHTTP
import CashierSandboxMode
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierServer

/// The hosted checkout page (`/pay/{id}`) and the order stream it follows, driven as browsers on
/// different devices would (the Chromium suite in BrowserTests runs its script), answered in
/// process: each test holds a server and the sandboxes, and no socket.
@Suite struct CheckoutPageTests {
    typealias Fixture = ServerFixture

    static let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
    static let mobile =
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
    static let wechat =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 "
        + "MicroMessenger/8.0.50(0x1800323c) NetType/WIFI Language/zh_CN"
    static let safari =
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"
    static let alipay =
        "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36 AlipayClient/10.6.0"

    /// One libcurl transport for every page request (each keeps its connections a while).
    static let transport = ServerFixture.transport

    /// A browser without redirects followed or cookies kept: every hop is the test's to check.
    struct Browser {
        let agent: String
        var language = "zh-CN,zh;q=0.9,en;q=0.8"
        /// More headers on every request (a proxy's `X-Forwarded-For`).
        var extra: [String: String] = [:]

        func headers(_ base: [String: String]) -> HTTPHeaders {
            var headers = HTTPHeaders()
            for (name, value) in base.merging(extra, uniquingKeysWith: { $1 }) { headers.set(name, value) }
            return headers
        }

        func get(_ url: String) async throws -> HTTPResponse {
            try await CheckoutPageTests.transport.send(
                HTTPRequest(method: "GET", url: URL(string: url)!, headers: headers(["User-Agent": agent, "Accept-Language": language])))
        }

        /// A link as a browser opens it: one redirect followed (an order's short `checkout_url`).
        func open(_ url: String) async throws -> HTTPResponse {
            let first = try await get(url)
            guard first.status == 303, let location = first.headers["Location"] else { return first }
            return try await get(URL(string: location, relativeTo: URL(string: url))?.absoluteString ?? location)
        }

        func post(_ url: String, form: [String: String]) async throws -> HTTPResponse {
            let body = FormEncoding.encode(form.map { ($0.key, $0.value) })
            return try await CheckoutPageTests.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: url)!,
                    headers: headers([
                        "User-Agent": agent, "Accept-Language": language, "Content-Type": "application/x-www-form-urlencoded",
                    ]), body: Data(body.utf8)))
        }
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// The value of `data-<name>` on the page's `#checkout`, unescaped.
    static func data(_ page: String, _ name: String) -> String? {
        guard let start = page.range(of: " data-\(name)=\"") else { return nil }
        let rest = page[start.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end]).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }

    static func order(_ fixture: Fixture, _ extra: [String: Any] = [:]) async throws -> [String: Any] {
        var body: [String: Any] = [
            "items": [["label": "Latte", "amount": "12.75", "quantity": 2], ["label": "Bagel <b>", "amount": "6.00"]],
            "currency": "CNY", "description": "Latte & Bagel",
        ]
        body.merge(extra) { $1 }
        let created = try await fixture.call("POST", "/v1/orders", json: body)
        try #require(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        return created.object
    }

    /// A fresh server and an order on it, with its id and client secret.
    static func placed(_ clock: any WallClock = SystemClock(), _ extra: [String: Any] = [:]) async throws
        -> (Fixture, [String: Any], String, String)
    {
        let fixture = try await Fixture(clock: clock)
        let order = try await Self.order(fixture, extra)
        return (fixture, order, try #require(order["id"] as? String), try #require(order["client_secret"] as? String))
    }

    /// A short link's path is its order's client secret: the access log names the order, not
    /// the secret (a log reader could otherwise read the order and the payer's details on it).
    @Test func theAccessLogKeepsTheShortLinksSecretOut() async throws {
        let lines = Mutex<[String]>([])
        let fixture = try await Fixture(accessLog: { entry in lines.withLock { $0.append(entry.jsonLine) } })
        let order = try await Self.order(fixture)
        let secret = try #require(order["client_secret"] as? String)
        let id = try #require(order["id"] as? String)
        let base = fixture.server.baseURL.absoluteString
        #expect(try await Browser(agent: Self.desktop).open(base + "/c/\(secret)").status == 200)
        #expect(try await Browser(agent: Self.desktop).get(base + "/c/ord_x_secret_guess").status == 404)
        #expect(try await Browser(agent: Self.desktop).get(base + "/c/\(secret.dropFirst(4))").status == 404)
        await fixture.settled()
        #expect(lines.withLock { $0.count } >= 5)
        let logged = lines.withLock { $0 }
        #expect(!logged.contains { $0.contains(secret) || $0.contains(secret.dropFirst(4)) }, "\(logged)")
        #expect(!logged.contains { $0.contains("guess") }, "\(logged)")
        #expect(logged.contains { $0.contains(#""path":"/c/\#(id)_secret_…""#) && $0.contains(#""status":303"#) }, "\(logged)")
        #expect(logged.contains { $0.contains(#""path":"/c/ord_x_secret_…""#) && $0.contains(#""status":404"#) }, "\(logged)")
        #expect(logged.contains { $0.contains(#""path":"/c/…""#) }, "\(logged)")
        #expect(logged.contains { $0.contains(#""path":"/pay/\#(id)""#) && $0.contains(#""status":200"#) }, "\(logged)")
        await fixture.stop()
    }

    @Test func eachDeviceIsOfferedTheMethodsThatWorkThere() async throws {
        let fixture = try await Fixture()
        let order = try await Self.order(fixture)
        let link = try #require(order["checkout_url"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        #expect(link == fixture.server.baseURL.absoluteString + "/c/\(secret)")
        // The short link leads to the page.
        let hop = try await Browser(agent: Self.desktop).get(link)
        #expect(hop.status == 303 && hop.headers["Location"] == "/pay/\(order["id"] as? String ?? "")?client_secret=\(secret)")
        #expect(try await Browser(agent: Self.desktop).get(fixture.server.baseURL.absoluteString + "/c/ord_x_secret_guess").status == 404)
        let offered: [(String, [String], [String])] = [
            (Self.desktop, ["wechat.native", "alipay.page"], ["wechat.h5", "wechat.jsapi", "alipay.wap", "applepay"]),
            (Self.mobile, ["wechat.h5", "alipay.wap"], ["wechat.native", "wechat.jsapi", "alipay.page", "applepay"]),
            (Self.wechat, ["wechat.jsapi"], ["wechat.native", "wechat.h5", "alipay.wap", "alipay.page"]),
            (Self.alipay, ["alipay.wap"], ["wechat.native", "wechat.h5", "wechat.jsapi", "alipay.page"]),
            (Self.safari, ["applepay", "wechat.native", "alipay.page"], ["wechat.h5", "alipay.wap"]),
        ]
        for (agent, present, absent) in offered {
            let page = Self.text(try await Browser(agent: agent).open(link))
            for method in present { #expect(page.contains("id=\"pay-\(method)\""), "\(agent) should see \(method)") }
            for method in absent { #expect(!page.contains("id=\"pay-\(method)\""), "\(agent) should not see \(method)") }
        }
        // The items, the total, every value escaped; the payer's language.
        let chinese = try await Browser(agent: Self.desktop).open(link)
        let page = Self.text(chinese)
        #expect(page.contains("2 × Latte") && page.contains("¥25.50") && page.contains("¥31.50") && page.contains("收银台"))
        #expect(page.contains("Bagel &lt;b&gt;") && !page.contains("Bagel <b>"))
        #expect(page.contains("<html lang=\"zh-CN\">"))
        var english = Browser(agent: Self.desktop)
        english.language = "en-GB,en;q=0.9,zh;q=0.3"
        let englishPage = Self.text(try await english.open(link))
        #expect(englishPage.contains("Checkout") && englishPage.contains("WeChat Pay") && !englishPage.contains("收银台"))
        // The policy: the one script by its hash, calls only to this origin, nothing inline allowed.
        let policy = try #require(chinese.headers["Content-Security-Policy"])
        #expect(policy.contains("script-src 'sha256-") && policy.contains("connect-src 'self'") && policy.contains("default-src 'none'"))
        #expect(!policy.contains("unsafe-inline") && chinese.headers["Cache-Control"] == "no-store")
        // No key in the page: only the client secret its URL carries.
        #expect(!page.contains(fixture.keys.secret) && !page.contains(fixture.keys.publishable))
        // A wrong secret or a wrong id: the same "no such order".
        let id = try #require(order["id"] as? String)
        let wrong = try await Browser(agent: Self.desktop).get(fixture.server.baseURL.absoluteString + "/pay/\(id)?client_secret=guess")
        let missing = try await Browser(agent: Self.desktop).get(
            fixture.server.baseURL.absoluteString + "/pay/ord_nope?client_secret=\(secret)")
        #expect(wrong.status == 404 && missing.status == 404 && Self.text(wrong) == Self.text(missing))
        await fixture.stop()
    }

    @Test func returnURLsGoOnlyToConfiguredOrigins() async throws {
        let fixture = try await Fixture()
        let shop = fixture.sandbox.baseURL.absoluteString + "sandbox/shop/return?order=1"
        let foreign = try await fixture.call(
            "POST", "/v1/orders",
            json: ["items": [["label": "Tea", "amount": "1.00"]], "currency": "CNY", "return_url": "https://evil.example/steal"])
        #expect(foreign.status == 422)
        #expect((foreign.object["error"] as? [String: String])?["message"]?.contains("checkout.return_origins") == true)
        for sneaky in ["javascript:alert(1)", "//evil.example/x", "https://user@\(fixture.sandbox.baseURL.host ?? "")/x", "/relative"] {
            let refused = try await fixture.call(
                "POST", "/v1/orders", json: ["items": [["label": "Tea", "amount": "1.00"]], "currency": "CNY", "return_url": sneaky])
            #expect(refused.status == 422, "\(sneaky)")
        }
        let order = try await Self.order(fixture, ["return_url": shop])
        #expect(order["return_url"] as? String == shop)
        // A link may carry its own return_url only when the order has none, and only to a configured origin.
        let plain = try await Self.order(fixture)
        let link = try #require(plain["checkout_url"] as? String)
        let refused = try await Browser(agent: Self.desktop).open(link + "?return_url=" + FormEncoding.escape("https://evil.example/"))
        #expect(refused.status == 400 && !Self.text(refused).contains("evil.example/\""))
        let accepted = try await Browser(agent: Self.desktop).open(link + "?return_url=" + FormEncoding.escape(shop))
        #expect(accepted.status == 200 && Self.data(Self.text(accepted), "return-url") == shop)
        await fixture.stop()
    }

    /// Desktop: the QR code, paid from the phone; the stream announces it without the page asking.
    @Test(.timeLimit(.minutes(3))) func aDesktopPayerPaysTheQRCodeAndTheStreamAnnouncesIt() async throws {
        let (fixture, order, id, secret) = try await Self.placed()
        let (_, streamHeaders, stream) = try await fixture.open("/v1/orders/\(id)/stream?client_secret=\(secret)")
        let opened = await stream.read(until: "\"status\":\"created\"", within: .seconds(10))
        #expect(
            opened && streamHeaders["Content-Type"]?.contains("text/event-stream") == true && stream.receivedText.contains("event: order"))
        #expect(!stream.receivedText.contains(secret))  // the events never repeat the secret

        let page = try await Browser(agent: Self.desktop).post(
            fixture.server.baseURL.absoluteString + "/pay/\(id)", form: ["client_secret": secret, "method": "wechat.native"])
        #expect(page.status == 200 && Self.text(page).contains("<svg") && Self.text(page).contains("id=\"qr\""))
        let started = await stream.read(until: "\"status\":\"pending\"", within: .seconds(10))
        #expect(started)
        let payments = try await fixture.call("GET", "/v1/orders/\(id)").object["payments"] as? [[String: Any]] ?? []
        let number = try #require(payments.first?["out_trade_no"] as? String)
        let paid = try await ServerFixture.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: fixture.sandbox.baseURL.absoluteString + "sandbox/pay")!,
                body: try JSONSerialization.data(withJSONObject: ["provider": "wechat", "out_trade_no": number, "outcome": "success"])))
        #expect(paid.status == 200)
        let announced = await stream.read(until: "\"status\":\"paid\"", within: .seconds(20))
        #expect(announced)
        stream.hangUp()
        // Paid: the page offers nothing more.
        let after = Self.text(try await Browser(agent: Self.desktop).open(try #require(order["checkout_url"] as? String)))
        #expect(Self.data(after, "status") == "paid" && !after.contains("id=\"methods\""))
        // Without the secret there is no stream; the secret key opens it too.
        #expect(try await fixture.call("GET", "/v1/orders/\(id)/stream?client_secret=guess", key: "").status == 401)
        let backend = try await fixture.open("/v1/orders/\(id)/stream", headers: ["Authorization": "Bearer \(fixture.keys.secret)"]).stream
        let read = await backend.read(until: "\"status\":\"paid\"", within: .seconds(10))
        #expect(read)
        backend.hangUp()
        await fixture.stop()
    }

    /// Mobile: WeChat H5, cancelled in the wallet, back to the choice; the next try is a new attempt
    /// and the old one is closed.
    @Test func aCancelledWalletReturnsToTheChoiceAndTheNextTryIsANewAttempt() async throws {
        let (fixture, _, id, secret) = try await Self.placed()
        let browser = Browser(agent: Self.mobile)
        let handoff = Self.text(
            try await browser.post(
                fixture.server.baseURL.absoluteString + "/pay/\(id)", form: ["client_secret": secret, "method": "wechat.h5"]))
        let wallet = try #require(Self.data(handoff, "handoff"))
        #expect(wallet.hasPrefix(fixture.sandbox.baseURL.absoluteString + "sandbox/wechat/h5?prepay_id="))
        let components = try #require(URLComponents(string: wallet))
        let prepayID = try #require(components.queryItems?.first { $0.name == "prepay_id" }?.value)
        let redirect = try #require(components.queryItems?.first { $0.name == "redirect_url" }?.value)
        #expect(redirect.hasPrefix(fixture.server.baseURL.absoluteString + "/pay/\(id)?client_secret=") && redirect.contains("returned=1"))
        // The payer cancels in WeChat's cashier, which sends the browser back.
        let cancelled = try await browser.post(
            fixture.sandbox.baseURL.absoluteString + "sandbox/wechat/h5",
            form: ["prepay_id": prepayID, "action": "cancel", "redirect_url": redirect])
        #expect(cancelled.status == 303 && cancelled.headers["Location"] == redirect)
        let back = Self.text(try await browser.get(redirect))
        #expect(back.contains("id=\"note\"") && back.contains("id=\"pay-wechat.h5\"") && back.contains("id=\"pay-alipay.wap\""))
        // Alipay this time: a new attempt; the WeChat one is closed.
        let alipay = Self.text(
            try await browser.post(
                fixture.server.baseURL.absoluteString + "/pay/\(id)", form: ["client_secret": secret, "method": "alipay.wap"]))
        let gateway = try #require(Self.data(alipay, "handoff"))
        #expect(gateway.hasPrefix(fixture.sandbox.baseURL.absoluteString))
        let payments = try await fixture.call("GET", "/v1/orders/\(id)").object["payments"] as? [[String: Any]] ?? []
        #expect(payments.count == 2)
        #expect(Set(payments.map { $0["status"] as? String ?? "" }) == ["closed", "pending"])
        // Alipay's wap cashier has a way back (quit_url): leaving it without paying lands on the page again.
        let cashier = Self.text(try await browser.get(gateway))
        let alipayNumber = try #require(payments.first { $0["status"] as? String == "pending" }?["out_trade_no"] as? String)
        let books = try #require(await fixture.sandbox.alipay.ledger().first { $0.out_trade_no == alipayNumber })
        #expect(books.sent["quit_url"]?.hasPrefix(fixture.server.baseURL.absoluteString + "/pay/\(id)?") == true)
        #expect(books.sent["quit_url"]?.contains("returned=1") == true)
        let token = try #require(cashier.range(of: #"name="token" value=""#).map { cashier[$0.upperBound...].prefix(32) })
        let action = try #require(
            cashier.range(of: #"<form method="post" action=""#).map { range in
                cashier[range.upperBound...].prefix { $0 != "\"" }
            })
        let left = try await browser.post(
            URL(string: String(action), relativeTo: URL(string: gateway))!.absoluteString,
            form: ["token": String(token), "action": "cancel"])
        let quit = try #require(left.headers["Location"])
        #expect(left.status == 303 && quit.hasPrefix(fixture.server.baseURL.absoluteString + "/pay/\(id)?") && quit.contains("returned=1"))
        let again = Self.text(try await browser.get(quit))
        #expect(again.contains("id=\"note\"") && again.contains("id=\"pay-alipay.wap\""))
        await fixture.stop()
    }

    /// A payment the page starts goes to the provider with the payer's address, as the app's
    /// `client_ip` would (WeChat H5 checks it against the phone), not the server's own.
    @Test func thePageSendsThePayersAddressToTheProvider() async throws {
        let fixture = try await Fixture { $0.trustedProxies = try! TrustedProxies(parsing: ["127.0.0.1"]) }
        let order = try await Self.order(fixture)
        let (id, secret) = (try #require(order["id"] as? String), try #require(order["client_secret"] as? String))
        let number = try #require(order["out_trade_no"] as? String)
        var browser = Browser(agent: Self.mobile)
        browser.extra = ["X-Forwarded-For": "203.0.113.9"]
        let handoff = Self.text(
            try await browser.post(
                fixture.server.baseURL.absoluteString + "/pay/\(id)", form: ["client_secret": secret, "method": "wechat.h5"]))
        #expect(Self.data(handoff, "handoff") != nil, "\(handoff)")
        let books = try #require(await fixture.sandbox.wechatV2.ledger().first { $0.out_trade_no == number })
        #expect(books.sent["spbill_create_ip"] == "203.0.113.9")
        // Behind no trusted proxy the header is the payer's word only: the socket's peer is sent.
        let direct = try await Fixture()
        let other = try await Self.order(direct)
        var spoofing = Browser(agent: Self.mobile)
        spoofing.extra = ["X-Forwarded-For": "203.0.113.9"]
        _ = try await spoofing.post(
            direct.server.baseURL.absoluteString + "/pay/\(other["id"] as? String ?? "")",
            form: ["client_secret": other["client_secret"] as? String ?? "", "method": "wechat.h5"])
        let directBooks = try #require(await direct.sandbox.wechatV2.ledger().first { $0.out_trade_no == other["out_trade_no"] as? String })
        #expect(directBooks.sent["spbill_create_ip"] == "127.0.0.1")
        await direct.stop()
        await fixture.stop()
    }

    /// WeChat's browser: web authorisation for the openid, then JSAPI through WeixinJSBridge
    /// (played here by the sandbox, which checks the parameters' signature as WeChat does).
    @Test(.timeLimit(.minutes(3))) func aWeChatBrowserAuthorisesThenPaysByJSAPI() async throws {
        let (fixture, _, id, secret) = try await Self.placed()
        let browser = Browser(agent: Self.wechat)
        let handoff = Self.text(
            try await browser.post(
                fixture.server.baseURL.absoluteString + "/pay/\(id)", form: ["client_secret": secret, "method": "wechat.jsapi"]))
        let authorize = try #require(Self.data(handoff, "handoff"))
        #expect(
            authorize.contains("/connect/oauth2/authorize?appid=") && authorize.contains("scope=snsapi_base")
                && authorize.hasSuffix("#wechat_redirect"))
        // Outside WeChat, the authorisation page refuses.
        #expect(try await Browser(agent: Self.desktop).get(authorize).status == 403)
        let authorized = try await browser.get(authorize)
        #expect(authorized.status == 302)
        let back = try #require(authorized.headers["Location"])
        #expect(back.hasPrefix(fixture.server.baseURL.absoluteString + "/pay/\(id)/wechat?client_secret=") && back.contains("code="))
        let jsapiPage = Self.text(try await browser.get(back))
        let parameters = try #require(Self.data(jsapiPage, "jsapi"))
        var invocation = try #require(try JSONSerialization.jsonObject(with: Data(parameters.utf8)) as? [String: Any])
        #expect(
            invocation["appId"] as? String == fixture.wechatMerchant.appID
                && (invocation["package"] as? String)?.hasPrefix("prepay_id=") == true)
        // The code is spent: the same callback again starts nothing.
        let reused = Self.text(try await browser.get(back))
        #expect(Self.data(reused, "jsapi") == nil)
        // WeChat refuses tampered parameters, then the payer pays.
        func bridge(_ body: [String: Any]) async throws -> String {
            let answer = try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: fixture.sandbox.baseURL.absoluteString + "sandbox/wechat/jsapi")!,
                    body: try JSONSerialization.data(withJSONObject: body)))
            return (try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["err_msg"] as? String ?? ""
        }
        var tampered = invocation
        tampered["timeStamp"] = "1"
        #expect(try await bridge(tampered) == "get_brand_wcpay_request:fail")
        invocation["action"] = "pay"
        #expect(try await bridge(invocation) == "get_brand_wcpay_request:ok")
        #expect(try await fixture.waitForStatus(id, "paid"))
        let payments = try await fixture.call("GET", "/v1/orders/\(id)").object["payments"] as? [[String: Any]] ?? []
        #expect(payments.first?["method"] as? String == "wechat.jsapi")
        await fixture.stop()
    }

    /// Instances sharing PostgreSQL: the stream opened on one announces a payment another
    /// instance recorded (found by its periodic read, not by this instance's own bell).
    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func aStreamOnOneInstanceAnnouncesWhatAnotherRecorded(_ backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend)
        let created = try await world.call(
            "POST", "/v1/orders", json: ["items": [["label": "Tea", "amount": "3.00"]], "currency": "CNY"], via: 0)
        let id = try #require(created.object["id"] as? String)
        let secret = try #require(created.object["client_secret"] as? String)
        let stream = try await world.open("/v1/orders/\(id)/stream?client_secret=\(secret)", via: 0).stream
        let opened = await stream.read(until: "\"status\":\"created\"", within: .seconds(30))
        #expect(opened)
        // Started and notified on the last instance (its notify URL is its own address).
        let last = world.servers.count - 1
        let started = try await world.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"], via: last)
        #expect(started.status == 200)
        let number = try #require(started.object["out_trade_no"] as? String)
        _ = try await world.sandboxCall("POST", "/sandbox/pay", json: ["provider": "wechat", "out_trade_no": number, "outcome": "success"])
        let announced = await stream.read(until: "\"status\":\"paid\"", within: .seconds(30))
        #expect(announced, "\(stream.receivedText.suffix(300))")
        stream.hangUp()
        await world.stop()
    }

    @Test func anExpiredOrderOffersNothing() async throws {
        let clock = ManualClock()
        let (fixture, order, id, secret) = try await Self.placed(clock, ["expires_in": 60])
        let link = try #require(order["checkout_url"] as? String)
        #expect(Self.text(try await Browser(agent: Self.desktop).open(link)).contains("id=\"pay-wechat.native\""))
        clock.advance(by: 61)
        let page = Self.text(try await Browser(agent: Self.desktop).open(link))
        #expect(!page.contains("id=\"methods\"") && Self.data(page, "payable") == "no" && page.contains("订单已过期"))
        let posted = Self.text(
            try await Browser(agent: Self.desktop).post(
                fixture.server.baseURL.absoluteString + "/pay/\(id)", form: ["client_secret": secret, "method": "wechat.native"]))
        #expect(!posted.contains("<svg"))
        // Nor does the API start one.
        let api = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"])
        #expect(api.status == 409)
        #expect((try await fixture.call("GET", "/v1/orders/\(id)").object["payments"] as? [Any])?.isEmpty == true)
        // Closed by the expiry job: the same.
        try await fixture.server.closeExpiredOrders()
        let closed = Self.text(try await Browser(agent: Self.desktop).open(link))
        #expect(Self.data(closed, "status") == "closed" && !closed.contains("id=\"methods\""))
        // The stream of a closed order: its last state once, then the end; a reconnect that saw it gets 204.
        let stream = try await fixture.open("/v1/orders/\(id)/stream?client_secret=\(secret)").stream
        let ended = await stream.ended.wait(within: .seconds(30))
        #expect(ended && stream.receivedText.contains("\"status\":\"closed\""))
        // The last `id:` line, read by scalars.
        let lines = stream.receivedText.unicodeScalars.split(separator: "\n").map { String(String.UnicodeScalarView($0)) }
        let version = try #require(lines.last { $0.hasPrefix("id: ") }).dropFirst(4).trimmingCharacters(in: .whitespacesAndNewlines)
        let again = try await fixture.open("/v1/orders/\(id)/stream?client_secret=\(secret)", headers: ["Last-Event-ID": version])
        #expect(again.status == 204, "\(again.status) \(again.stream.receivedText)")
        await fixture.stop()
    }
}
