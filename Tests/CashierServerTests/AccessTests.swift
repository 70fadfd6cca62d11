import Cashier
import CashierCurl
import CashierSandboxMode
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Who may call: dashboard sessions kept in the database (a session made on one instance works on
/// another), sign-in throttled per address, and secret keys made and revoked with `cashier keys`
/// (a revoked key refused at once, on every instance).
@Suite struct AccessTests {
    /// Two merchant servers sharing one database, as instances behind a load balancer would,
    /// answered in process (``ServerFixture/transport``).
    struct TwoInstances {
        let mode: SandboxMode
        let first: MerchantServer
        let second: MerchantServer
        let store: any OrderStore

        init() async throws {
            let transport = ServerFixture.transport
            let sandboxPort = InProcessTransport.reservePort()
            let mode = try await SandboxMode.start(port: sandboxPort, timeScale: 0.001, listening: false, transport: transport)
            self.mode = mode
            transport.register(port: sandboxPort) { await mode.sandbox.handle($0) }
            let path = Scratch.url("access-\(UUID().uuidString).db").path
            store = try SQLiteOrderStore(path: path)
            first = MerchantServer(
                configuration: mode.configuration, store: store, port: InProcessTransport.reservePort(), providerTransport: transport)
            second = MerchantServer(
                configuration: mode.configuration, store: try SQLiteOrderStore(path: path), port: InProcessTransport.reservePort(),
                providerTransport: transport)
            for server in [first, second] {
                try await server.start(listening: false)
                transport.register(port: server.port) { await server.handle($0) }
            }
        }

        func stop() async {
            await first.stop()
            await second.stop()
            await mode.sandbox.stop()
        }

        /// How long a request may wait for its answer: generous, because in a full run these
        /// servers share two cores and Swift's task pool with every other suite (a 10 s limit
        /// was once reached by a sign-in there). What is tested is the answer, not its speed.
        static let patience: Duration = .seconds(60)

        /// A browser's request (libcurl: redirects are not followed, so the 303s are seen).
        func browser(_ server: MerchantServer, _ method: String, _ path: String, cookie: String? = nil, form: String? = nil)
            async throws -> HTTPResponse
        {
            var headers = HTTPHeaders()
            if let cookie { headers.add("Cookie", "cashier_session=\(cookie)") }
            if form != nil { headers.add("Content-Type", "application/x-www-form-urlencoded") }
            return try await ServerFixture.transport.send(
                HTTPRequest(
                    method: method, url: URL(string: server.baseURL.absoluteString + path)!, headers: headers,
                    body: Data((form ?? "").utf8), timeout: Self.patience))
        }

        func api(_ server: MerchantServer, _ path: String, key: String) async throws -> Int {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(key)")
            return try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "GET", url: URL(string: server.baseURL.absoluteString + path)!, headers: headers, timeout: Self.patience)
            ).status
        }
    }

    @Test func aSessionMadeOnOneInstanceWorksOnTheOtherAndEndsOnBoth() async throws {
        let world = try await TwoInstances()
        let secret = world.mode.configuration.secretKey
        let signedIn = try await world.browser(world.first, "POST", "/dashboard/login", form: "secret_key=\(secret)")
        let setCookie = try #require(signedIn.headers["Set-Cookie"])
        let session = try #require(setCookie.split(separator: ";").first?.split(separator: "=").last.map(String.init))
        let elsewhere = try await world.browser(world.second, "GET", "/dashboard", cookie: session)
        #expect(elsewhere.status == 200, "the second instance knows the session the first made")
        // The store keeps the SHA-256 of the cookie, never the cookie.
        #expect(try await world.store.dashboardSession(idHash: session, now: Date()) == nil)
        // Signing out on the second ends it on the first.
        let page = String(decoding: elsewhere.body, as: UTF8.self)
        let csrf = try #require(page.components(separatedBy: "name=\"csrf\" value=\"").dropFirst().first?.split(separator: "\"").first)
        let out = try await world.browser(world.second, "POST", "/dashboard/logout", cookie: session, form: "csrf=\(csrf)")
        #expect(out.status == 303)
        #expect(try await world.browser(world.first, "GET", "/dashboard", cookie: session).headers["Location"] == "/dashboard/login")
        await world.stop()
    }

    @Test func signInIsThrottledPerAddressAcrossInstances() async throws {
        let began = Date()
        let world = try await TwoInstances()
        for attempt in 0..<5 {
            let server = attempt % 2 == 0 ? world.first : world.second
            #expect(try await world.browser(server, "POST", "/dashboard/login", form: "secret_key=sk_wrong_\(attempt)").status == 401)
        }
        // The sixth try is refused before the key is looked at — even the right key — on either instance.
        let secret = world.mode.configuration.secretKey
        let refused = try await world.browser(world.first, "POST", "/dashboard/login", form: "secret_key=\(secret)")
        #expect(refused.status == 429 && refused.headers["Retry-After"] == "900")
        #expect(try await world.browser(world.second, "POST", "/dashboard/login", form: "secret_key=\(secret)").status == 429)
        #expect(try await world.store.signInFailures(source: "127.0.0.1", since: began.addingTimeInterval(-60)) == 5)
        await world.stop()
    }

    /// Behind a trusted proxy, sign-in is throttled per browser address (`X-Forwarded-For`), as
    /// the payer's address is found, not per proxy: five wrong keys from one browser refuse that
    /// browser, and another behind the same proxy may still sign in.
    @Test func signInBehindATrustedProxyIsThrottledPerBrowser() async throws {
        let fixture = try await ServerFixture { $0.trustedProxies = try! TrustedProxies(parsing: ["127.0.0.1"]) }
        func signIn(from address: String, key: String) async throws -> Int {
            var headers = HTTPHeaders()
            headers.add("Content-Type", "application/x-www-form-urlencoded")
            headers.add("X-Forwarded-For", address)
            return try await ServerFixture.transport.send(
                HTTPRequest(
                    method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + "/dashboard/login")!, headers: headers,
                    body: Data("secret_key=\(key)".utf8), timeout: ServerFixture.patience)
            ).status
        }
        for attempt in 0..<5 { #expect(try await signIn(from: "203.0.113.5", key: "sk_wrong_\(attempt)") == 401) }
        #expect(try await signIn(from: "203.0.113.5", key: fixture.keys.secret) == 429)
        #expect(try await signIn(from: "198.51.100.7", key: fixture.keys.secret) == 303)
        await fixture.stop()
    }

    @Test func aKeyMadeWithCashierKeysWorksUntilRevokedThenIsRefusedAtOnceEverywhere() async throws {
        let world = try await TwoInstances()
        let (key, record) = MerchantServer.makeSecretKey(label: "backend 2026-12")
        #expect(key.hasPrefix("sk_") && record.hash != key && !record.prefix.contains(String(key.dropFirst(9))))
        try await world.store.createAPIKey(record)
        #expect(try await world.api(world.first, "/v1/orders", key: key) == 200)
        #expect(try await world.api(world.second, "/v1/orders", key: key) == 200)
        #expect(try await world.store.apiKeys().first?.lastUsedAt != nil, "its last use is shown")
        // The dashboard takes it too.
        #expect(try await world.browser(world.first, "POST", "/dashboard/login", form: "secret_key=\(key)").status == 303)
        // Rotated: the configured key still works, the revoked one is refused at once on both.
        _ = try await world.store.revokeAPIKey(id: record.id, now: Date())
        #expect(try await world.api(world.first, "/v1/orders", key: key) == 401)
        #expect(try await world.api(world.second, "/v1/orders", key: key) == 401)
        #expect(try await world.api(world.second, "/v1/orders", key: world.mode.configuration.secretKey) == 200)
        // A made-up key of the right shape is nothing.
        #expect(try await world.api(world.first, "/v1/orders", key: "sk_" + String(repeating: "x", count: 40)) == 401)
        await world.stop()
    }
}
