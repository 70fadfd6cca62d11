import Cashier
import CashierHTTP
import CashierSandbox
import CashierSandboxMode
import CashierStore
import Foundation
import TestSupport
import Testing
import WeChatPay

@testable import CashierServer

/// A merchant server over real sockets, against the in-process sandboxes (SQLite store, one
/// instance): the harness the server suites share. `call` speaks the API with the secret key.
final class ServerFixture: Sendable {
    let sandbox: SandboxServer
    let server: MerchantServer
    let store: SQLiteOrderStore
    /// The store's file, for tests that reach into it from another connection.
    let databasePath: String
    let wechatMerchant: WeChatPay.V2.Merchant
    let keys: (secret: String, publishable: String)
    let mode: SandboxMode
    let clock: any WallClock

    init(
        publicBaseURL: String? = nil, queryAfter: TimeInterval = 10, webhook: WebhookDispatcher.Endpoint? = nil,
        expiryInterval: Duration = .seconds(60), catalog: Catalog? = nil, breakerThreshold: Int = 5, breakerCooldown: TimeInterval = 30,
        clock: any WallClock = SystemClock(), sandboxHelpers: Bool = false, reportLines: Int = ReportLineLimit.defaultPerOrder,
        configure: (inout MerchantConfiguration) -> Void = { _ in }, accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil,
        providerTransport: (any HTTPTransport)? = nil
    ) async throws {
        self.clock = clock
        mode = try await SandboxMode.start(timeScale: 0.001)
        sandbox = mode.sandbox
        wechatMerchant = mode.wechatMerchant
        var configuration = mode.configuration
        configuration.publicBaseURL = publicBaseURL
        keys = (configuration.secretKey, configuration.publishableKey)
        configuration.catalog = catalog
        configuration.breakerThreshold = breakerThreshold
        configuration.breakerCooldown = breakerCooldown
        configuration.queryAfter = queryAfter
        configuration.queryInterval = .seconds(3600)  // tests drive the query-fallback job themselves
        configuration.webhook = webhook
        configuration.webhookInterval = .milliseconds(50)
        configuration.expiryInterval = expiryInterval
        configure(&configuration)
        databasePath = Scratch.url("server-\(UUID().uuidString).db").path
        store = try SQLiteOrderStore(path: databasePath, reportLinesPerOrder: reportLines)
        server = MerchantServer(
            configuration: configuration, store: store, clock: clock, audit: SecretsAudit.fromEnvironment(), accessLog: accessLog,
            sandboxPayer: sandboxHelpers ? mode : nil, providerTransport: providerTransport)
        try await server.start()
    }

    /// How long a test's request waits for the server's answer: a minute, not the transports'
    /// 10 s — in `make test`'s first minute every suite starts at once on two cores, and a
    /// dashboard sign-in that takes milliseconds alone once took longer than 10 s.
    static let patience: Duration = .seconds(60)

    func stop() async {
        await server.stop()
        await sandbox.stop()
    }

    func call(_ method: String, _ path: String, key: String? = nil, headers: [String: String] = [:], json: Any? = nil) async throws
        -> (status: Int, object: [String: Any], body: Data)
    {
        var allHeaders = HTTPHeaders()
        for (name, value) in headers { allHeaders.add(name, value) }
        if let key = key ?? Optional(keys.secret) { allHeaders.add("Authorization", "Bearer \(key)") }
        allHeaders.add("Content-Type", "application/json")
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: method, url: URL(string: server.baseURL.absoluteString + path)!, headers: allHeaders, body: body,
                timeout: Self.patience))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:], response.body)
    }

    func createOrder(amount: String = "51.00", key idempotencyKey: String? = nil) async throws -> [String: Any] {
        let result = try await call(
            "POST", "/v1/orders", headers: idempotencyKey.map { ["Idempotency-Key": $0] } ?? [:],
            json: ["items": [["label": "Latte", "amount": amount]], "currency": "CNY", "description": "Latte"])
        try #require(result.status == 201, "\(String(decoding: result.body, as: UTF8.self))")
        return result.object
    }

    /// ``createOrder(amount:key:)`` for a test that needs only the new order's id.
    func createOrderID(amount: String = "51.00") async throws -> String {
        try #require(try await createOrder(amount: amount)["id"] as? String)
    }

    func waitForStatus(_ id: String, _ status: String) async throws -> Bool {
        try await eventually { try await call("GET", "/v1/orders/\(id)").object["status"] as? String == status }
    }
}
