import Cashier
import CashierCurl
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// The publishable key ships inside the app, so anyone can take it. With
/// `http.publishable_requests_per_minute`, each payer address gets that many requests a minute
/// that make the server act, as a bucket refilled evenly. Past it the answer is 429 with
/// `Retry-After`. Other addresses and the secret key are not counted.
@Suite struct PublishableKeyThrottleTests {
    @Test func aBucketHoldsAMinutesWorthAndRefillsEvenly() {
        let throttle = PublishableKeyThrottle(perMinute: 60)  // one a second
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for _ in 0..<60 { #expect(throttle.admit("203.0.113.5", now: start) == nil) }
        #expect(throttle.admit("203.0.113.5", now: start) == 1)
        #expect(throttle.admit("198.51.100.7", now: start) == nil, "another address has its own bucket")
        #expect(throttle.admit("203.0.113.5", now: start.addingTimeInterval(0.5)) == 1)
        #expect(throttle.admit("203.0.113.5", now: start.addingTimeInterval(1)) == nil)
        #expect(throttle.admit("203.0.113.5", now: start.addingTimeInterval(1)) == 1)
        // A long pause fills the bucket to a minute's worth, not beyond.
        let later = start.addingTimeInterval(3600)
        for _ in 0..<60 { #expect(throttle.admit("203.0.113.5", now: later) == nil) }
        #expect(throttle.admit("203.0.113.5", now: later) == 1)
    }

    /// Past ``PublishableKeyThrottle/remembered`` addresses, the refilled ones are forgotten and
    /// the busy ones kept; when nearly all are busy (many addresses at once), all are forgotten,
    /// so the next sweep is far off and the table stays bounded.
    @Test func addressesAreForgottenInSweepsThatStayRare() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let full = PublishableKeyThrottle.remembered
        let address = { (index: Int) in "10.\(index >> 16).\((index >> 8) & 255).\(index & 255)" }
        // A quarter asked a minute after the rest: at the next new address, only theirs are short.
        let throttle = PublishableKeyThrottle(perMinute: 60)
        for index in 0..<full { #expect(throttle.admit(address(index), now: start.addingTimeInterval(index < full / 4 ? 60 : 0)) == nil) }
        #expect(throttle.addresses == full)
        #expect(throttle.admit("192.0.2.1", now: start.addingTimeInterval(60.5)) == nil)
        #expect(throttle.addresses == full / 4 + 1)
        // A kept bucket holds 59.5: 59 more pass, then one is refused (a forgotten one would hold 60).
        for _ in 0..<59 { #expect(throttle.admit(address(0), now: start.addingTimeInterval(60.5)) == nil) }
        #expect(throttle.admit(address(0), now: start.addingTimeInterval(60.5)) == 1)
        // Every address busy: the sweep forgets them all, so the next is far off.
        let busy = PublishableKeyThrottle(perMinute: 60)
        for index in 0..<full { _ = busy.admit(address(index), now: start) }
        #expect(busy.addresses == full)
        #expect(busy.admit("192.0.2.2", now: start) == nil)
        #expect(busy.addresses == 1)
    }

    @Test func payerRequestsPastTheRateAreRefused() async throws {
        let clock = ManualClock()
        let fixture = try await ServerFixture(clock: clock) {
            $0.publishableRequestsPerMinute = 6
            $0.trustedProxies = try! TrustedProxies(parsing: ["127.0.0.1"])
        }
        let order = try await fixture.createOrder(amount: "3.30")
        let id = try #require(order["id"] as? String)
        let secret = try #require(order["client_secret"] as? String)
        @Sendable func start(from address: String, key: String? = nil) async throws -> HTTPResponse {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(key ?? fixture.keys.publishable)")
            headers.add("X-Forwarded-For", address)
            headers.add("Content-Type", "application/json")
            return try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + "/v1/orders/\(id)/payments")!,
                    headers: headers, body: Data(#"{"method":"wechat.native","client_secret":"\#(secret)"}"#.utf8),
                    timeout: ServerFixture.patience))
        }
        // Twenty at once from one payer: six are served (200, or 409 for a start another overtook), fourteen refused.
        let answers = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<20 { group.addTask { try await start(from: "203.0.113.5") } }
            return try await group.reduce(into: [HTTPResponse]()) { $0.append($1) }
        }
        let refused = answers.filter { $0.status == 429 }
        #expect(refused.count == 14, "\(answers.map(\.status))")
        #expect(answers.filter { $0.status == 200 }.count >= 1)
        for answer in refused {
            let error = try #require((try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["error"] as? [String: Any])
            #expect(error["code"] as? String == "rate_limited")
            #expect((error["message"] as? String)?.contains("at most 6 a minute") == true)
            #expect(answer.headers["Retry-After"] == "10")
        }

        // Another payer, and the merchant's backend from the same address, are not counted.
        #expect(try await start(from: "198.51.100.7").status != 429)
        #expect(try await start(from: "203.0.113.5", key: fixture.keys.secret).status != 429)
        // Ten seconds later the first payer has one more.
        clock.advance(by: 10)
        #expect(try await start(from: "203.0.113.5").status == 200)
        #expect(try await start(from: "203.0.113.5").status == 429)

        let metrics = String(decoding: try await fixture.call("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("cashier_rate_limited_total 15"))
        await fixture.stop()
    }

    /// An app's catalog orders (the publishable key, SKUs only) from one address, ten at once
    /// with a limit of four: four orders exist afterwards, and the six refused made none.
    @Test func refusedCatalogOrdersAreNotCreated() async throws {
        let catalog = try Catalog(json: Data(#"{"currency":"CNY","items":{"latte":{"label":"Latte","amount":"12.75"}}}"#.utf8))
        // A clock that stands still: no request is refilled however slowly the ten are served.
        let fixture = try await ServerFixture(catalog: catalog, clock: ManualClock()) { $0.publishableRequestsPerMinute = 4 }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await fixture.call("POST", "/v1/orders", key: fixture.keys.publishable, json: ["items": [["sku": "latte"]]]).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.sorted() == [201, 201, 201, 201, 429, 429, 429, 429, 429, 429])
        #expect(try await fixture.store.orders(status: nil, before: nil, limit: 100).count == 4)
        await fixture.stop()
    }

    /// The document names 429 on exactly the routes the server limits: every route the app may
    /// call with the publishable key to make the server act, and none other. Once the address has
    /// used its one request of the minute, each of them answers 429 (one the server did not
    /// limit would answer 401, 404 or 422).
    @Test func theDocumentNames429WhereTheServerLimits() async throws {
        let document = try #require(
            try JSONSerialization.jsonObject(with: try OpenAPIDocument.served(sandbox: false)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var documented: [String] = []
        for (path, operations) in paths {
            for (method, operation) in operations {
                if let responses = (operation as? [String: Any])?["responses"] as? [String: Any], responses["429"] != nil {
                    documented.append("\(method.uppercased()) \(path)")
                }
            }
        }
        #expect(
            documented.sorted() == [
                "POST /v1/applepay/sessions", "POST /v1/orders", "POST /v1/orders/{id}/payments",
                "POST /v1/orders/{id}/payments/applepay/authorize", "POST /v1/orders/{id}/payments/applepay/update",
            ])
        let fixture = try await ServerFixture(clock: ManualClock()) { $0.publishableRequestsPerMinute = 1 }
        func post(_ path: String) async throws -> Int {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(fixture.keys.publishable)")
            return try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + path)!, headers: headers,
                    body: Data("{}".utf8))
            ).status
        }
        #expect(try await post("/v1/orders") != 429)  // the minute's one (refused for its own reason: no catalog here)
        for route in documented.sorted() {
            #expect(try await post(String(route.dropFirst(5)).replacingOccurrences(of: "{id}", with: "ord_none")) == 429, "\(route)")
        }
        await fixture.stop()
    }
}
