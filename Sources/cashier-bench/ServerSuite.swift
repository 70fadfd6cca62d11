import Cashier
import CashierCrypto
import CashierSandboxMode
import CashierServer
import CashierStore
import Dispatch
import Foundation
import WeChatPay

/// `cashier-bench server`: the merchant server loaded by `wrk` on loopback for a bounded time,
/// every figure a ratio against a baseline measured in the same run:
///
/// - `server-notify`: verified WeChat v2 notifications per second (HTTP, verification, order
///   lookup, compare-and-set or a logged duplicate, a durable commit each) ÷ durable single-row
///   SQLite commits per second on the same disk;
/// - `server-hello-vs-nginx`: the bare route `/healthz` ÷ nginx `return 200`, same wrk settings
///   (alternating, two rounds each, best of each);
/// - `server-hello`: notifications ÷ the bare route (what a notification costs in bare routes);
/// - `server-flow`: whole orders per second (creation, payment parameters from the WeChat Pay
///   sandbox, the signed notification, the delivered `order.paid` webhook) ÷ durable commits.
///
/// Each commit baseline is the mean of two measurements, just before and just after the part
/// divided by it: this disk's commit rate drifts by half within minutes, the server's does not.
/// Beside the rates: the CPU time the process spent per notification or order (`getrusage`),
/// and a single durable commit's own p50 and p99 (`sqlite_commit_p99_ms`, `pg_commit_p99_ms`),
/// the floor under a notification's p99, which waits for at least one commit.
///
/// `--only notify|hello|nginx|flow` (comma-separated) runs part of it, for a profiler.
enum ServerSuite {
    /// wrk's connections for every server figure (and the flow's clients).
    static let connections = 64

    static func run(
        seconds: Int, database: String?, instances: Int, poolSize: Int = 8, sameOrders: Bool = false, only: Set<String>?,
        report: (String) -> Void
    ) throws {
        let lines = try blocking {
            if let database {
                return try await measurePostgres(
                    seconds: seconds, url: database, instances: instances, poolSize: poolSize, sameOrders: sameOrders)
            }
            return try await measure(seconds: seconds, only: only)
        }
        lines.forEach(report)
    }

    /// Holds an async result for a synchronous caller.
    final class ResultBox<T>: @unchecked Sendable { var result: Result<T, any Error>? }

    static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }

    static func measure(seconds: Int, only: Set<String>?) async throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cashier-bench-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func wanted(_ part: String) -> Bool { only?.contains(part) ?? true }
        let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: SecureRandom.alphanumeric(count: 32))
        let store = try SQLiteOrderStore(
            path: folder.appendingPathComponent("bench.db").path, reportLinesPerOrder: Self.reportLinesPerOrder)
        let keys = MerchantConfiguration.generateKeys()
        let server = MerchantServer(
            configuration: MerchantConfiguration(
                secretKey: keys.secret, publishableKey: keys.publishable, wechat: .init(merchant: merchant)),
            store: store)
        try await server.start()

        let base = server.baseURL.absoluteString
        let load = ["-t2", "-c\(connections)", "-d\(seconds)s", "--latency"]
        // The baseline: durable single-row commits on the same disk, one transaction each. This
        // disk's rate drifts by half within minutes, so it is measured just before and just after
        // each part that is divided by it, and the part is divided by the mean of the two.
        var baselineRound = 0
        func commits() throws -> CommitBaseline {
            baselineRound += 1
            return try SQLiteOrderStore.singleRowCommits(
                path: folder.appendingPathComponent("baseline-\(baselineRound).db").path, duration: .seconds(seconds))
        }
        var notify: WrkResult?
        var notifyBaseline: CommitBaseline?
        var commitsPerNotification = 0.0
        var cpuPerNotification = 0.0
        if wanted("notify") {
            let before = try commits()
            let script = try await notificationScript(store: store, merchant: merchant, folder: folder)
            let commitsBefore = store.commitCount
            let cpuBefore = ProcessCPU.seconds()
            notify = try await wrk(load + ["-s", script.path, base + "/notify/wechat/v2"])
            cpuPerNotification = (ProcessCPU.seconds() - cpuBefore) / (notify?.requests ?? 1)
            commitsPerNotification = Double(store.commitCount - commitsBefore) / (notify?.requests ?? 1)
            notifyBaseline = .mean(before, try commits())
        }
        let rss = residentMegabytes()
        // The bare route and nginx alternate, two rounds each, best of each: the machine's speed
        // drifts within a run, and a single pair measured one after the other shows the drift.
        var hello: WrkResult?
        var nginx: WrkResult?
        if wanted("hello") || wanted("nginx") {
            let baseline = wanted("nginx") ? try NginxBaseline(folder: folder) : nil
            defer { baseline?.stop() }
            for _ in 0..<(baseline == nil ? 1 : 2) {
                let round = try await wrk(load + [base + "/healthz"])
                if round.rate > hello?.rate ?? 0 { hello = round }
                if let baseline {
                    let other = try await wrk(load + [baseline.url])
                    if other.rate > nginx?.rate ?? 0 { nginx = other }
                }
            }
        }
        await server.stop()
        // Closed before the folder goes: a store left open kept writing its files into the
        // folder while it was removed, and every run left it behind in /tmp.
        await store.close()
        var flow: ServerFlow.Result?
        var flowBaseline = 0.0
        if wanted("flow") {
            let before = try commits()
            flow = try await ServerFlow(seconds: seconds, connections: connections).measure(folder: folder)
            flowBaseline = CommitBaseline.mean(before, try commits()).rate
        }
        var lines: [String] = []
        if let notify, let notifyBaseline {
            lines.append(
                String(
                    format:
                        "server-notify ratio=%.2f notify_ops=%.0f sqlite_commits_ops=%.0f p50_ms=%.2f p99_ms=%.2f rss_mb=%.0f "
                        + "commits_per_notification=%.2f cpu_us_per_notification=%.0f sqlite_commit_p50_ms=%.2f "
                        + "sqlite_commit_p99_ms=%.2f connections=%d",
                    notify.rate / notifyBaseline.rate, notify.rate, notifyBaseline.rate, notify.p50, notify.p99, rss,
                    commitsPerNotification, cpuPerNotification * 1e6, notifyBaseline.p50Milliseconds, notifyBaseline.p99Milliseconds,
                    connections))
        }
        if let hello, let nginx {
            lines.append(
                String(
                    format: "server-hello-vs-nginx ratio=%.2f hello_ops=%.0f nginx_ops=%.0f p99_ms=%.2f nginx_p99_ms=%.2f connections=%d",
                    hello.rate / nginx.rate, hello.rate, nginx.rate, hello.p99, nginx.p99, connections))
        }
        if let notify, let hello {
            lines.append(
                String(
                    format: "server-hello ratio=%.2f notify_ops=%.0f hello_ops=%.0f connections=%d", notify.rate / hello.rate, notify.rate,
                    hello.rate, connections))
        }
        if let flow {
            lines.append(
                String(
                    format:
                        "server-flow ratio=%.2f orders_ops=%.1f sqlite_commits_ops=%.0f completed=%d notified=%d failed=%d "
                        + "cpu_ms_per_order=%.2f connections=%d",
                    flow.rate / flowBaseline, flow.rate, flowBaseline, flow.completed, flow.notified, flow.failures,
                    flow.cpuSeconds * 1000 / Double(max(flow.completed, 1)), connections))
            // What the flow could reach if an order cost only its five HTTP exchanges.
            let ceiling = flow.exchangeRate / Double(ServerFlow.exchangesPerOrder)
            lines.append(
                String(
                    format: "server-flow-ceiling ratio=%.2f orders_ops=%.0f exchanges_ops=%.0f cpu_us_per_exchange=%.0f "
                        + "exchanges_per_order=%d connections=%d",
                    ceiling / flowBaseline, ceiling, flow.exchangeRate, flow.cpuSecondsPerExchange * 1e6, ServerFlow.exchangesPerOrder,
                    connections))
        }
        return lines
    }

    /// Orders the notification load is for.
    static let notifiedOrders = 200

    /// Every repeat is logged, as a provider's real repeats (a dozen or two an order) are: a run
    /// sends each of the 200 orders hundreds, and a long one thousands, which the store's
    /// default limit (``ReportLineLimit``, against replayed copies) would stop logging, and the
    /// line would measure copies that write nothing. The limit is still counted on every one.
    static let reportLinesPerOrder = Int.max

    /// ``notifiedOrders`` orders (with metadata, as a merchant's orders have), each with a WeChat Pay attempt reserved as the API reserves it, and a signed
    /// payment notification for each: the first of each pays its order, the rest are duplicates
    /// that are verified and logged — one commit each way.
    /// - Returns: the wrk script that posts them in turn, from the one its first argument (after
    ///   wrk's `--`) names, or the first.
    static func notificationScript(store: any OrderStore, merchant: WeChatPay.V2.Merchant, folder: URL) async throws -> URL {
        var bodies: [String] = []
        let run = SecureRandom.alphanumeric(count: 8)  // orders of earlier runs may share the database
        for index in 0..<notifiedOrders {
            let order = try await store.create(
                NewOrder(
                    id: "ord_bench_\(run)_\(index)", outTradeNo: "CBENCH\(run)\(index)", total: Money(minorUnits: 1275, currency: .cny),
                    description: "bench", metadata: ["customer": "cus_\(run)\(index)", "channel": "app"],
                    clientSecret: "s"))
            _ = try await store.beginPayment(
                NewPayment(orderID: order.id, method: .wechatApp, provider: .wechatV2, appID: merchant.appID, merchantID: merchant.mchID),
                now: Date())
            var fields: [(String, String)] = [
                ("appid", merchant.appID), ("mch_id", merchant.mchID), ("nonce_str", SecureRandom.alphanumeric(count: 16)),
                ("result_code", "SUCCESS"), ("return_code", "SUCCESS"), ("out_trade_no", order.outTradeNo),
                ("transaction_id", "42\(index)"),
                ("total_fee", "1275"), ("fee_type", "CNY"), ("trade_type", "APP"), ("openid", "o"), ("time_end", "20261129120000"),
            ]
            fields.append(("sign", merchant.signer.signature(for: fields, type: .md5)))
            bodies.append(WeChatPay.V2.XMLDocument(fields).xmlString)
        }
        let script = folder.appendingPathComponent("notify.lua")
        let quoted = bodies.map { "[==[" + $0 + "]==]" }.joined(separator: ",\n")
        try """
        wrk.method = "POST"
        wrk.headers["Content-Type"] = "application/xml"
        local bodies = {\(quoted)}
        local n = 0
        init = function(args)
          n = tonumber(args[1] or "0")
        end
        request = function()
          n = n + 1
          return wrk.format(nil, nil, nil, bodies[(n % #bodies) + 1])
        end
        """.write(to: script, atomically: true, encoding: .utf8)
        return script
    }

    /// `--db postgres://…`: `instances` merchant servers in this process, each with its own
    /// connection pool on the one database, loaded together (64 wrk connections split among them),
    /// against single-row durable PostgreSQL commits measured in the same run.
    ///
    /// The instances share the load as behind a load balancer: at any moment each is sent
    /// notifications for different orders (each `wrk` starts at its own place in the 200). With
    /// `sameOrders` every instance is sent the same order's notifications at the same moment —
    /// the worst case for their writers, whose batches then wait on each other's row locks
    /// (`retries=` counts the transactions that timed out on one and were tried again).
    static func measurePostgres(seconds: Int, url: String, instances: Int, poolSize: Int = 8, sameOrders: Bool = false) async throws
        -> [String]
    {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cashier-bench-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: SecureRandom.alphanumeric(count: 32))
        let keys = MerchantConfiguration.generateKeys()
        var servers: [MerchantServer] = []
        var stores: [PostgresOrderStore] = []
        for _ in 0..<instances {
            let store = try await PostgresOrderStore(url: url, poolSize: poolSize, reportLinesPerOrder: Self.reportLinesPerOrder)
            try await store.migrate()
            stores.append(store)
            let server = MerchantServer(
                configuration: MerchantConfiguration(
                    secretKey: keys.secret, publishableKey: keys.publishable, wechat: .init(merchant: merchant)),
                store: store)
            try await server.start()
            servers.append(server)
        }
        do {
            let lines = try await measurePostgres(
                seconds: seconds, url: url, servers: servers, stores: stores, sameOrders: sameOrders, folder: folder, merchant: merchant,
                poolSize: poolSize)
            await shutDown(servers, stores)
            return lines
        } catch {
            await shutDown(servers, stores)
            throw error
        }
    }

    /// The servers stopped, then their stores closed (their PostgreSQL sessions ended).
    static func shutDown(_ servers: [MerchantServer], _ stores: [any OrderStore]) async {
        for server in servers { await server.stop() }
        for store in stores { await store.close() }
    }

    /// The load and the line of ``measurePostgres(seconds:url:instances:poolSize:sameOrders:)``,
    /// once its servers are up.
    static func measurePostgres(
        seconds: Int, url: String, servers: [MerchantServer], stores: [PostgresOrderStore], sameOrders: Bool, folder: URL,
        merchant: WeChatPay.V2.Merchant, poolSize: Int
    ) async throws -> [String] {
        let instances = servers.count
        let script = try await notificationScript(store: stores[0], merchant: merchant, folder: folder)
        // Every pool opened before the load: the line measures notifications, not the first
        // seconds' connection set-up (PostgreSQL's SCRAM handshake and a backend forked each).
        for store in stores {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<(2 * poolSize) { group.addTask { _ = try? await store.order(id: "ord_warm") } }
            }
        }
        // Measured just before and just after the load, as on SQLite: the disk's rate drifts.
        let commitsBefore = try PostgresOrderStore.singleRowCommits(url: url, duration: .seconds(seconds))
        // One wrk per instance, all at once: the rates add up only because the runs overlap, so
        // the line is refused when they did not (they once ran two at a time, one after another,
        // and three instances seemed to take twice one's notifications).
        let retriesBefore = stores.map(\.retryCount).reduce(0, +)
        let clock = ContinuousClock()
        let started = clock.now
        let results = try await withThrowingTaskGroup(of: WrkResult.self) { group in
            for (index, server) in servers.enumerated() {
                let connections = Self.connections / instances + (index < Self.connections % instances ? 1 : 0)
                let target = server.baseURL.absoluteString + "/notify/wechat/v2"
                group.addTask {
                    try await wrk([
                        "-t1", "-c\(max(1, connections))", "-d\(seconds)s", "--latency", "-s", script.path, target, "--",
                        String(sameOrders ? 0 : notifiedOrders * index / instances),
                    ])
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = started.duration(to: clock.now)
        guard elapsed < .seconds(seconds) * 1.5 else {
            throw Subprocess.Failure("the \(instances) wrk runs took \(elapsed) for \(seconds) s each: they did not run together")
        }
        let rate = results.map(\.rate).reduce(0, +)
        let retries = stores.map(\.retryCount).reduce(0, +) - retriesBefore
        let baseline = CommitBaseline.mean(commitsBefore, try PostgresOrderStore.singleRowCommits(url: url, duration: .seconds(seconds)))
        return [
            String(
                format:
                    "server-notify-pg ratio=%.2f instances=%d notify_ops=%.0f pg_commits_ops=%.0f p50_ms=%.2f p99_ms=%.2f "
                    + "pg_commit_p50_ms=%.2f pg_commit_p99_ms=%.2f pool_size=%d connections=%d retries=%d orders=%@",
                rate / baseline.rate, instances, rate, baseline.rate, results.map(\.p50).max() ?? 0, results.map(\.p99).max() ?? 0,
                baseline.p50Milliseconds, baseline.p99Milliseconds, poolSize, Self.connections, retries, sameOrders ? "same" : "spread")
        ]
    }

    /// What one wrk run measured.
    typealias WrkResult = (rate: Double, p50: Double, p99: Double, requests: Double)

    /// Runs wrk on a thread of its own, not on one of Swift's cooperative threads (one per core:
    /// several wrk runs meant to overlap, each waited for on one of them, ran two at a time), and
    /// returns requests per second, the 50th/99th percentile latencies in ms, and the requests made.
    static func wrk(_ arguments: [String]) async throws -> WrkResult {
        try await OwnThread.run { try runWrk(arguments) }
    }

    private static func runWrk(_ arguments: [String]) throws -> WrkResult {
        let output = try Subprocess.run("/usr/bin/env", ["wrk"] + arguments)
        func milliseconds(_ text: Substring) -> Double {
            let value = Double(text.filter { $0.isNumber || $0 == "." }) ?? 0
            if text.hasSuffix("us") { return value / 1000 }
            if text.hasSuffix("ms") { return value }
            if text.hasSuffix("s") { return value * 1000 }
            return value
        }
        var rate = 0.0
        var p50 = 0.0
        var p99 = 0.0
        var requests = 0.0
        for line in output.split(separator: "\n") {
            if line.contains(" requests in ") { requests = Double(line.split(separator: " ").first ?? "") ?? 0 }
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if parts.first == "Requests/sec:", parts.count > 1 { rate = Double(parts[1]) ?? 0 }
            if parts.first == "50%", parts.count > 1 { p50 = milliseconds(parts[1]) }
            if parts.first == "99%", parts.count > 1 { p99 = milliseconds(parts[1]) }
        }
        guard rate > 0 else { throw Subprocess.Failure("wrk printed no Requests/sec (is wrk installed? scripts/install-deps)") }
        return (rate, p50, p99, requests)
    }

    /// This process's resident memory (the server runs in it), from /proc.
    static func residentMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Double(line.filter(\.isNumber)) ?? 0) / 1024
    }
}
