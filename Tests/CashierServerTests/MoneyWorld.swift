import ApplePay
import Cashier
import CashierCrypto
import CashierCurl
import CashierHTTP
import CashierSandbox
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// Where the money-safety scenarios run: one merchant server on SQLite, or three instances on
/// one PostgreSQL database (each its own connection pool, as three processes would have), all
/// against one in-process sandbox, with a webhook receiver and an Apple Pay processor that
/// counts its calls. Requests are spread over the instances in turn.
///
/// By default nothing listens: the instances, the sandbox and the receiver are answered in process
/// through ``transport`` (``ServerFixture/transport``), each at an address of its own. With
/// `listening: true` they are on real sockets, for a test whose subject is the socket (stopping
/// an instance while connections arrive).
final class MoneyWorld: Sendable {
    enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres

        /// Those this run can use: PostgreSQL only when the test cluster is there.
        static var available: [Backend] { TestPostgres.url == nil ? [.sqlite] : [.sqlite, .postgres] }
        var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL, 3 instances" }
    }

    /// The configured processor (the sandbox's Stripe), counting the authorisations it is asked for.
    final class CountingProcessor: ApplePay.PaymentProcessor {
        let calls = Atomic<Int>(0)
        let base = Mutex<(any ApplePay.PaymentProcessor)?>(nil)
        /// Each call that moves money, as `operation idempotency-key`, in the order made.
        let keys = Mutex<[String]>([])
        func note(_ operation: String, _ key: String) { keys.withLock { $0.append("\(operation) \(key)") } }
        var processor: any ApplePay.PaymentProcessor { base.withLock { $0! } }
        var tokenForm: ApplePay.TokenForm { processor.tokenForm }
        func authorize(_ authorization: ApplePay.ProcessorAuthorization) async throws -> ApplePay.ProcessorDecision {
            calls.add(1, ordering: .relaxed)
            note("authorize", authorization.idempotencyKey)
            return try await processor.authorize(authorization)
        }
        func capture(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ApplePay.ProcessorOperation {
            note("capture", idempotencyKey)
            return try await processor.capture(reference, amount: amount, idempotencyKey: idempotencyKey)
        }
        func void(_ reference: String, idempotencyKey: String) async throws -> ApplePay.ProcessorOperation {
            note("void", idempotencyKey)
            return try await processor.void(reference, idempotencyKey: idempotencyKey)
        }
        func refund(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ApplePay.ProcessorOperation {
            note("refund", idempotencyKey)
            return try await processor.refund(reference, amount: amount, idempotencyKey: idempotencyKey)
        }
        func payments(from: Date, to: Date) async throws -> [ApplePay.ProcessorPayment]? {
            try await processor.payments(from: from, to: to)
        }
        var looksUpRefunds: Bool { processor.looksUpRefunds }
        func refundStatus(_ refundReference: String) async throws -> ApplePay.ProcessorOperation? {
            try await processor.refundStatus(refundReference)
        }
        func refundStatus(payment reference: String, idempotencyKey: String) async throws -> ApplePay.ProcessorOperation? {
            try await processor.refundStatus(payment: reference, idempotencyKey: idempotencyKey)
        }
        func payment(_ reference: String) async throws -> ApplePay.ProcessorPayment? {
            try await processor.payment(reference)
        }
        func merchantReference(ofPayment reference: String) async throws -> String? {
            try await processor.merchantReference(ofPayment: reference)
        }
        func authorizationEnded(_ reference: String) async throws -> ApplePay.AuthorizationEnd? {
            try await processor.authorizationEnded(reference)
        }
        var count: Int { calls.load(ordering: .relaxed) }
    }

    let mode: SandboxMode
    let servers: [MerchantServer]
    let stores: [any OrderStore]
    let receiver: WebhookReceiver
    let processor = CountingProcessor()
    let keys: (secret: String, publishable: String)
    let clock: ManualClock?
    /// The SQLite store's file (`nil` on PostgreSQL).
    let databasePath: String?
    private let turn = Atomic<Int>(0)
    /// Whether the instances, the sandbox and the receiver are on real sockets.
    let listening: Bool
    /// What reaches them: in process, or libcurl when `listening`.
    let transport: any HTTPTransport

    var sandbox: SandboxServer { mode.sandbox }
    var store: any OrderStore { stores[0] }

    init(
        _ backend: Backend, clock: ManualClock? = nil, reportLines: Int = ReportLineLimit.defaultPerOrder,
        listening: Bool = false, configure: (inout MerchantConfiguration) -> Void = { _ in }
    ) async throws {
        self.listening = listening
        let inProcess = ServerFixture.transport
        transport = listening ? CurlTransport() : inProcess
        let sandboxPort = listening ? 0 : InProcessTransport.reservePort()
        let mode =
            listening
            ? try await SandboxMode.start(timeScale: 0.001)
            : try await SandboxMode.start(port: sandboxPort, timeScale: 0.001, listening: false, transport: inProcess)
        self.mode = mode
        if !listening { inProcess.register(port: sandboxPort) { await mode.sandbox.handle($0) } }
        receiver = try ServerFixture.receiver(failures: 0, listening: listening)
        self.clock = clock
        var configuration = mode.configuration
        configuration.webhook = .init(url: receiver.url, secret: "whsec_money")
        configuration.webhookInterval = .milliseconds(50)
        // The tests drive the other jobs themselves.
        configuration.queryInterval = .seconds(3600)
        configuration.recurringInterval = .seconds(3600)
        configuration.expiryInterval = .seconds(3600)
        configuration.refundInterval = .seconds(3600)
        configure(&configuration)
        // The processor as configured (the sandbox's Stripe, or one a test chose), counted.
        processor.base.withLock { $0 = configuration.applePay?.processor }
        configuration.applePay?.processor = processor
        keys = (configuration.secretKey, configuration.publishableKey)
        var stores: [any OrderStore] = []
        switch backend {
        case .sqlite:
            let path = Scratch.url("money-\(UUID().uuidString).db").path
            databasePath = path
            stores.append(try SQLiteOrderStore(path: path, reportLinesPerOrder: reportLines))
        case .postgres:
            databasePath = nil
            let database = try await TestPostgres.freshDatabase()
            for _ in 0..<3 {
                stores.append(try await PostgresOrderStore(url: database, poolSize: 3, reportLinesPerOrder: reportLines))
            }
        }
        self.stores = stores
        await mode.connect(to: stores[0])
        var servers: [MerchantServer] = []
        for store in stores {
            let port = listening ? 0 : InProcessTransport.reservePort()
            let server = MerchantServer(
                configuration: configuration, store: store, port: port, clock: clock ?? SystemClock(),
                audit: SecretsAudit.fromEnvironment(),
                providerTransport: listening ? nil : inProcess, webhookTransport: listening ? nil : inProcess)
            try await server.start(listening: listening)
            if !listening { inProcess.register(port: port) { await server.handle($0) } }
            servers.append(server)
        }
        self.servers = servers
    }

    /// The books agree with the providers' (``disagreements()`` finds nothing); then the world stops.
    func expectBooksAgreeThenStop(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let disagreements = try await disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)", sourceLocation: sourceLocation)
        await stop()
    }

    func stop() async {
        for server in servers { await server.stop() }
        // PostgreSQL's connections go now, not when the process ends: the suite's worlds together
        // would pass the cluster's max_connections.
        if databasePath == nil {
            for store in stores { await store.close() }
        }
        await sandbox.stop()
        await receiver.server.stop()
        if !listening {
            for port in servers.map(\.port) + [sandbox.port, receiver.port] { ServerFixture.transport.unregister(port: port) }
        }
    }

    /// Waits until nothing is left to happen of its own accord: the sandbox sends no notification,
    /// and no instance has a request in flight, a job running or a webhook due — each instance
    /// asked twice round, since one instance's last work can leave another something to do (a
    /// webhook another claims). What a test would have slept for ("a late duplicate would have
    /// arrived by now") has happened when this returns.
    func settled() async {
        for _ in 0..<2 {
            await sandbox.delivery.settled(within: ServerFixture.sandboxRetries)
            for server in servers { await server.settled() }
        }
    }

    /// The next instance's address (round robin), or instance `index`'s.
    func base(_ index: Int? = nil) -> String {
        let chosen = index ?? turn.add(1, ordering: .relaxed).newValue
        return servers[chosen % servers.count].baseURL.absoluteString
    }

    struct Answer: Sendable {
        let status: Int
        let body: Data
        var object: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        var errorCode: String? { (object["error"] as? [String: Any])?["code"] as? String }
        var errorMessage: String { (object["error"] as? [String: Any])?["message"] as? String ?? "" }
    }

    /// A merchant API call through one of the instances (the secret key unless told otherwise).
    func call(_ method: String, _ path: String, key: String? = nil, headers: [String: String] = [:], json: Any? = nil, via: Int? = nil)
        async throws -> Answer
    {
        var all = HTTPHeaders()
        all.add("Authorization", "Bearer \(key ?? keys.secret)")
        all.add("Content-Type", "application/json")
        for (name, value) in headers { all.add(name, value) }
        let response = try await transport.send(
            HTTPRequest(
                method: method, url: URL(string: base(via) + path)!, headers: all,
                body: try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data(), timeout: .seconds(30)))
        return Answer(status: response.status, body: response.body)
    }

    /// Opens `path` on instance `via` as a browser opens an event stream, in process (see ``ServerFixture/open(_:headers:)``).
    func open(_ path: String, headers: HTTPHeaders = [:], via: Int) async throws -> (
        status: Int, headers: HTTPHeaders, stream: InProcessStream
    ) {
        try #require(!listening, "a stream is read in process")
        let server = servers[via % servers.count]
        return try await InProcessClient(base: server.baseURL, timeout: .seconds(30)) { await server.handle($0) }.open(
            path, headers: headers)
    }

    /// A call to the sandbox (the payer's side, and its books).
    func sandboxCall(_ method: String, _ path: String, json: Any? = nil) async throws -> Answer {
        let response = try await transport.send(
            HTTPRequest(
                method: method, url: URL(string: sandbox.baseURL.absoluteString + path)!,
                body: try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()))
        return Answer(status: response.status, body: response.body)
    }

    /// An order from the merchant's backend: its id and trade number.
    func order(_ amount: String, currency: String = "CNY") async throws -> (id: String, number: String) {
        let created = try await call(
            "POST", "/v1/orders", json: ["items": [["label": "Latte", "amount": amount]], "currency": currency, "description": "Latte"])
        try #require(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        return (created.object["id"] as? String ?? "", created.object["out_trade_no"] as? String ?? "")
    }

    /// Starts a payment; the wallet parameters (with `payment_id` and `out_trade_no`).
    func start(_ id: String, _ method: String, api: String? = nil, extra: [String: Any] = [:]) async throws -> [String: Any] {
        var body: [String: Any] = ["method": method]
        if let api { body["api"] = api }
        for (key, value) in extra { body[key] = value }
        let answer = try await call("POST", "/v1/orders/\(id)/payments", json: body)
        try #require(answer.status == 200, "\(method): \(String(decoding: answer.body, as: UTF8.self))")
        return answer.object
    }

    /// The payer pays a trade in the sandbox: `wechat` or `alipay` by trade number, or an
    /// Alipay order string. - Returns: the provider's state afterwards.
    @discardableResult
    func pay(_ provider: String, number: String? = nil, orderString: String? = nil) async throws -> String {
        var body: [String: Any] = ["provider": provider, "outcome": "success"]
        if let number { body["out_trade_no"] = number }
        if let orderString { body["order_string"] = orderString }
        let answer = try await sandboxCall("POST", "sandbox/pay", json: body)
        return answer.object["trade_state"] as? String ?? answer.object["resultStatus"] as? String ?? "status \(answer.status)"
    }

    /// An Apple Pay token (a PKPayment's JSON) for the order, minted by the sandbox.
    func token(for id: String, amount: String? = nil) async throws -> Data {
        var body: [String: Any] = ["order_id": id]
        if let amount { body["amount"] = amount }
        let minted = try await sandboxCall("POST", "sandbox/applepay/token", json: body)
        try #require(minted.status == 200, "\(String(decoding: minted.body, as: UTF8.self))")
        return minted.body
    }

    /// Presents an Apple Pay token for authorisation.
    func authorize(_ id: String, token: Data) async throws -> Answer {
        try await call(
            "POST", "/v1/orders/\(id)/payments/applepay/authorize", json: ["token": try JSONSerialization.jsonObject(with: token)])
    }

    /// A new order of `amount` paid with Apple Pay through the configured processor; its id.
    func paidByApplePay(_ amount: String) async throws -> String {
        let order = try await order(amount)
        _ = try await start(order.id, "applepay")
        let answer = try await authorize(order.id, token: try await token(for: order.id))
        try #require(answer.status == 200 && answer.object["status"] as? Int == 0, "\(answer.object)")
        return order.id
    }

    func orderJSON(_ id: String) async throws -> [String: Any] { try await call("GET", "/v1/orders/\(id)").object }

    func status(_ id: String) async throws -> String? { try await orderJSON(id)["status"] as? String }

    /// Whether the order (read from the store, without a query) has `status` once the sandbox's
    /// notifications under way have been answered (an instance answers one once its change is on disk).
    func waitFor(_ id: String, _ status: PaymentStatus) async throws -> Bool {
        await sandbox.delivery.settled(within: ServerFixture.sandboxRetries)
        return try await store.order(id: id)?.status == status
    }

    /// The sandbox's books: every trade it keeps, with its refunds.
    func ledger() async throws -> [SandboxLedgerEntry] {
        (await sandbox.wechatV2.ledger()) + (await sandbox.wechatV3.ledger()) + (await sandbox.alipay.ledger())
            + (await sandbox.unionpay.ledger())
    }

    /// Today's reconciliation, through the API.
    func reconcile() async throws -> [String: Any] {
        let today = BeijingTime.formatter("yyyy-MM-dd").string(from: Date())
        let answer = try await call("GET", "/v1/reconciliations/\(today)")
        try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        return answer.object
    }

    /// Webhooks received of `type` for `order`.
    func webhooks(_ type: String, order: String) -> [[String: Any]] {
        receiver.received.compactMap { delivery in
            guard let object = (try? JSONSerialization.jsonObject(with: Data(delivery.body))) as? [String: Any],
                object["type"] as? String == type, (object["data"] as? [String: Any])?["order_id"] as? String == order
            else { return nil }
            return object
        }
    }

    /// Every payment and refund here against the sandbox's books and the processor's count:
    /// each payment recorded as succeeded was paid at its provider for its amount, each trade
    /// paid at a provider under one of our numbers is a succeeded payment here, and refunds agree
    /// to the fen. - Returns: what disagrees (empty when the books agree).
    func disagreements() async throws -> [String] {
        var problems: [String] = []
        let orders = try await store.orders(status: nil, before: nil, limit: 1000)
        let payments = try await store.payments(orderIDs: orders.map(\.id))
        let refunds = try await store.refunds(orderIDs: orders.map(\.id))
        let books = try await ledger()
        func entry(_ payment: StoredPayment) -> SandboxLedgerEntry? {
            let providers =
                switch payment.method.wallet {
                case .alipay: ["alipay"]
                case .unionpay: ["unionpay"]
                default: ["wechat.v2", "wechat.v3"]
                }
            return books.first { providers.contains($0.provider) && $0.out_trade_no == payment.outTradeNo && $0.paid }
                ?? books.first { providers.contains($0.provider) && $0.out_trade_no == payment.outTradeNo }
        }
        for payment in payments where payment.method.wallet != .applePay {
            let there = entry(payment)
            let paidThere = there?.paid ?? false
            if (payment.status == .succeeded) != paidThere {
                problems.append("\(payment.id) \(payment.outTradeNo): \(payment.status.rawValue) here, \(there?.state ?? "unknown") there")
            }
            if let there, paidThere, there.amount_minor != payment.amount.minorUnits {
                problems.append("\(payment.id): \(payment.amount.minorUnits) here, \(there.amount_minor) there")
            }
            let refundedHere = refunds.filter { $0.paymentID == payment.id && $0.status == .succeeded }.reduce(0) {
                $0 + $1.amount.minorUnits
            }
            if refundedHere != (there?.refunded_minor ?? 0) || refundedHere != payment.refunded.minorUnits {
                problems.append(
                    "\(payment.id): refunded \(refundedHere) (payment says \(payment.refunded.minorUnits)) here, \(there?.refunded_minor ?? 0) there"
                )
            }
        }
        // Apple Pay against the sandbox's Stripe: paid here exactly when authorised there, and what
        // went back here (refunded, released at capture, voided) is what went back there.
        // (or its Adyen, when a test configured that).
        let usesAdyen = processor.processor is ApplePay.AdyenProcessor
        let processorBooks = usesAdyen ? sandbox.adyen.core.processor : sandbox.stripe.core.processor
        let processorName = usesAdyen ? "Adyen" : "Stripe"
        for payment in payments where payment.method.wallet == .applePay && payment.status != .closed {
            let there = processorBooks.entries.first { $0.merchantReference == payment.outTradeNo }
            if (payment.status == .succeeded) != (there != nil) {
                problems.append(
                    "\(payment.id): \(payment.status.rawValue) here, \(there?.status.rawValue ?? "nothing") at \(processorName)")
            }
            guard let there else { continue }
            let backThere =
                there.status == .voided || there.status == .captureFailed
                ? there.amount.minorUnits
                : there.status == .captured
                    ? there.amount.minorUnits - there.captured.minorUnits + there.refunded.minorUnits + there.chargedBack.minorUnits : 0
            let backHere = refunds.filter { $0.paymentID == payment.id && $0.status == .succeeded }.reduce(0) { $0 + $1.amount.minorUnits }
            if backHere != backThere || backHere != payment.refunded.minorUnits || there.amount != payment.amount {
                problems.append(
                    "\(payment.id): \(backHere) of \(payment.amount) back here, \(backThere) of \(there.amount) at \(processorName)")
            }
        }
        let ours = Set(payments.map(\.outTradeNo))
        for trade in books where trade.paid && ours.contains(trade.out_trade_no) {
            let wallet: PaymentMethod.Wallet = trade.provider == "alipay" ? .alipay : (trade.provider == "unionpay" ? .unionpay : .wechat)
            if !payments.contains(where: { $0.outTradeNo == trade.out_trade_no && $0.method.wallet == wallet && $0.status == .succeeded }) {
                problems.append("\(trade.provider) \(trade.out_trade_no) paid there, not here")
            }
        }
        let authorised = payments.filter { $0.method == .applePay && $0.status == .succeeded }.count
        if authorised > processor.count { problems.append("\(authorised) Apple Pay payments here, \(processor.count) authorisations") }
        for order in orders {
            let settled = payments.filter { $0.id == order.settledPaymentID }
            let paid = payments.filter { $0.orderID == order.id && $0.status == .succeeded }
            if order.status.hasReceivedMoney != !paid.isEmpty {
                problems.append("order \(order.id) is \(order.status.rawValue) with \(paid.count) payments")
            }
            if paid.count > 1
                && !paid.dropFirst().allSatisfy({ $0.refundRequired || $0.refunded == $0.amount || $0.id == order.settledPaymentID })
            {
                problems.append("order \(order.id) was paid \(paid.count) times and not every extra payment is flagged")
            }
            if let settled = settled.first, order.refunded != settled.refunded {
                problems.append("order \(order.id) says \(order.refunded) refunded, its payment \(settled.refunded)")
            }
        }
        return problems
    }
}
