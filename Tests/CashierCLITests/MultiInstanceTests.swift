import Cashier
import CashierStore
import Foundation
import TestSupport
import Testing

/// Three `cashier serve` processes on one PostgreSQL, behind no balancer but the sandbox's own
/// spread: a storm of duplicate notifications across all three, refunds and their
/// notifications, query-fallback runs on every instance, and one instance killed with SIGKILL in
/// the middle — the order is paid once, one `order.paid` is delivered, nothing is lost.
@Suite struct MultiInstanceTests {
    static let wechatKey = "192006250b4c09247ec02edce69f6a2d"  // the sandbox's test merchant (TEST KEY)
    static let secretKey = "sk_test_" + String(repeating: "m", count: 24)

    func start(_ arguments: [String], environment: [String: String] = [:], output: Pipe = Pipe()) throws -> Process {
        let process = Process()
        process.executableURL = SandboxCommandTests.binary
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return process
    }

    func send(_ method: String, _ url: String, _ body: Any? = nil, key: String? = nil) async throws -> (Int, [String: Any]) {
        var headers = HTTPHeaders()
        if let key { headers.add("Authorization", "Bearer \(key)") }
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: method, url: URL(string: url)!, headers: headers,
                body: try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data(), timeout: .seconds(20)))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:])
    }

    @Test(.enabled(if: TestPostgres.url != nil, "needs the PostgreSQL test cluster (scripts/with-pg)"), .timeLimit(.minutes(2)))
    func threeInstancesOnOnePostgresPayOnceAndLoseNothing() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: SandboxCommandTests.binary.path), "build the cashier executable first")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cashier-multi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try await TestPostgres.freshDatabase()

        // The providers: one sandbox for all three instances.
        let sandboxReady = folder.appendingPathComponent("sandbox.json")
        let sandbox = try start(["sandbox", "--ready-file", sandboxReady.path, "--time-scale", "0.001"])
        defer { stopForGood(sandbox) }
        let providers = try #require(try await readyFile(sandboxReady))
        let sandboxURL = try #require(providers["sandbox_url"])

        // The merchant's webhook endpoint, and three instances sharing one configuration.
        let receiver = try WebhookReceiver(failures: 0)
        let ports = try await runSubprocess(
            "/usr/bin/python3",
            [
                "-c",
                "import socket\nss=[socket.socket() for _ in range(3)]\n[s.bind(('127.0.0.1',0)) for s in ss]\nprint(' '.join(str(s.getsockname()[1]) for s in ss))",
            ]
        ).stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(ports.count == 3)
        let bases = ports.map { "http://127.0.0.1:\($0)" }
        let config: [String: Any] = [
            "public_base_url": bases[0], "secret_key_env": "CASHIER_SECRET_KEY", "publishable_key": "pk_test_multi",
            "database": database, "database_pool_size": 4,
            "wechat": [
                "appid": "wxd930ea5d5a258f4f", "mch_id": "10000100", "api_key_env": "WECHAT_API_KEY",
                "base_url": providers["wechat_v2_url"] ?? "",
            ],
            "webhook": ["url": receiver.url.absoluteString, "secret_env": "HOOK_SECRET"],
            "jobs": [
                "query_after_seconds": 0, "query_interval_seconds": 1, "expiry_interval_seconds": 1, "webhook_interval_seconds": 1,
                "lease_seconds": 2,
            ],
        ]
        let configFile = folder.appendingPathComponent("cashier.json")
        try JSONSerialization.data(withJSONObject: config).write(to: configFile)
        let environment = ["CASHIER_SECRET_KEY": Self.secretKey, "WECHAT_API_KEY": Self.wechatKey, "HOOK_SECRET": "whsec_multi"]
        var instances: [Process] = []
        defer { instances.forEach(stopForGood) }
        for (index, port) in ports.enumerated() {
            let ready = folder.appendingPathComponent("ready-\(index).json")
            instances.append(
                try start(
                    ["serve", "--config", configFile.path, "--port", String(port), "--ready-file", ready.path], environment: environment))
            try #require(try await readyFile(ready) != nil, "instance \(index) did not start")
        }

        // Orders through different instances; B is paid first, to be refunded during the storm.
        func order(_ amount: String, via base: String) async throws -> (id: String, number: String) {
            let (status, object) = try await send(
                "POST", base + "/v1/orders", ["items": [["label": "Latte", "amount": amount]], "currency": "CNY"], key: Self.secretKey)
            try #require(status == 201, "\(object)")
            let id = object["id"] as? String ?? ""
            _ = try await send("POST", base + "/v1/orders/\(id)/payments", ["method": "wechat.native"], key: Self.secretKey)
            return (id, object["out_trade_no"] as? String ?? "")
        }
        let a = try await order("12.00", via: bases[1])
        let b = try await order("30.00", via: bases[2])
        _ = try await send("POST", sandboxURL + "sandbox/pay", ["provider": "wechat", "out_trade_no": b.number, "outcome": "success"])
        let store = try await PostgresOrderStore(url: database, poolSize: 2)
        for _ in 0..<500 where try await store.order(id: b.id)?.status != .paid { try await Task.sleep(for: .milliseconds(20)) }
        try #require(try await store.order(id: b.id)?.status == .paid)

        // A is paid at WeChat: its notification goes to instance 0, then 100 copies spread over
        // all three at once, while B is refunded twice (with notification storms of their own),
        // every instance reads the orders (query fallback) — and instance 1 is killed midway.
        _ = try await send("POST", sandboxURL + "sandbox/pay", ["provider": "wechat", "out_trade_no": a.number, "outcome": "success"])
        let notifyURLs = bases.map { $0 + "/notify/wechat/v2" }
        let victim = instances[1].processIdentifier
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let (status, replayed) = try await send(
                    "POST", sandboxURL + "sandbox/replay", ["key": a.number, "copies": 100, "urls": notifyURLs])
                #expect(status == 200 && replayed["sent"] as? Int == 100, "\(replayed)")
            }
            group.addTask {
                for (index, amount) in ["5.00", "7.00"].enumerated() {
                    let (status, _) = try await send(
                        "POST", bases[2 - index * 2] + "/v1/orders/\(b.id)/refunds", ["amount": amount], key: Self.secretKey)
                    #expect(status == 200)
                }
            }
            group.addTask {
                for _ in 0..<10 {
                    for base in bases { _ = try? await send("GET", base + "/v1/orders/\(a.id)", key: Self.secretKey) }
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(40))
                kill(victim, SIGKILL)
            }
            try await group.waitForAll()
        }
        for number in try await store.events(orderID: b.id).compactMap({ event -> String? in
            guard event.kind == "refund" else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(event.detail.utf8)) as? [String: String])?["request_no"]
        }) {
            _ = try await send(
                "POST", sandboxURL + "sandbox/replay",
                ["key": number, "copies": 20, "urls": [bases[0], bases[2]].map { $0 + "/notify/wechat/v2/refund" }])
        }

        // Paid once; refunded exactly what was asked; every webhook delivered by the survivors.
        for _ in 0..<500 where try await store.order(id: a.id)?.status != .paid { try await Task.sleep(for: .milliseconds(20)) }
        let events = try await store.events(orderID: a.id)
        #expect(events.filter { $0.to == .paid }.count == 1)
        #expect(events.filter { $0.kind == "notification_duplicate" }.count >= 60)
        let refundedB = try #require(try await store.order(id: b.id))
        #expect(refundedB.status == .partiallyRefunded && refundedB.refunded.minorUnits == 1200)
        #expect(try await store.events(orderID: b.id).filter { $0.kind == "refund" }.count == 2)

        func webhooks() -> [String: Set<String>] {
            var seen: [String: Set<String>] = [:]
            for delivery in receiver.received {
                guard let object = try? JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any],
                    let type = object["type"] as? String, let data = object["data"] as? [String: Any],
                    let order = data["order_id"] as? String
                else { continue }
                seen["\(type) \(order)", default: []].insert(delivery.eventID)
            }
            return seen
        }
        for _ in 0..<750 where webhooks()["order.paid \(a.id)"] == nil || (webhooks()["order.refunded \(b.id)"]?.count ?? 0) < 2 {
            try await Task.sleep(for: .milliseconds(20))
        }
        let delivered = webhooks()
        #expect(delivered["order.paid \(a.id)"]?.count == 1, "\(delivered)")
        #expect(delivered["order.paid \(b.id)"]?.count == 1)
        #expect(delivered["order.refunded \(b.id)"]?.count == 2)
        #expect(try await store.dueOutbox(now: Date().addingTimeInterval(3600), limit: 100).isEmpty)  // nothing left behind
    }
}
