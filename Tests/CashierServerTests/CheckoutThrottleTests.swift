import Cashier
import CashierCurl
import CashierHTTP
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierServer

/// Issue 58, item 3: the hosted checkout's requests that make the server act — choosing a method
/// (`POST /pay/{id}`), Apple Pay on the web's steps, WeChat's authorisation coming back, a return
/// from a wallet (`?returned=1`, which asks the provider) — take from the same per-address bucket as
/// the API's payer routes (`http.publishable_requests_per_minute`): 429 with `Retry-After` past it.
/// And however often a payer reloads `?returned=1`, the provider is asked about a payment at most
/// once per read-query interval.
@Suite struct CheckoutThrottleTests {
    /// Provider calls made through the server's transport, by URL path.
    final class CountingTransport: HTTPTransport {
        let base = ServerFixture.transport  // the sandbox, in process
        let paths = Mutex<[String]>([])
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            paths.withLock { $0.append(request.url.path) }
            return try await base.send(request)
        }
        /// How many order queries (v2's `pay/orderquery`, v3's `…/out-trade-no/…`) went out.
        var orderQueries: Int {
            paths.withLock { $0.filter { $0.hasSuffix("pay/orderquery") || $0.contains("/out-trade-no/") }.count }
        }
    }

    @Test func theCheckoutSharesThePayersBucketWithTheAPI() async throws {
        // A clock that stands still: nothing refills while the test runs, however slow the machine.
        let fixture = try await ServerFixture(clock: ManualClock()) { $0.publishableRequestsPerMinute = 4 }
        let order = try await fixture.createOrder(amount: "6.00")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        let payer = "203.0.113.9"
        let server = fixture.server
        let apple = fixture.sandbox.baseURL.absoluteString + "sandbox/applepay/paymentservices/startSession"
        // Two through the API with the app's key, two through the page: the minute's four.
        for _ in 0..<2 {
            let started = await server.call(
                "POST", "/v1/orders/\(id)/payments", headers: InProcess.bearer(fixture.keys.publishable),
                json: ["method": "wechat.native", "client_secret": secret], from: payer)
            #expect(started.status == 200, "\(started.text)")
        }
        let chosen = await server.call("POST", "/pay/\(id)", form: [("client_secret", secret), ("method", "wechat.native")], from: payer)
        #expect(chosen.status == 200 && chosen.text.contains("id=\"qr\""))
        let session = await server.call(
            "POST", "/pay/\(id)/applepay/session", json: ["client_secret": secret, "validation_url": apple], from: payer)
        #expect(session.status == 200, "\(session.text)")
        let attempts = try await fixture.store.payments(orderID: id).count
        // Past them every acting route answers 429, before the order is read or a provider asked.
        let refused: [HTTPServerResponse] = [
            await server.call("POST", "/pay/\(id)", form: [("client_secret", secret), ("method", "alipay.page")], from: payer),
            await server.call(
                "POST", "/pay/\(id)/applepay/session", json: ["client_secret": secret, "validation_url": apple], from: payer),
            await server.call("POST", "/pay/\(id)/applepay/request", json: ["client_secret": secret], from: payer),
            await server.call("GET", "/pay/\(id)/wechat?client_secret=\(secret)&code=abc&state=\(id)", from: payer),
            await server.call("GET", "/pay/\(id)?client_secret=\(secret)&returned=1", from: payer),
            await server.call(
                "POST", "/v1/orders/\(id)/payments", headers: InProcess.bearer(fixture.keys.publishable),
                json: ["method": "wechat.native", "client_secret": secret], from: payer),
        ]
        for answer in refused {
            #expect(answer.status == 429 && answer.headers["Retry-After"] != nil, "\(answer.status) \(answer.text)")
        }
        #expect(try await fixture.store.payments(orderID: id).count == attempts)
        // Looking at the page asks nothing and is not counted; another payer has a bucket of its own.
        #expect(await server.call("GET", "/pay/\(id)?client_secret=\(secret)", from: payer).status == 200)
        #expect(
            await server.call("POST", "/pay/\(id)", form: [("client_secret", secret), ("method", "wechat.native")], from: "198.51.100.4")
                .status == 200)
        await fixture.stop()
    }

    /// A hundred Apple Pay merchant validations in a minute from one page: the minute's ten, then 429.
    @Test func aHundredValidationsInAMinuteAreNotAllServed() async throws {
        let fixture = try await ServerFixture(clock: ManualClock()) { $0.publishableRequestsPerMinute = 10 }
        let order = try await fixture.createOrder(amount: "6.00")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        let apple = fixture.sandbox.baseURL.absoluteString + "sandbox/applepay/paymentservices/startSession"
        let statuses = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    await fixture.server.call(
                        "POST", "/pay/\(id)/applepay/session", json: ["client_secret": secret, "validation_url": apple],
                        from: "203.0.113.10"
                    ).status
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 10 && statuses.filter { $0 == 429 }.count == 90, "\(statuses.sorted())")
        await fixture.stop()
    }

    /// Back from a wallet the page asks the provider about the payment; reloaded twenty times —
    /// ten of them at once — it asks once in the read-query interval.
    @Test func returnedPagesAskTheProviderOncePerInterval() async throws {
        let transport = CountingTransport()
        let fixture = try await ServerFixture(configure: { $0.readQueryInterval = 3600 }, providerTransport: transport)
        let order = try await fixture.createOrder(amount: "6.00")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        #expect(try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.native"]).status == 200)
        let before = transport.orderQueries
        for index in 0..<10 {
            let page = await fixture.server.call("GET", "/pay/\(id)?client_secret=\(secret)&returned=1", from: "198.51.100.\(index)")
            #expect(page.status == 200)
        }
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<10 {
                group.addTask {
                    _ = await fixture.server.call("GET", "/pay/\(id)?client_secret=\(secret)&returned=1", from: "192.0.2.\(index)")
                }
            }
        }
        #expect(transport.orderQueries - before == 1, "\(transport.paths.withLock { $0 })")
        await fixture.stop()
    }
}
