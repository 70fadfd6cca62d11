import CashierSandboxMode
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Issue 58, item 8 (the server's part): a key made for a merchant this server does not serve —
/// never configured, or removed from the configuration since — authenticates as nothing (401): it
/// would otherwise create orders tagged with a merchant that has no credentials, no notify path and
/// no owner. (Refusing `cashier keys create --merchant nosuch` itself is the CLI's part.)
@Suite struct UnconfiguredMerchantKeyTests {
    static var body: [String: Any] { ["items": [["label": "Latte", "amount": "12.00"]], "currency": "CNY", "description": "Latte"] }

    @Test func aKeyForAMerchantNeverConfiguredIsNoKey() async throws {
        let fixture = try await ServerFixture()
        let (key, record) = MerchantServer.makeSecretKey(label: "nosuch's backend", merchant: "nosuch")
        try await fixture.store.createAPIKey(record)
        let north = try await PartnerMerchantTests.order(fixture, "3.00", merchant: "north")
        let server = fixture.server
        let bearer = InProcess.bearer(key)
        #expect(await server.call("GET", "/v1/orders", headers: bearer).status == 401)
        #expect(await server.call("POST", "/v1/orders", headers: bearer, json: Self.body).status == 401)
        var named = Self.body
        named["merchant"] = "north"
        #expect(await server.call("POST", "/v1/orders", headers: bearer, json: named).status == 401)
        #expect(await server.call("GET", "/v1/orders/\(north.id)", headers: bearer).status == 401)
        #expect(await server.call("POST", "/v1/orders/\(north.id)/close", headers: bearer).status == 401)
        #expect(await server.call("GET", "/v1/payments", headers: bearer).status == 401)
        #expect(await server.call("GET", "/v1/orders/\(north.id)/stream", headers: bearer).status == 401)
        // Nothing was made in its name.
        let orders = try await fixture.store.orders(status: nil, before: nil, limit: 100)
        #expect(!orders.contains { $0.merchant == "nosuch" } && orders.count == 1)
        #expect(try await fixture.store.order(id: north.id)?.status == .created)
        await fixture.stop()
    }

    /// South is served, then removed from the configuration: the same store, the same key, refused.
    @Test func aMerchantRemovedFromTheConfigurationTakesItsKeysWithIt() async throws {
        let mode = try await SandboxMode.start(timeScale: 0.001)
        let path = Scratch.url("unconfigured-\(UUID().uuidString).db").path
        let store = try SQLiteOrderStore(path: path)
        _ = try await store.migrate()
        var withSouth = mode.configuration
        withSouth.subMerchants.append(IdempotencyScopeTests.south)
        let (key, record) = MerchantServer.makeSecretKey(label: "south's backend", merchant: "south")
        try await store.createAPIKey(record)
        let before = MerchantServer(configuration: withSouth, store: store)
        let made = await before.call("POST", "/v1/orders", headers: InProcess.bearer(key), json: Self.body)
        #expect(made.status == 201 && made.object["merchant"] as? String == "south")
        let after = MerchantServer(configuration: mode.configuration, store: try SQLiteOrderStore(path: path))
        #expect(await after.call("GET", "/v1/orders", headers: InProcess.bearer(key)).status == 401)
        #expect(await after.call("POST", "/v1/orders", headers: InProcess.bearer(key), json: Self.body).status == 401)
        #expect(await after.call("GET", "/v1/orders/\(made.object["id"] as? String ?? "")", headers: InProcess.bearer(key)).status == 401)
        #expect(try await store.orders(status: nil, before: nil, limit: 100).count == 1)
        await mode.sandbox.stop()
    }
}
