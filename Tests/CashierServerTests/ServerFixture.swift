import Cashier
import CashierCurl
import CashierHTTP
import CashierSandbox
import CashierSandboxMode
import CashierStore
import Foundation
import TestSupport
import Testing
import WeChatPay

@testable import CashierServer

/// A merchant server against the sandboxes (SQLite store, one instance): the harness the server
/// suites share. `call` speaks the API with the secret key.
///
/// By default nothing listens: the server and the sandbox are answered in process through
/// ``transport`` (``InProcessTransport``) — the server's calls to the gateways, the sandbox's
/// notifications, webhooks to a ``receiver(failures:down:)``, and the test's own calls —
/// at addresses of their own (`127.0.0.1` and a reserved port). `listening: true` puts both on
/// real sockets, for a test whose subject is the socket or whose peer is another process (a
/// browser, a Python SDK, a raw connection).
final class ServerFixture: Sendable {
    /// What every fixture's in-process addresses are reached through (any other address over
    /// libcurl), shared so a test's static helpers need no fixture to send a request.
    static let transport = InProcessTransport(fallback: CurlTransport())

    let sandbox: SandboxServer
    let server: MerchantServer
    let store: SQLiteOrderStore
    /// The store's file, for tests that reach into it from another connection.
    let databasePath: String
    let wechatMerchant: WeChatPay.V2.Merchant
    let keys: (secret: String, publishable: String)
    let mode: SandboxMode
    let clock: any WallClock
    /// Whether the server and the sandbox are on real sockets.
    let listening: Bool
    /// What reaches this fixture's server and sandbox: in process, or libcurl when `listening`.
    let transport: any HTTPTransport
    /// The API client (in process; `nil` when `listening`, where `call` goes over the socket).
    private let client: InProcessClient?

    init(
        publicBaseURL: String? = nil, queryAfter: TimeInterval = 10, webhook: WebhookDispatcher.Endpoint? = nil,
        expiryInterval: Duration = .seconds(60), catalog: Catalog? = nil, breakerThreshold: Int = 5, breakerCooldown: TimeInterval = 30,
        clock: any WallClock = SystemClock(), sandboxHelpers: Bool = false, reportLines: Int = ReportLineLimit.defaultPerOrder,
        listening: Bool = false, configure: (inout MerchantConfiguration) -> Void = { _ in },
        accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil, providerTransport: (any HTTPTransport)? = nil
    ) async throws {
        self.clock = clock
        self.listening = listening
        let inProcess = Self.transport
        let sandboxPort = listening ? 0 : InProcessTransport.reservePort()
        let mode =
            listening
            ? try await SandboxMode.start(timeScale: 0.001)
            : try await SandboxMode.start(port: sandboxPort, timeScale: 0.001, listening: false, transport: inProcess)
        self.mode = mode
        let sandbox = mode.sandbox
        self.sandbox = sandbox
        if !listening { inProcess.register(port: sandboxPort) { await sandbox.handle($0) } }
        wechatMerchant = mode.wechatMerchant
        var configuration = mode.configuration
        configuration.publicBaseURL = publicBaseURL
        let keys = (secret: configuration.secretKey, publishable: configuration.publishableKey)
        self.keys = keys
        configuration.catalog = catalog
        configuration.breakerThreshold = breakerThreshold
        configuration.breakerCooldown = breakerCooldown
        configuration.queryAfter = queryAfter
        configuration.queryInterval = .seconds(3600)  // tests drive the query-fallback job themselves
        configuration.recurringInterval = .seconds(3600)  // and the recurring job
        configuration.webhook = webhook
        configuration.webhookInterval = .milliseconds(50)
        configuration.expiryInterval = expiryInterval
        configure(&configuration)
        databasePath = Scratch.url("server-\(UUID().uuidString).db").path
        let store = try SQLiteOrderStore(path: databasePath, reportLinesPerOrder: reportLines)
        self.store = store
        let serverPort = listening ? 0 : InProcessTransport.reservePort()
        let server = MerchantServer(
            configuration: configuration, store: store, port: serverPort, clock: clock, audit: SecretsAudit.fromEnvironment(),
            accessLog: accessLog, sandboxPayer: sandboxHelpers ? mode : nil,
            providerTransport: providerTransport ?? (listening ? nil : inProcess),
            webhookTransport: listening ? nil : inProcess)
        self.server = server
        if listening {
            transport = CurlTransport()
            client = nil
        } else {
            transport = inProcess
            client = InProcessClient(base: server.baseURL, key: keys.secret, timeout: Self.patience) { await server.handle($0) }
        }
        try await server.start(listening: listening)
        if !listening { inProcess.register(port: serverPort) { await server.handle($0) } }
    }

    /// A webhook endpoint for a fixture's `webhook:` (``WebhookReceiver``), answered in process
    /// through ``transport``; `listening: true` puts it on a socket (a webhook-receiver suite).
    static func receiver(failures: Int, down: Bool = false, listening: Bool = false) throws -> WebhookReceiver {
        let receiver = try WebhookReceiver(failures: failures, down: down, listening: listening)
        if !listening { transport.register(port: receiver.port) { await receiver.handle($0) } }
        return receiver
    }

    /// How far ahead a settled sandbox has no notification due: its schedules run a thousand
    /// times faster (`timeScale: 0.001`), so this covers a provider's first retries (WeChat's 15 s,
    /// 15 s, 30 s, 3 min, 10 min; Alipay's 4 min and 10 min; Stripe's and Adyen's first ones) —
    /// a notification the server refused, or took before it was ready for it, is sent again and
    /// answered before a test reads the outcome.
    static let sandboxRetries: Duration = .seconds(1)

    /// Waits until nothing is left to happen of its own accord: the sandbox is sending no
    /// notification and has none due again soon (``NotificationDelivery/settled(within:)``,
    /// ``sandboxRetries``), and the server has no request in flight, no job running and no webhook
    /// due (``MerchantServer/settled()``). What a test would have slept for ("a late duplicate
    /// would have arrived by now") has happened when this returns.
    func settled() async {
        await sandbox.delivery.settled(within: Self.sandboxRetries)
        await server.settled()
        await sandbox.delivery.settled(within: Self.sandboxRetries)  // anything the server's last work set off at the sandbox
        await server.settled()
    }

    /// How long a test's request waits for the server's answer: a minute, not the transports'
    /// 10 s — in `make test`'s first minute every suite starts at once on two cores, and a
    /// dashboard sign-in that takes milliseconds alone once took longer than 10 s.
    static let patience: Duration = .seconds(60)

    func stop() async {
        await server.stop()
        await sandbox.stop()
        if !listening {
            Self.transport.unregister(port: server.port)
            Self.transport.unregister(port: sandbox.port)
        }
    }

    func call(_ method: String, _ path: String, key: String? = nil, headers: [String: String] = [:], json: Any? = nil) async throws
        -> (status: Int, object: [String: Any], body: Data)
    {
        if let client { return try await client.call(method, path, key: key, headers: headers, json: json) }
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

    /// Opens `path` as a browser opens an event stream, in process: the answer's status and
    /// headers, and its body as it arrives (``InProcessStream``), until the test hangs up.
    func open(_ path: String, headers: HTTPHeaders = [:]) async throws -> (status: Int, headers: HTTPHeaders, stream: InProcessStream) {
        try await #require(client, "a stream is read in process").open(path, headers: headers)
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

    /// Whether the order has `status` once the sandbox's notifications under way have been
    /// answered (``NotificationDelivery/settled()``: the server answers one once its change is on
    /// disk). Not ``settled()``, which also waits for the jobs — and a test may be holding one.
    func waitForStatus(_ id: String, _ status: String) async throws -> Bool {
        await sandbox.delivery.settled(within: Self.sandboxRetries)
        return try await call("GET", "/v1/orders/\(id)").object["status"] as? String == status
    }
}
