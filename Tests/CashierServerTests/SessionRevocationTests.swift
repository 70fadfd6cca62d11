import CashierHTTP
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Issue 58, item 4: a dashboard session lasts only while the key it signed in with does. Revoking
/// a key made with `cashier keys` ends its sessions at once, on every instance (the store joins
/// each session to its key), while sessions signed in with another key go on.
@Suite struct SessionRevocationTests {
    /// Signs in on `server` with `key`. - Returns: the session cookie's value.
    static func signIn(_ server: MerchantServer, key: String, from address: String = "127.0.0.1") async throws -> String {
        let answer = await server.call("POST", "/dashboard/login", form: [("secret_key", key)], from: address)
        try #require(answer.status == 303, "\(answer.status) \(answer.text)")
        let cookie = try #require(answer.headers["Set-Cookie"])
        return try #require(cookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
    }

    /// The session's CSRF token, read from a page it is shown.
    static func csrf(_ server: MerchantServer, session: String) async throws -> String {
        let page = await server.call("GET", "/dashboard", headers: ["Cookie": "cashier_session=\(session)"])
        try #require(page.status == 200)
        return try #require(
            page.text.components(separatedBy: "name=\"csrf\" value=\"").dropFirst().first?.split(separator: "\"").first.map(String.init))
    }

    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func revokingAKeyEndsItsSessionsEverywhere(backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend)
        let (revoked, record) = MerchantServer.makeSecretKey(label: "laptop, lost")
        let (kept, keptRecord) = MerchantServer.makeSecretKey(label: "office")
        try await world.store.createAPIKey(record)
        try await world.store.createAPIKey(keptRecord)
        let order = try await world.order("5.00")
        let first = world.servers[0]
        let doomed = try await Self.signIn(first, key: revoked)
        let other = try await Self.signIn(first, key: kept)
        let configured = try await Self.signIn(first, key: world.keys.secret)
        let token = try await Self.csrf(first, session: doomed)
        for server in world.servers {
            #expect(await server.call("GET", "/dashboard/orders", headers: ["Cookie": "cashier_session=\(doomed)"]).status == 200)
        }
        _ = try await world.store.revokeAPIKey(id: record.id, now: Date())
        // On every instance at once: the pages send it to sign in, its forms are refused, nothing is done.
        for server in world.servers {
            let page = await server.call("GET", "/dashboard/orders", headers: ["Cookie": "cashier_session=\(doomed)"])
            #expect(page.status == 303 && page.headers["Location"] == "/dashboard/login", "\(page.status)")
            let close = await server.call(
                "POST", "/dashboard/orders/\(order.id)/close", headers: ["Cookie": "cashier_session=\(doomed)"], form: [("csrf", token)])
            #expect(close.status == 403)
            // The key itself is refused by the API, as before.
            #expect(await server.call("GET", "/v1/orders", headers: InProcess.bearer(revoked)).status == 401)
        }
        #expect(try await world.store.order(id: order.id)?.status == .created)
        // The other sessions go on: the one of another made key, the one of the configured key.
        for session in [other, configured] {
            for server in world.servers {
                #expect(await server.call("GET", "/dashboard/orders", headers: ["Cookie": "cashier_session=\(session)"]).status == 200)
            }
        }
        await world.stop()
    }

    /// The configured secret key is rotated in the configuration, not with `cashier keys revoke`:
    /// a session signed in with the old one ends with it, as a revoked key's does (issue 58); the
    /// server that still has the key keeps it.
    @Test func rotatingTheConfiguredKeyEndsItsSessions() async throws {
        let mode = try await SandboxMode.start(timeScale: 0.001)
        let path = Scratch.url("rotation-\(UUID().uuidString).db").path
        let store = try SQLiteOrderStore(path: path)
        _ = try await store.migrate()
        let before = MerchantServer(configuration: mode.configuration, store: store)
        let session = try await Self.signIn(before, key: mode.configuration.secretKey)
        #expect(await before.call("GET", "/dashboard/orders", headers: ["Cookie": "cashier_session=\(session)"]).status == 200)
        var rotated = mode.configuration
        rotated.secretKey = MerchantConfiguration.generateKeys().secret
        let after = MerchantServer(configuration: rotated, store: try SQLiteOrderStore(path: path))
        #expect(await after.call("GET", "/v1/orders", headers: InProcess.bearer(mode.configuration.secretKey)).status == 401)
        let page = await after.call("GET", "/dashboard/orders", headers: ["Cookie": "cashier_session=\(session)"])
        #expect(page.status == 303 && page.headers["Location"] == "/dashboard/login", "\(page.status)")
        await mode.sandbox.stop()
    }
}
