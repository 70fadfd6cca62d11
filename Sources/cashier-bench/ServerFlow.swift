import Cashier
import CashierCrypto
import CashierCurl
import CashierHTTP
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import Synchronization
import WeChatPay

/// `server-flow`: whole orders per second, each taken the way an app and WeChat Pay take it —
/// `POST /v1/orders`, `POST /v1/orders/{id}/payments` (the server places it at the WeChat Pay
/// sandbox and signs the app's parameters), the provider's signed notification, and the
/// `order.paid` webhook delivered to the merchant's endpoint. An order counts when its webhook
/// arrives within the measured window. `connections` clients run orders one after another.
struct ServerFlow {
    let seconds: Int
    let connections: Int

    /// The few fields the bench reads from the server's answers and webhooks, decoded without
    /// the rest (the bench's clients share the two cores with the server they measure, so they
    /// read no more than they need).
    struct Fields: Decodable {
        var id: String?
        var outTradeNo: String?
        var type: String?

        enum CodingKeys: String, CodingKey {
            case id, type
            case outTradeNo = "out_trade_no"
        }
    }

    /// What the merchant's webhook endpoint saw.
    final class Receiver: Sendable {
        let paid = Mutex<Set<String>>([])
        let stopped = Atomic<Bool>(false)

        /// Counts `order.paid` events by event id (a re-send is one delivery).
        func receive(_ request: HTTPServerRequest) -> HTTPServerResponse {
            if !stopped.load(ordering: .relaxed), let event = request.headers["Cashier-Event-Id"],
                (try? JSONDecoder().decode(Fields.self, from: Data(request.body)))?.type == "order.paid"
            {
                _ = paid.withLock { $0.insert(event) }
            }
            return .text("ok")
        }
    }

    /// What `measure` found.
    struct Result {
        /// Orders completed per second (webhook delivered), and how many in all.
        var rate: Double
        var completed: Int
        /// Orders that failed a step.
        var failures: Int
        /// Orders whose notification the server acknowledged in the window: when `completed` falls
        /// well short of it, webhooks are queued faster than they are delivered.
        var notified: Int
        /// CPU the process used while they ran (server, sandbox, endpoint and clients).
        var cpuSeconds: Double
        /// Bare HTTP exchanges (`GET /healthz` through the same clients and server) per second,
        /// and the CPU each cost: an order is five exchanges, so `exchangeRate / 5` orders a
        /// second is the most the flow could reach if everything else an order does were free.
        var exchangeRate: Double
        var cpuSecondsPerExchange: Double
    }

    /// HTTP exchanges an order takes: creation, payment parameters (and the server's call to the
    /// provider for them), the provider's notification, the webhook.
    static let exchangesPerOrder = 5

    func measure(folder: URL) async throws -> Result {
        let mode = try await SandboxMode.start()
        let receiver = Receiver()
        let endpoint = HTTPServer(configuration: .init(threads: 1)) { .now(receiver.receive($0)) }
        try endpoint.start()
        var configuration = mode.configuration
        configuration.wechatV3 = nil  // wechat.app through API v2: the notification below is v2's
        configuration.webhook = .init(
            url: URL(string: "http://127.0.0.1:\(endpoint.port)/webhooks")!, secret: "whsec_" + SecureRandom.alphanumeric(count: 32))
        configuration.queryInterval = .seconds(3600)
        let store = try SQLiteOrderStore(path: folder.appendingPathComponent("flow.db").path)
        let server = MerchantServer(configuration: configuration, store: store)
        try await server.start()

        let merchant = mode.wechatMerchant
        let base = server.baseURL.absoluteString
        let secret = configuration.secretKey
        let clock = ContinuousClock()
        let cpuBefore = ProcessCPU.seconds()
        let deadline = clock.now.advanced(by: .seconds(seconds))
        let (failures, notified) = await withTaskGroup(of: (failed: Int, notified: Int).self) { group in
            for client in 0..<connections {
                group.addTask {
                    let transport = CurlTransport()  // one per client: its connection stays open
                    var index = 0
                    var failed = 0
                    while clock.now < deadline {
                        index += 1
                        do {
                            try await Self.takeOrder(
                                "\(client)-\(index)", transport: transport, base: base, secret: secret, merchant: merchant)
                        } catch {
                            failed += 1
                            if failed == 1, client == 0 { FileHandle.standardError.write(Data("flow: \(error)\n".utf8)) }
                        }
                    }
                    return (failed, index - failed)
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.failed, $0.1 + $1.notified) }
        }
        receiver.stopped.store(true, ordering: .relaxed)
        let cpuSeconds = ProcessCPU.seconds() - cpuBefore
        let completed = receiver.paid.withLock { $0.count }
        let exchanges = try await bareExchanges(url: server.baseURL.appendingPathComponent("healthz"))
        await server.stop()
        await store.close()  // before the bench removes the folder it is in
        await endpoint.stop()
        await mode.sandbox.stop()
        return Result(
            rate: Double(completed) / Double(seconds), completed: completed, failures: failures, notified: notified, cpuSeconds: cpuSeconds,
            exchangeRate: exchanges.rate, cpuSecondsPerExchange: exchanges.cpuSecondsEach)
    }

    /// `connections` clients, each a `CurlTransport` as in the flow, getting `url` one request
    /// after another for the same time: exchanges a second, and the CPU each cost.
    func bareExchanges(url: URL) async throws -> (rate: Double, cpuSecondsEach: Double) {
        let clock = ContinuousClock()
        let cpuBefore = ProcessCPU.seconds()
        let deadline = clock.now.advanced(by: .seconds(seconds))
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<connections {
                group.addTask {
                    let transport = CurlTransport()
                    var done = 0
                    while clock.now < deadline {
                        let response = try await transport.send(HTTPRequest(method: "GET", url: url))
                        guard response.status == 200 else { throw Subprocess.Failure("/healthz: HTTP \(response.status)") }
                        done += 1
                    }
                    return done
                }
            }
            return try await group.reduce(0, +)
        }
        return (Double(count) / Double(seconds), (ProcessCPU.seconds() - cpuBefore) / Double(max(count, 1)))
    }

    /// One order, as the merchant's backend, the app and WeChat Pay take it.
    static func takeOrder(_ name: String, transport: CurlTransport, base: String, secret: String, merchant: WeChatPay.V2.Merchant)
        async throws
    {
        func post(_ path: String, json: String? = nil, xml: String? = nil) async throws -> Fields {
            var headers = HTTPHeaders()
            var body = Data()
            if let json {
                headers.add("Authorization", "Bearer \(secret)")
                headers.add("Content-Type", "application/json")
                body = Data(json.utf8)
            } else if let xml {
                headers.add("Content-Type", "application/xml")
                body = Data(xml.utf8)
            }
            let response = try await transport.send(
                HTTPRequest(method: "POST", url: URL(string: base + path)!, headers: headers, body: body))
            guard (200..<300).contains(response.status) else { throw Subprocess.Failure("\(path): HTTP \(response.status)") }
            if xml != nil {
                guard String(decoding: response.body, as: UTF8.self).contains("SUCCESS") else {
                    throw Subprocess.Failure("\(path) refused")
                }
                return Fields()
            }
            return try JSONDecoder().decode(Fields.self, from: response.body)
        }
        // `name` is the client's number and the order's, digits and a dash: nothing to escape.
        let order = try await post(
            "/v1/orders", json: #"{"items":[{"label":"Latte \#(name)","amount":"12.75"}],"currency":"CNY"}"#)
        guard let id = order.id else { throw Subprocess.Failure("no order id") }
        let payment = try await post("/v1/orders/\(id)/payments", json: #"{"method":"wechat.app"}"#)
        guard let outTradeNo = payment.outTradeNo else { throw Subprocess.Failure("no out_trade_no") }
        // WeChat Pay's notification once the payer has paid in the app.
        var fields: [(String, String)] = [
            ("appid", merchant.appID), ("mch_id", merchant.mchID), ("nonce_str", SecureRandom.alphanumeric(count: 16)),
            ("result_code", "SUCCESS"), ("return_code", "SUCCESS"), ("out_trade_no", outTradeNo),
            ("transaction_id", "42" + Hex.encode(SecureRandom.bytes(count: 12))), ("total_fee", "1275"), ("fee_type", "CNY"),
            ("trade_type", "APP"), ("openid", "o"), ("time_end", "20261201120000"),
        ]
        fields.append(("sign", merchant.signer.signature(for: fields, type: .md5)))
        _ = try await post("/notify/wechat/v2", xml: WeChatPay.V2.XMLDocument(fields).xmlString)
    }
}
