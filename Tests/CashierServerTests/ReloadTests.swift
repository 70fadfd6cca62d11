import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandboxMode
import CashierStore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierServer

/// Reloading the configuration without a restart (SIGHUP → ``MerchantServer/reload(_:)``): the
/// new app is swapped in whole while requests run, none of them fails, and the jobs, metrics and
/// the store stay. The acceptance test: WeChat Pay's API key (certificate) rotated under load.
@Suite struct ReloadTests {
    /// Eight clients create orders and start WeChat Pay v3 payments (each a signed call to the
    /// sandbox) while the server reloads six times, switching between the old and the new API
    /// certificate's key. Every request succeeds; once the old certificate is revoked at WeChat
    /// Pay, payments still go through: the server signs with the new key.
    @Test(.timeLimit(.minutes(3)))
    func rotatingTheWeChatKeyUnderLoadFailsNoRequest() async throws {
        let mode = try await SandboxMode.start(timeScale: 0.001)
        var files = try GoLiveFiles(mode: mode)
        defer { files.remove() }
        let v3 = try #require(mode.configuration.wechatV3)
        let oldKey = v3.merchant.privateKey.pemRepresentation
        let oldSerial = v3.merchant.certificateSerial
        let newKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        let newSerial = "6B2AEDC5E2A4C6F1D3B5A7C9E1F3A5B7C9D1E3F5"
        // A new API certificate, which WeChat Pay accepts beside the old one until it is revoked.
        await mode.sandbox.wechatV3.addMerchantCertificate(mchID: v3.merchant.mchID, serial: newSerial, publicKey: newKey.publicKey)
        let store = try SQLiteOrderStore(path: files.folder.appendingPathComponent("cashier.db").path)
        var configuration = try files.parsed().configuration
        configuration.publicBaseURL = nil
        let server = MerchantServer(configuration: configuration, store: store)
        try await server.start()
        let secret = configuration.secretKey
        // The platform certificates, as the provider-keys job downloads them at start (a request
        // that needs them before they are there fails on its own, reload or not).
        for adapter in server.app.ledger.adapters.keyMaintaining { await adapter.maintainKeys() }
        try #require(server.configuration.wechatV3?.platformKeys.serials.isEmpty == false)

        let answered = Statuses()
        let clients = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for client in 0..<8 {
                    group.addTask {
                        for round in 0..<12 {
                            for status in try await Self.orderAndPay(server, secret: secret, label: "c\(client)r\(round)") {
                                answered.count(status)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        var reloads = 0
        for round in 0..<6 {
            // Spread over the load: after 20, 60, 100, … of the 288 answers.
            await answered.reached(20 + 40 * round)
            let rotated = round % 2 == 0
            try files.key("apiclient_key.pem", rotated ? newKey.pemRepresentation : oldKey)
            try files.set(["wechat_v3", "certificate_serial"], rotated ? newSerial : oldSerial)
            var next = try files.parsed().configuration
            next.publicBaseURL = nil
            let reload = await server.reload(next)
            #expect(reload.needsRestart.isEmpty, "\(reload.needsRestart)")
            reloads += 1
        }
        try await clients.value
        let statuses = answered.counts
        #expect(statuses.keys.allSatisfy { (200..<300).contains($0) }, "\(statuses)")
        let total: Int = statuses.values.reduce(0, +)
        #expect(total == 288, "8 clients, 12 rounds, 3 requests each")
        #expect(reloads == 6)
        #expect(server.configuration.wechatV3?.merchant.certificateSerial == oldSerial)

        // Rotated for good: the new key, the old certificate revoked at WeChat Pay.
        try files.key("apiclient_key.pem", newKey.pemRepresentation)
        try files.set(["wechat_v3", "certificate_serial"], newSerial)
        var final = try files.parsed().configuration
        final.publicBaseURL = nil
        await server.reload(final)
        await mode.sandbox.wechatV3.revokeMerchantCertificate(serial: oldSerial)
        #expect(try await Self.orderAndPay(server, secret: secret, label: "after").allSatisfy { (200..<300).contains($0) })
        // The platform certificates downloaded before the reloads were kept, and the reloads counted.
        #expect(server.configuration.wechatV3?.platformKeys.serials.isEmpty == false)
        let metrics = await server.app.metrics.render()
        #expect(metrics.contains(#"cashier_config_reloads_total{result="applied"} 7"#), "\(metrics)")
        await server.stop()
        await store.close()
        await mode.sandbox.stop()
    }

    /// The statuses answered, by status, from every client.
    final class Statuses: Sendable {
        private struct State {
            var counts: [Int: Int] = [:]
            var total = 0
            var waiters: [(total: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }
        private let state = Mutex(State())

        func count(_ status: Int) {
            let ready = state.withLock { state in
                state.counts[status, default: 0] += 1
                state.total += 1
                let total = state.total
                let ready = state.waiters.filter { $0.total <= total }
                state.waiters.removeAll { $0.total <= total }
                return ready
            }
            for waiter in ready { waiter.continuation.resume() }
        }

        var counts: [Int: Int] { state.withLock { $0.counts } }

        /// Returns once `total` answers have been counted.
        func reached(_ total: Int) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.total >= total { return true }
                    state.waiters.append((total, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    /// An order, its WeChat Pay v3 Native payment, and a read of the order. - Returns: the three statuses.
    static func orderAndPay(_ server: MerchantServer, secret: String, label: String) async throws -> [Int] {
        func call(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> (Int, [String: Any]) {
            var headers = HTTPHeaders()
            headers.add("Authorization", "Bearer \(secret)")
            headers.add("Content-Type", "application/json")
            let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
            let response = await server.handle(HTTPServerRequest(method: method, path: path, headers: headers, body: bytes))
            return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:])
        }
        let (created, order) = try await call("POST", "/v1/orders", ["items": [["label": label, "amount": "3.00"]], "currency": "CNY"])
        let id = order["id"] as? String ?? "missing"
        let (started, payment) = try await call("POST", "/v1/orders/\(id)/payments", ["method": "wechat.native", "api": "v3"])
        if started >= 300 { Issue.record("payment for \(label): \(started) \(payment)") }
        let (read, _) = try await call("GET", "/v1/orders/\(id)")
        return [created, started, read]
    }

    /// What a reload changes at once and what waits for a restart.
    @Test func settingsReadAtStartOnlyAreNamed() {
        var old = MerchantConfiguration(secretKey: "sk_" + String(repeating: "a", count: 30), publishableKey: "pk_a")
        old.webhook = .init(url: URL(string: "https://a.example/hook")!, secret: "whsec_a")
        var new = old
        #expect(MerchantServer.startOnlyChanges(from: old, to: new).isEmpty)
        new.publishableKey = "pk_b"
        new.catalog = nil
        #expect(MerchantServer.startOnlyChanges(from: old, to: new).isEmpty)
        new.webhook?.secret = "whsec_b"
        new.queryInterval = .seconds(9)
        new.perIPConnectionLimit = 3
        #expect(
            MerchantServer.startOnlyChanges(from: old, to: new) == [
                "http.per_ip_connection_limit", "jobs.query_interval_seconds", "webhook",
            ])
    }

    /// The certificates' days left on /metrics follow a reload: a certificate replaced by one
    /// that ends later reads the new end at the next scrape.
    @Test func certificateGaugesFollowAReload() async throws {
        let store = try SQLiteOrderStore(path: ":memory:")
        var configuration = MerchantConfiguration(secretKey: "sk_" + String(repeating: "b", count: 30), publishableKey: "pk_b")
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        configuration.certificates = [
            .init(name: "applepay.processing_certificate", notValidAfter: clock.now().addingTimeInterval(5 * 86_400))
        ]
        let server = MerchantServer(configuration: configuration, store: store, clock: clock)
        try await server.start()
        var text = await server.app.metrics.render()
        #expect(text.contains(#"cashier_certificate_expiry_days{certificate="applepay.processing_certificate"} 5"#), "\(text)")
        configuration.certificates = [
            .init(name: "applepay.processing_certificate", notValidAfter: clock.now().addingTimeInterval(400 * 86_400))
        ]
        await server.reload(configuration)
        text = await server.app.metrics.render()
        #expect(text.contains(#"cashier_certificate_expiry_days{certificate="applepay.processing_certificate"} 400"#), "\(text)")
        #expect(text.contains("# TYPE cashier_certificate_expiry_days gauge"))
        await server.stop()
        await store.close()
    }
}
