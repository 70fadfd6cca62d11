import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Issue 58, item 2: an `Idempotency-Key` on `POST /v1/orders` lives in its caller's namespace. A
/// merchant's own key (`cashier keys create --merchant`) never replays another merchant's order —
/// nor its client secret —, the platform's keys keep the namespace they always had, and the
/// publishable key, which every payer holds, may not send one at all (422, nothing reserved).
@Suite struct IdempotencyScopeTests {
    /// A second sub-merchant beside the sandbox's `north`, through the same service provider.
    static let south = MerchantConfiguration.SubMerchant(id: "south", name: "South Gate Bakery", wechatSubMchID: "1900000222")

    static var body: [String: Any] { ["items": [["label": "Latte", "amount": "12.00"]], "currency": "CNY", "description": "Latte"] }

    /// A world with `north` and `south`, and a key made for each.
    static func world(_ backend: MoneyWorld.Backend) async throws -> (world: MoneyWorld, north: String, south: String) {
        let world = try await MoneyWorld(backend) { $0.subMerchants.append(Self.south) }
        var keys: [String] = []
        for merchant in ["north", "south"] {
            let (key, record) = MerchantServer.makeSecretKey(label: "\(merchant)'s backend", merchant: merchant)
            try await world.store.createAPIKey(record)
            keys.append(key)
        }
        return (world, keys[0], keys[1])
    }

    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func oneMerchantsKeyNeverReplaysAnothersOrder(backend: MoneyWorld.Backend) async throws {
        let (world, northKey, southKey) = try await Self.world(backend)
        let key = ["Idempotency-Key": "order-2026-12-07-001"]
        let south = try await world.call("POST", "/v1/orders", key: southKey, headers: key, json: Self.body)
        try #require(south.status == 201, "\(south.object)")
        let southID = try #require(south.object["id"] as? String)
        #expect(south.object["merchant"] as? String == "south")
        // North sends south's key and body: its own new order, not south's and not its secret.
        let north = try await world.call("POST", "/v1/orders", key: northKey, headers: key, json: Self.body)
        #expect(north.status == 201 && north.object["merchant"] as? String == "north", "\(north.object)")
        #expect(north.object["id"] as? String != southID)
        #expect(north.object["client_secret"] as? String != south.object["client_secret"] as? String)
        // Each merchant's retry is answered with its own first answer.
        let southAgain = try await world.call("POST", "/v1/orders", key: southKey, headers: key, json: Self.body)
        #expect(southAgain.status == 201 && southAgain.object["id"] as? String == southID)
        let northAgain = try await world.call("POST", "/v1/orders", key: northKey, headers: key, json: Self.body)
        #expect(northAgain.status == 201 && northAgain.object["id"] as? String == north.object["id"] as? String)
        // The platform's key keeps its own namespace: neither merchant's order.
        let platform = try await world.call("POST", "/v1/orders", headers: key, json: Self.body)
        #expect(platform.status == 201)
        #expect(![southID, north.object["id"] as? String].contains(platform.object["id"] as? String))
        // The publishable key sends none: refused, nothing created, nothing reserved for a second payer.
        let before = try await world.store.orders(status: nil, before: nil, limit: 1000).count
        for _ in 0..<2 {
            let payer = try await world.call(
                "POST", "/v1/orders", key: world.keys.publishable, headers: key, json: ["items": [["sku": "latte"]]])
            #expect(payer.status == 422 && payer.object["id"] == nil && payer.object["client_secret"] == nil, "\(payer.object)")
        }
        #expect(try await world.store.orders(status: nil, before: nil, limit: 1000).count == before)
        await world.stop()
    }

    /// Both merchants fire one key at once, from every instance: each gets exactly one order of
    /// its own, and no answer carries the other's.
    @Test(.timeLimit(.minutes(2)), arguments: MoneyWorld.Backend.available)
    func aBurstWithOneKeyMakesOneOrderPerMerchant(backend: MoneyWorld.Backend) async throws {
        let (world, northKey, southKey) = try await Self.world(backend)
        let answers = try await withThrowingTaskGroup(of: (String, MoneyWorld.Answer).self) { group in
            for index in 0..<12 {
                let (merchant, key) = index % 2 == 0 ? ("north", northKey) : ("south", southKey)
                group.addTask {
                    (merchant, try await world.call("POST", "/v1/orders", key: key, headers: ["Idempotency-Key": "burst"], json: Self.body))
                }
            }
            return try await group.reduce(into: [(String, MoneyWorld.Answer)]()) { $0.append($1) }
        }
        var ids: [String: Set<String>] = [:]
        for (merchant, answer) in answers {
            // 201 (made or replayed), or 409 while the first is still being made.
            #expect(answer.status == 201 || answer.errorCode == "idempotency_key_in_use", "\(answer.status) \(answer.object)")
            guard answer.status == 201 else { continue }
            #expect(answer.object["merchant"] as? String == merchant)
            ids[merchant, default: []].insert(answer.object["id"] as? String ?? "")
        }
        #expect(ids["north"]?.count == 1 && ids["south"]?.count == 1 && ids["north"] != ids["south"], "\(ids)")
        let orders = try await world.store.orders(status: nil, before: nil, limit: 1000)
        #expect(orders.filter { $0.merchant == "north" }.count == 1 && orders.filter { $0.merchant == "south" }.count == 1)
        await world.stop()
    }
}
