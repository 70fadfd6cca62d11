public import Cashier
import CashierCurl
public import CashierHTTP
public import CashierStore
public import Foundation
import Synchronization

/// The merchant server: the `/v1` API the merchant's backend and app call, and the notify
/// endpoints the providers call. Notifications are verified before they touch an order; an order
/// moves by compare-and-set, once; the answer a provider waits for is sent only after the change
/// is on disk. This type owns the sockets and the jobs; what answers requests is ``MerchantApp``.
///
/// ```swift
/// let server = MerchantServer(configuration: configuration, store: try SQLiteOrderStore(path: "cashier.db"))
/// try await server.start()
/// ```
public final class MerchantServer: Sendable {
    /// The configuration requests are answered with now (``reload(_:)`` replaces it).
    public var configuration: MerchantConfiguration { app.configuration }
    public let store: any OrderStore
    private let server: HTTPServer
    /// The app new requests go to: swapped whole by ``reload(_:)``, while requests already
    /// handed to the previous one finish there.
    let slot: AppSlot
    /// The app answering new requests now.
    var app: MerchantApp { slot.app }
    /// What every app of this server shares (store, metrics, bells, breaker, transport).
    let shared: MerchantApp.Shared

    /// - Parameters:
    ///   - clock: where every time the server uses comes from (tests move a ``ManualClock``).
    ///   - audit: records responses, log lines and held secrets for the secrets check (tests).
    ///   - accessLog: one entry per request: method, path (no query), status, sizes and time —
    ///     never bodies, headers, keys or card data.
    ///   - orderCreated: told of every order created, with its ``OrderJSON/checkout_url`` (which
    ///     carries the order's client secret: print it only where that is fine, as in sandbox mode).
    ///   - sandboxPayer: in sandbox mode, adds `POST /v1/test_helpers/orders/{id}/pay`.
    ///   - providerTransport: what calls to the providers go through (default: libcurl, connections kept).
    ///   - webhookTransport: what webhook deliveries to `configuration.webhook` go through (default:
    ///     libcurl); a test gives an in-process transport to a server that does not listen.
    ///   - log: where each call to a provider is logged (with the id of the request that made it), if anywhere.
    public init(
        configuration: MerchantConfiguration, store: any OrderStore, host: String = "127.0.0.1", port: UInt16 = 0,
        clock: any WallClock = SystemClock(), audit: SecretsAudit? = nil, accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil,
        orderCreated: (@Sendable (OrderJSON) -> Void)? = nil, sandboxPayer: (any SandboxPayer)? = nil,
        providerTransport: (any HTTPTransport)? = nil, webhookTransport: (any HTTPTransport)? = nil, log: ServerLog? = nil
    ) {
        self.webhookTransport = webhookTransport
        self.store = store
        self.clock = clock
        self.log = log
        givenPort = port
        let listening = ListeningPort()
        // Provider-call lines are read by the secrets audit too (tests), like the access log's.
        let audited = log.map { log in
            ServerLog(format: log.format) { line in
                audit?.log(line)
                log.record(line: line)
            }
        }
        let shared = MerchantApp.Shared(
            configuration: configuration, store: store, clock: clock, audit: audit, listening: listening,
            providerTransport: providerTransport, orderCreated: orderCreated, sandboxPayer: sandboxPayer, log: audited)
        self.shared = shared
        let app = MerchantApp(configuration: configuration, shared: shared)
        let slot = AppSlot(app)
        self.slot = slot
        shared.metrics.measure { await Self.gauges(slot.app, clock: clock) }
        // A checkout link's path is its order's client secret: logged without it.
        var logged: (@Sendable (AccessLogEntry) -> Void)? = nil
        if accessLog != nil || audit != nil {
            logged = { @Sendable entry in
                let entry = entry.with(path: CheckoutLink.loggable(path: entry.path))
                audit?.log(entry.jsonLine)
                accessLog?(entry)
            }
        }
        // Bodies up to 3 MiB: a complaint's image (2 MB at most, WeChat Pay's limit) goes up base64.
        let limits = HTTPServer.Configuration(
            host: host, port: port, threads: 2, maxBodyBytes: Self.maxBodyBytes, perIPConnectionLimit: configuration.perIPConnectionLimit,
            requestDeadlineSeconds: configuration.requestDeadlineSeconds)
        if let listen = configuration.metricsListen {
            let health = HTTPServerResponse.json(HealthJSON(status: "ok", instance: shared.instanceID)).prepared()
            let metrics = shared.metrics
            metricsServer = HTTPServer(configuration: .init(host: listen.host, port: listen.port, threads: 1)) { request in
                switch request.path {
                case "/metrics": .later { .text(await metrics.render(), contentType: "text/plain; version=0.0.4") }
                case "/healthz": .now(health)
                default: .now(.error(status: 404, code: "not_found", message: "this address serves /metrics and /healthz only"))
                }
            }
        } else {
            metricsServer = nil
        }
        server = HTTPServer(configuration: limits, accessLog: logged) { request in slot.app.answer(request) }
        self.listening = listening
        jobRunner = JobRunner(
            store: store, clock: clock, metrics: shared.metrics, holder: shared.instanceID, lease: configuration.jobLease,
            ended: shared.activity
        ) {
            shared.webhooksDue.ring()
            shared.watch.ring()
        }
    }

    /// A new secret key for `cashier keys create`: the key (shown once) and the record the store
    /// keeps (its hash, never the key).
    /// - Parameter merchant: the sub-merchant the key acts for (its orders only); `nil` for every merchant.
    public static func makeSecretKey(label: String, merchant: String? = nil, now: Date = Date()) -> (key: String, record: APIKeyRecord) {
        APIKeys.make(label: label, merchant: merchant, now: now)
    }

    /// The OpenAPI 3.1 document `GET /openapi.json` serves (with the sandbox's test helpers when `sandbox`).
    public static func openAPIDocument(sandbox: Bool = false) throws -> Data {
        try OpenAPIDocument.served(sandbox: sandbox)
    }

    /// The largest request body accepted (413 past it): room for a complaint image of 2 MB in base64.
    static let maxBodyBytes = 3 << 20

    private let listening: ListeningPort
    /// The port given to `init`: where a server started with `start(listening: false)` says it is.
    private let givenPort: UInt16
    /// Whether ``start(listening:)`` opened the sockets.
    private let onSocket = Atomic<Bool>(false)
    /// Where provider calls are logged.
    let log: ServerLog?
    /// `metrics.listen`: `/metrics` on an address of its own.
    private let metricsServer: HTTPServer?
    private let clock: any WallClock
    private let jobRunner: JobRunner
    private let webhookTransport: (any HTTPTransport)?
    /// Every route, as `(method, pattern)`.
    public var routeTable: [(method: String, pattern: String)] { app.routeTable }

    private let jobs = Mutex<[Task<Void, Never>]>([])

    /// Reconciles a day (`yyyy-MM-dd`, Beijing time): downloads each configured provider's bill and
    /// reports every trade missing on either side or differing in amount or status. Works without
    /// ``start()`` (`cashier reconcile --config`).
    /// - Parameter progress: one line per step (downloads, then trades checked).
    public func reconcile(date: String, progress: @Sendable (String) -> Void = { _ in }) async throws -> ReconciliationReport {
        try await store.migrate()
        return try await Reconciler(ledger: app.ledger).run(date: date, progress: progress)
    }

    /// How often the providers' keys are checked for age (a download happens only when needed).
    static let providerKeysInterval: Duration = .seconds(300)

    /// Applies the store's migrations, listens, and starts the jobs.
    ///
    /// With `listening: false` no socket is opened (not the API's, not `metrics.listen`): the
    /// jobs run, and ``handle(_:)`` answers. The server then says it is at the `port` given to
    /// `init` (``port``, ``baseURL``, the notify URLs it gives the providers when no public base URL
    /// is configured), which should not be 0: a test's in-process transport answers there by
    /// calling ``handle(_:)``, so the server, its sandboxes and their notifications meet without
    /// the network.
    ///
    /// ```swift
    /// let server = MerchantServer(configuration: configuration, store: store, port: 20_001, providerTransport: inProcess)
    /// try await server.start(listening: false)
    /// let answer = await server.handle(HTTPServerRequest(method: "GET", path: "/healthz"))
    /// ```
    public func start(listening socket: Bool = true) async throws {
        try await store.migrate()
        if socket {
            try server.start()
            try metricsServer?.start()
            onSocket.store(true, ordering: .releasing)
        }
        listening.port.store(socket ? server.port : givenPort, ordering: .releasing)
        // Each run asks the app of the moment: after a reload, the jobs use the new credentials.
        let slot = self.slot
        let runner = jobRunner
        let schedule = querySchedule
        let configuration = self.configuration
        var tasks = [
            runner.every(configuration.expiryInterval, "expiry") { _ = try? await slot.app.ledger.closing.closeExpired() },
            runner.every(configuration.queryInterval, "query_fallback") {
                _ = try? await slot.app.ledger.jobs.queryPending(schedule: schedule)
            },
            runner.every(configuration.refundInterval, "refunds") { _ = try? await slot.app.ledger.jobs.settleRefunds() },
        ]
        if !app.ledger.adapters.complaintHandling.isEmpty {
            // Complaint notifications to this server, when configured so, before anything can be complained of.
            _ = try? await app.ledger.complaints.registerNotifyURL()
            tasks.append(
                runner.every(configuration.complaintInterval, "complaints") { _ = try? await slot.app.ledger.complaints.reconcile() })
        }
        if app.ledger.adapters.transferring != nil || app.ledger.adapters.transferring(.alipay) != nil {
            tasks.append(runner.every(configuration.queryInterval, "transfers") { _ = try? await slot.app.ledger.transfers.reconcile() })
        }
        if app.ledger.adapters.splitting(.wechatV3) != nil || app.ledger.adapters.splitting(.alipay) != nil {
            tasks.append(runner.every(configuration.queryInterval, "splits") { _ = try? await slot.app.ledger.splits.reconcile() })
        }
        if [PaymentProvider.wechatV2, .alipay, .applePay].contains(where: { app.ledger.adapters.recurring($0) != nil }) {
            tasks.append(
                runner.every(configuration.recurringInterval, "recurring", waitFirst: true) {
                    _ = try? await slot.app.ledger.recurring.chargeDue()
                })
        }
        if configuration.wechatV3?.downloadsPlatformCertificates == true
            || configuration.serviceProvider?.wechatV3?.downloadsPlatformCertificates == true
        {
            // Each instance keeps its own keys: WeChat Pay v3's platform certificates at start, then as they age.
            tasks.append(
                runner.every(Self.providerKeysInterval, "provider_keys", exclusive: false) {
                    for adapter in slot.app.ledger.adapters.keyMaintaining { await adapter.maintainKeys() }
                })
        }
        if let endpoint = configuration.webhook {
            let metrics = shared.metrics
            let dispatcher = WebhookDispatcher(
                endpoint: endpoint, store: store, transport: webhookTransport ?? CurlTransport(), lease: configuration.jobLease,
                clock: clock
            ) { delivered in
                metrics.increment("cashier_webhook_deliveries_total", ["result": delivered ? "delivered" : "failed"])
            }
            // Messages are claimed one by one: every instance may deliver.
            tasks.append(
                runner.every(configuration.webhookInterval, "webhooks", exclusive: false, doorbell: shared.webhooksDue) {
                    _ = try? await dispatcher.deliverAllDue()
                })
        }
        jobs.withLock { $0 += tasks }
    }

    private let querySchedule = QueryFallbackSchedule()
    /// Who holds a job's lease in the store; `/healthz` names it.
    public var instanceID: String { shared.instanceID }

    /// Asks the providers about pending payments whose turn has come (what the query-fallback job
    /// runs every ``MerchantConfiguration/queryInterval``). - Returns: how many were found paid.
    @discardableResult
    public func queryPendingPayments() async throws -> Int {
        try await app.ledger.jobs.queryPending(schedule: querySchedule)
    }

    /// Closes unpaid orders whose expiry has passed, at their providers and here (what the expiry
    /// job runs every ``MerchantConfiguration/expiryInterval``). - Returns: how many.
    @discardableResult
    public func closeExpiredOrders() async throws -> Int {
        try await app.ledger.closing.closeExpired()
    }

    /// Settles refunds whose answer was lost, and refunds duplicates when configured to (what the
    /// refund job runs every ``MerchantConfiguration/refundInterval``). - Returns: how many.
    @discardableResult
    public func settleRefunds() async throws -> Int {
        try await app.ledger.jobs.settleRefunds()
    }

    /// Reads the providers' recent complaints for changes a notification did not bring and
    /// announces missed deadlines (what the complaint job runs every
    /// ``MerchantConfiguration/complaintInterval``). - Returns: how many complaints changed or were announced.
    @discardableResult
    public func reconcileComplaints() async throws -> Int {
        try await app.ledger.complaints.reconcile()
    }

    /// Asks the provider about transfers not ended and unchanged for a minute (what the transfer
    /// job runs every ``MerchantConfiguration/queryInterval``). - Returns: how many changed.
    @discardableResult
    public func reconcileTransfers() async throws -> Int {
        try await app.ledger.transfers.reconcile()
    }

    /// Asks the provider about splits and returns not ended and unchanged for a minute (what the
    /// split job runs every ``MerchantConfiguration/queryInterval``). - Returns: how many changed.
    @discardableResult
    public func reconcileSplits() async throws -> Int {
        try await app.ledger.splits.reconcile()
    }

    /// Charges what is due under agreements, looks again at charges awaited, and asks about
    /// agreements still pending (what the recurring job runs every
    /// ``MerchantConfiguration/recurringInterval``). - Returns: how many invoices were opened or moved.
    @discardableResult
    public func chargeDue() async throws -> Int {
        try await app.ledger.recurring.chargeDue()
    }

    /// Waits until nothing is left to happen of its own accord: no request in flight, no job's
    /// run under way, no webhook due at the clock's time. A test moves its clock, then waits for
    /// this instead of sleeping.
    public func settled() async {
        await app.settled(jobs: jobRunner)
    }

    /// The port the API listens on (after ``start(listening:)``; without a socket, the one given to `init`).
    public var port: UInt16 { onSocket.load(ordering: .acquiring) ? server.port : givenPort }
    /// The port of `metrics.listen`, when configured (after ``start()``).
    public var metricsPort: UInt16? { metricsServer?.port }
    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Answers `request` in process, as it would over a socket — the access log included — with
    /// no socket opened, whether or not the server listens.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        await server.handle(request)
    }

    /// Stops listening, letting requests in progress finish, and stops the jobs, letting what each
    /// has in flight finish: a webhook being sent is recorded as delivered or not (messages
    /// claimed and not yet sent are given back, due at once), a provider being asked is heard
    /// out, and nothing new starts. Each job's lease is given up, so another instance — or this
    /// one, restarted — runs it at once. When this returns, nothing of this server uses the store
    /// any more: it may be closed. What is in flight is bounded by its request timeout (10 s for a
    /// provider or the webhook endpoint), and an item in hand may take a few such requests.
    public func stop() async {
        let stopping = jobs.withLock { tasks in
            defer { tasks.removeAll() }
            return tasks
        }
        for task in stopping { task.cancel() }
        shared.watch.stop()
        await metricsServer?.stop()
        await server.stop()
        for task in stopping { await task.value }
    }
}
