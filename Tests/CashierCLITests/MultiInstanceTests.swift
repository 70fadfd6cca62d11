import Cashier
import CashierStore
import ChildProcesses
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

/// Three `cashier serve` processes on one PostgreSQL, behind no balancer but the sandbox's own
/// spread: a storm of duplicate notifications across all three, refunds and their
/// notifications, query-fallback runs on every instance, and one instance killed with SIGKILL in
/// the middle — the order is paid once, one `order.paid` is delivered, nothing is lost.
@Suite struct MultiInstanceTests {
    static let wechatKey = "192006250b4c09247ec02edce69f6a2d"  // the sandbox's test merchant (TEST KEY)
    static let secretKey = "sk_test_" + String(repeating: "m", count: 24)

    static func start(
        _ arguments: [String], binary: URL = SandboxCommandTests.binary, environment: [String: String] = [:], output: Pipe = Pipe()
    ) throws -> ChildProcess {
        try ChildProcess(
            binary.path, arguments, environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            stdout: .pipe(output), stderr: .pipe(output))
    }

    static func send(_ method: String, _ url: String, _ body: Any? = nil, key: String? = nil, headers extra: [String: String] = [:])
        async throws
        -> (Int, [String: Any])
    {
        var headers = HTTPHeaders()
        if let key { headers.add("Authorization", "Bearer \(key)") }
        for (name, value) in extra { headers.add(name, value) }
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: method, url: URL(string: url)!, headers: headers,
                body: try body.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data(), timeout: .seconds(20)))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:])
    }

    /// A sandbox, a webhook receiver and `count` instances of `cashier serve --config` on one
    /// fresh PostgreSQL database, each on its own port.
    final class Cluster {
        let folder: URL
        let database: String
        let sandboxURL: String
        /// The sandbox's WeChat Pay v2 gateway (the test merchant's ledger can be queried there).
        let wechatV2URL: URL
        let receiver: WebhookReceiver
        let bases: [String]
        let ports: [Int]
        let store: any OrderStore
        private(set) var processes: [ChildProcess] = []
        private let configFile: URL
        private let environment: [String: String]

        /// - Parameters:
        ///   - publicPort: where the providers reach the instances (a balancer); default the first instance.
        ///   - sqlite: a SQLite file instead of a fresh PostgreSQL database (one instance).
        init(instances count: Int, publicPort: Int? = nil, ports: [Int], sqlite: Bool = false) async throws {
            try #require(
                FileManager.default.isExecutableFile(atPath: SandboxCommandTests.sandboxBinary.path), "build the executables first")
            folder = Scratch.url("cashier-multi-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            database = sqlite ? folder.appendingPathComponent("cashier.db").path : try await TestPostgres.freshDatabase()
            self.ports = ports
            let sandboxReady = folder.appendingPathComponent("sandbox.json")
            processes.append(
                try MultiInstanceTests.start(
                    ["gateways", "--ready-file", sandboxReady.path, "--time-scale", "0.001"], binary: SandboxCommandTests.sandboxBinary))
            let providers = try #require(try await readyFile(sandboxReady))
            sandboxURL = try #require(providers["sandbox_url"])
            wechatV2URL = try #require(providers["wechat_v2_url"].flatMap(URL.init(string:)))
            receiver = try WebhookReceiver(failures: 0)
            bases = ports.prefix(count).map { "http://127.0.0.1:\($0)" }
            let config: [String: Any] = [
                "public_base_url": "http://127.0.0.1:\(publicPort ?? ports[0])", "secret_key_env": "CASHIER_SECRET_KEY",
                "publishable_key": "pk_test_multi", "database": database, "database_pool_size": 4,
                "wechat": [
                    "appid": "wxd930ea5d5a258f4f", "mch_id": "10000100", "api_key_env": "WECHAT_API_KEY",
                    "base_url": providers["wechat_v2_url"] ?? "",
                ],
                "webhook": ["url": receiver.url.absoluteString, "secret_env": "HOOK_SECRET"],
                "jobs": [
                    "query_after_seconds": 0, "query_interval_seconds": 1, "expiry_interval_seconds": 1, "webhook_interval_seconds": 1,
                    "lease_seconds": 2, "idempotency_lease_seconds": 2, "refund_interval_seconds": 1, "refund_check_after_seconds": 2,
                ],
            ]
            configFile = folder.appendingPathComponent("cashier.json")
            try JSONSerialization.data(withJSONObject: config).write(to: configFile)
            environment = [
                "CASHIER_SECRET_KEY": MultiInstanceTests.secretKey, "WECHAT_API_KEY": MultiInstanceTests.wechatKey,
                "HOOK_SECRET": "whsec_multi",
            ]
            store = try await OrderStoreOpener.open(database, poolSize: 2)
            for index in 0..<count { processes.append(try await launch(index)) }
        }

        /// Starts instance `index` on its port and waits until it answers.
        private func launch(_ index: Int) async throws -> ChildProcess {
            let ready = folder.appendingPathComponent("ready-\(index)-\(UUID().uuidString).json")
            let output = Pipe()
            let process = try MultiInstanceTests.start(
                ["serve", "--config", configFile.path, "--port", String(ports[index]), "--ready-file", ready.path],
                environment: environment,
                output: output)
            let started = try await readyFile(ready) != nil
            // Say why not: an instance that exited has written its reason (a port taken meanwhile, say).
            let said =
                started || process.isRunning
                ? "still starting" : String(decoding: (try? output.fileHandleForReading.readToEndRetrying()) ?? Data(), as: UTF8.self)
            try #require(started, "instance \(index) did not start: \(said)")
            return process
        }

        /// Kills instance `index` with SIGKILL (no shutdown at all) and starts it again on the same port and database.
        func crashAndRestart(_ index: Int) async throws {
            let victim = processes[index + 1]
            try await onOwnThread { victim.stopForGood() }
            processes[index + 1] = try await launch(index)
        }

        /// The instance processes, in port order.
        var instances: ArraySlice<ChildProcess> { processes.dropFirst() }

        /// Places an order through `base` and starts its WeChat Native payment.
        func order(_ amount: String, via base: String) async throws -> (id: String, number: String) {
            let (status, object) = try await MultiInstanceTests.send(
                "POST", base + "/v1/orders", ["items": [["label": "Latte", "amount": amount]], "currency": "CNY"],
                key: MultiInstanceTests.secretKey)
            try #require(status == 201, "\(object)")
            let id = object["id"] as? String ?? ""
            _ = try await MultiInstanceTests.send(
                "POST", base + "/v1/orders/\(id)/payments", ["method": "wechat.native"], key: MultiInstanceTests.secretKey)
            return (id, object["out_trade_no"] as? String ?? "")
        }

        func pay(_ number: String) async throws {
            _ = try await MultiInstanceTests.send(
                "POST", sandboxURL + "sandbox/pay", ["provider": "wechat", "out_trade_no": number, "outcome": "success"])
        }

        func waitFor(_ id: String, _ status: PaymentStatus) async throws -> Bool {
            try await eventually { try await store.order(id: id)?.status == status }
        }

        func stop() {
            for process in processes { process.stopForGood() }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Ports handed out in this process: tests running at once never get the same one.
    private static let handedOut = Mutex<Set<Int>>([])

    /// Free ports below Linux's ephemeral range (32768–60999): an instance restarted on its port
    /// after SIGKILL must find it free, and ports from the ephemeral range are handed to every
    /// outgoing connection the other tests make meanwhile (a CI run lost one that way). A port is
    /// free when probed but only bound when its instance starts, so the clusters started at once
    /// by other tests must not be given it too (another CI run lost one that way).
    static func freePorts(_ count: Int) async throws -> [Int] {
        let taken = handedOut.withLock { $0.sorted().map(String.init).joined(separator: ",") }
        let script = """
            import random, socket
            ports = []
            taken = {\(taken)}
            while len(ports) < \(count):
                port = random.randint(20000, 32000)
                if port in taken: continue
                probe = socket.socket()
                try:
                    probe.bind(('127.0.0.1', port))
                    if port not in ports: ports.append(port)
                except OSError:
                    pass
                finally:
                    probe.close()
            print(' '.join(map(str, ports)))
            """
        let ports = try await runSubprocess("/usr/bin/python3", ["-c", script]).stdout.split(separator: " ")
            .compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        try #require(ports.count == count)
        let fresh = handedOut.withLock { handed in ports.allSatisfy { handed.insert($0).inserted } }
        return fresh ? ports : try await freePorts(count)
    }

    @Test(.enabled(if: TestPostgres.url != nil, "needs the PostgreSQL test cluster (scripts/with-pg)"), .timeLimit(.minutes(2)))
    func threeInstancesOnOnePostgresPayOnceAndLoseNothing() async throws {
        let cluster = try await Cluster(instances: 3, ports: try await Self.freePorts(3))
        defer { cluster.stop() }
        let bases = cluster.bases
        let sandboxURL = cluster.sandboxURL
        let store = cluster.store
        let receiver = cluster.receiver

        // Orders through different instances; B is paid first, to be refunded during the storm.
        let a = try await cluster.order("12.00", via: bases[1])
        let b = try await cluster.order("30.00", via: bases[2])
        try await cluster.pay(b.number)
        try #require(try await cluster.waitFor(b.id, .paid))

        // A is paid at WeChat: its notification goes to instance 0, then 100 copies spread over
        // all three at once, while B is refunded twice (with notification storms of their own),
        // every instance reads the orders (query fallback) — and instance 1 is killed midway.
        try await cluster.pay(a.number)
        let notifyURLs = bases.map { $0 + "/notify/wechat/v2" }
        let victim = cluster.instances[cluster.instances.startIndex + 1].processIdentifier
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                let (status, replayed) = try await Self.send(
                    "POST", sandboxURL + "sandbox/replay", ["key": a.number, "copies": 100, "urls": notifyURLs])
                #expect(status == 200 && replayed["sent"] as? Int == 100, "\(replayed)")
            }
            group.addTask {
                for (index, amount) in ["5.00", "7.00"].enumerated() {
                    let (status, _) = try await Self.send(
                        "POST", bases[2 - index * 2] + "/v1/orders/\(b.id)/refunds", ["amount": amount], key: Self.secretKey)
                    #expect(status == 200)
                }
            }
            group.addTask {
                for _ in 0..<10 {
                    for base in bases { _ = try? await Self.send("GET", base + "/v1/orders/\(a.id)", key: Self.secretKey) }
                }
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(40))
                kill(victim, SIGKILL)
            }
            try await group.waitForAll()
        }
        for number in try await store.events(orderID: b.id).compactMap({ event -> String? in
            guard event.kind == .refund else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(event.detail.utf8)) as? [String: String])?["request_no"]
        }) {
            _ = try await Self.send(
                "POST", sandboxURL + "sandbox/replay",
                ["key": number, "copies": 20, "urls": [bases[0], bases[2]].map { $0 + "/notify/wechat/v2/refund" }])
        }

        // Paid once; refunded exactly what was asked; every webhook delivered by the survivors.
        #expect(try await cluster.waitFor(a.id, .paid))
        let events = try await store.events(orderID: a.id)
        #expect(events.filter { $0.to == .paid }.count == 1)
        #expect(events.filter { $0.kind == .notificationDuplicate }.count >= 60)
        let refundedB = try #require(try await store.order(id: b.id))
        #expect(refundedB.status == .partiallyRefunded && refundedB.refunded.minorUnits == 1200)
        #expect(try await store.events(orderID: b.id).filter { $0.kind == .refund }.count == 2)

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
        await eventually { webhooks()["order.paid \(a.id)"] != nil && (webhooks()["order.refunded \(b.id)"]?.count ?? 0) >= 2 }
        let delivered = webhooks()
        #expect(delivered["order.paid \(a.id)"]?.count == 1, "\(delivered)")
        #expect(delivered["order.paid \(b.id)"]?.count == 1)
        #expect(delivered["order.refunded \(b.id)"]?.count == 2)
        // Nothing left behind: a message the endpoint has is marked delivered once its answer is
        // back, and one the killed instance had claimed is sent again when its lease ends.
        let leftBehind = { try await store.dueOutbox(now: Date().addingTimeInterval(3600), limit: 100) }
        _ = await eventually { (try? await leftBehind().isEmpty) ?? false }
        let left = try await leftBehind()
        #expect(left.isEmpty, "\(left.map { "\($0.type) \($0.orderID) attempts=\($0.attempts)" })")
    }

    /// Money across processes: eight refunds of 30.00 on a paid 100.00 order sent to three
    /// `cashier serve` processes at once (each its own key), and twelve orders with one
    /// Idempotency-Key — the database's row lock and key reservation decide, not any one
    /// process: three refunds, one order, and WeChat's books agree.
    @Test(.enabled(if: TestPostgres.url != nil, "needs the PostgreSQL test cluster (scripts/with-pg)"), .timeLimit(.minutes(2)))
    func refundsAndKeysRaceAcrossThreeProcesses() async throws {
        let cluster = try await Cluster(instances: 3, ports: try await Self.freePorts(3))
        defer { cluster.stop() }
        let bases = cluster.bases
        let order = try await cluster.order("100.00", via: bases[0])
        try await cluster.pay(order.number)
        #expect(try await cluster.waitFor(order.id, .paid))
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await Self.send(
                        "POST", bases[index % 3] + "/v1/orders/\(order.id)/refunds", ["amount": "30.00"], key: Self.secretKey,
                        headers: ["Idempotency-Key": "race-\(index)"]
                    ).0
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 3 && statuses.filter { $0 == 409 }.count == 5, "\(statuses)")
        #expect(try await cluster.store.order(id: order.id)?.refunded.minorUnits == 9000)
        let wechat = WeChatPay.V2.Client(
            merchant: WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: Self.wechatKey),
            baseURL: cluster.wechatV2URL)
        let books = try await wechat.call("pay/refundquery", [("out_trade_no", order.number)])
        let count = Int(books["refund_count"] ?? "") ?? 0
        #expect(count == 3 && (0..<count).compactMap { Int(books["refund_fee_\($0)"] ?? "") }.reduce(0, +) == 9000)

        let ids = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<12 {
                group.addTask {
                    let (status, object) = try await Self.send(
                        "POST", bases[index % 3] + "/v1/orders", ["items": [["label": "Latte", "amount": "12.75"]], "currency": "CNY"],
                        key: Self.secretKey, headers: ["Idempotency-Key": "cart-across"])
                    return (status, object["id"] as? String)
                }
            }
            return try await group.reduce(into: [(Int, String?)]()) { $0.append($1) }
        }
        #expect(Set(ids.filter { $0.0 == 201 }.compactMap(\.1)).count == 1, "\(ids)")
        #expect(ids.allSatisfy { $0.0 == 201 || $0.0 == 409 })
    }

    static let nginx = "/usr/sbin/nginx"

    /// deploy/nginx.conf, as shipped, on loopback in front of two instances: requests spread over
    /// both, the provider's notification arrives through it, and an instance killed with SIGKILL
    /// is routed around.
    @Test(
        .enabled(if: TestPostgres.url != nil, "needs the PostgreSQL test cluster (scripts/with-pg)"),
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: MultiInstanceTests.nginx), "nginx is not installed (scripts/install-deps)"),
        .timeLimit(.minutes(2)))
    func theShippedNginxConfigurationBalancesInstances() async throws {
        let ports = try await Self.freePorts(3)
        let cluster = try await Cluster(instances: 2, publicPort: ports[2], ports: ports)
        defer { cluster.stop() }
        // The shipped file, with only its three addresses changed to this run's ports.
        let shipped = try String(contentsOf: packageRoot.appendingPathComponent("deploy/nginx.conf"), encoding: .utf8)
        let rendered = shipped.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:\(ports[2])")
            .replacingOccurrences(of: "127.0.0.1:8081", with: "127.0.0.1:\(ports[0])")
            .replacingOccurrences(of: "127.0.0.1:8082", with: "127.0.0.1:\(ports[1])")
        #expect(rendered != shipped)
        let prefix = cluster.folder.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: prefix, withIntermediateDirectories: true)
        try rendered.write(to: prefix.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let checked = try await runSubprocess(
            Self.nginx,
            [
                "-t", "-p", prefix.path, "-c", prefix.appendingPathComponent("nginx.conf").path, "-g",
                "pid \(prefix.path)/nginx.pid; error_log \(prefix.path)/error.log;",
            ])
        #expect(checked.status == 0, "\(checked.stderr)")
        let balancer = try ChildProcess(
            Self.nginx,
            [
                "-p", prefix.path, "-c", prefix.appendingPathComponent("nginx.conf").path, "-g",
                "daemon off; master_process off; pid \(prefix.path)/nginx.pid; error_log \(prefix.path)/error.log;",
            ])
        defer { balancer.stopForGood() }
        let front = "http://127.0.0.1:\(ports[2])"
        var instancesSeen = Set<String>()
        await eventually(interval: .milliseconds(5)) {
            if let (status, health) = try? await Self.send("GET", front + "/healthz"), status == 200, let id = health["instance"] as? String
            {
                instancesSeen.insert(id)
            }
            return instancesSeen.count == 2
        }
        #expect(instancesSeen.count == 2, "requests through nginx reached \(instancesSeen.count) instance(s)")

        // Through the balancer: the order, its payment, and WeChat's notification (public_base_url is nginx).
        let order = try await cluster.order("9.90", via: front)
        try await cluster.pay(order.number)
        #expect(try await cluster.waitFor(order.id, .paid))
        // WeChat's notification came in through nginx. It usually pays the order; on a loaded
        // machine the query fallback (every second here) can get there first, and then the
        // notification is recorded as a duplicate when it lands.
        #expect(
            try await eventually {
                try await cluster.store.events(orderID: order.id).contains {
                    ($0.kind == .notification && $0.to == .paid) || $0.kind == .notificationDuplicate
                }
            })

        // One instance dies: nginx routes around it.
        kill(cluster.instances[cluster.instances.startIndex].processIdentifier, SIGKILL)
        for _ in 0..<6 {
            let (status, object) = try await Self.send("GET", front + "/v1/orders/\(order.id)", key: Self.secretKey)
            #expect(status == 200 && object["status"] as? String == "paid")
        }
    }
}
