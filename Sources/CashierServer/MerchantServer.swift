import Alipay
import ApplePay
public import Cashier
import CashierCrypto
public import CashierHTTP
public import CashierStore
public import Foundation
import Synchronization
import WeChatPay

/// The merchant server: the `/v1` API the merchant's backend and app call, and the notify
/// endpoints the providers call. Notifications are verified before they touch an order; an order
/// moves by compare-and-set, once; the answer a provider waits for is sent only after the change
/// is on disk.
///
/// ```swift
/// let server = MerchantServer(configuration: configuration, store: try SQLiteOrderStore(path: "cashier.db"))
/// try await server.start()
/// ```
public final class MerchantServer: Sendable {
    public let configuration: MerchantConfiguration
    public let store: any OrderStore
    private let server: HTTPServer

    /// - Parameters:
    ///   - clock: where every time the server uses comes from (tests move a ``ManualClock``).
    ///   - audit: records responses, log lines and held secrets for the secrets check (tests).
    ///   - accessLog: one entry per request: method, path (no query), status, sizes and time —
    ///     never bodies, headers, keys or card data.
    ///   - orderCreated: told of every order created, with its ``OrderJSON/checkout_url`` (which
    ///     carries the order's client secret: print it only where that is fine, as in sandbox mode).
    ///   - sandboxPayer: in sandbox mode, adds `POST /v1/test_helpers/orders/{id}/pay`.
    public init(
        configuration: MerchantConfiguration, store: any OrderStore, host: String = "127.0.0.1", port: UInt16 = 0,
        clock: any WallClock = SystemClock(), audit: SecretsAudit? = nil, accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil,
        orderCreated: (@Sendable (OrderJSON) -> Void)? = nil, sandboxPayer: (any SandboxPayer)? = nil
    ) {
        self.configuration = configuration
        self.store = store
        self.clock = clock
        let listening = ListeningPort()
        let metrics = ServerMetrics(unloggedReportLines: { store.unloggedReportLines })
        let webhooksDue = Doorbell()
        self.webhooksDue = webhooksDue
        let instanceID = "instance-" + UUID().uuidString.lowercased()
        self.instanceID = instanceID
        let api = MerchantAPI(
            configuration: configuration, store: store, listening: listening, metrics: metrics, instanceID: instanceID, clock: clock,
            audit: audit, orderCreated: orderCreated, sandboxPayer: sandboxPayer)
        self.api = api
        var router = Router()
        api.register(on: &router)
        Dashboard(api: api).register(on: &router)
        CheckoutPage(api: api).register(on: &router)
        // The merchant API takes the query parameters its document lists, and no other.
        for operation in OpenAPIDocument.queryParameters {
            router.limitQuery(operation.method, operation.path, to: operation.names)
        }
        let routes = router
        audit?.secret(Self.secrets(of: configuration))
        // A checkout link's path is its order's client secret: logged without it.
        var logged: (@Sendable (AccessLogEntry) -> Void)? = nil
        if accessLog != nil || audit != nil {
            logged = { @Sendable entry in
                let entry = entry.with(path: CheckoutLink.loggable(path: entry.path))
                audit?.log(entry.jsonLine)
                accessLog?(entry)
            }
        }
        /// Counted, and read by the secrets audit when it runs (tests), whichever way it was answered.
        let finished: @Sendable (HTTPServerRequest, HTTPServerResponse) -> HTTPServerResponse = { request, response in
            metrics.countRequest(status: response.status)
            if let audit {
                // An export is a file: the audit reads it too (only when auditing, in tests).
                let body = response.bodyFile.flatMap { FileManager.default.contents(atPath: $0) }.map(Array.init) ?? response.body
                audit.output("\(response.status) \(request.path) " + String(decoding: body, as: UTF8.self))
            }
            return response
        }
        let limits = HTTPServer.Configuration(
            host: host, port: port, threads: 2, perIPConnectionLimit: configuration.perIPConnectionLimit,
            requestDeadlineSeconds: configuration.requestDeadlineSeconds)
        if let listen = configuration.metricsListen {
            let health = HTTPServerResponse.json(HealthJSON(status: "ok", instance: instanceID)).prepared()
            metricsServer = HTTPServer(configuration: .init(host: listen.host, port: listen.port, threads: 1)) { request in
                switch request.path {
                case "/metrics": .now(.text(metrics.render(), contentType: "text/plain; version=0.0.4"))
                case "/healthz": .now(health)
                default: .now(.error(status: 404, code: "not_found", message: "this address serves /metrics and /healthz only"))
                }
            }
        } else {
            metricsServer = nil
        }
        /// A request that may have changed an order may have queued a webhook: it is sent now.
        @Sendable func changed(_ request: HTTPServerRequest, _ response: HTTPServerResponse) -> HTTPServerResponse {
            if request.method != "GET" && request.method != "HEAD" && response.status < 500 {
                webhooksDue.ring()
                api.watch.ring()
            }
            return finished(request, response)
        }
        server = HTTPServer(configuration: limits, accessLog: logged) { request in
            switch routes.answer(request) {
            case .now(let response): .now(finished(request, response))
            case .later(let work): .later { changed(request, await work()) }
            case .handedOff(let work): .handedOff { answer in work { answer(changed(request, $0)) } }
            }
        }
        self.listening = listening
        self.metrics = metrics
        self.routeTable = routes.table
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

    /// What must never leave this server: its keys (a PEM key by one of its base64 lines).
    static func secrets(of configuration: MerchantConfiguration) -> [String?] {
        func pemLine(_ pem: String?) -> String? { pem?.split(separator: "\n").dropFirst(3).first.map(String.init) }
        return [
            configuration.secretKey, configuration.wechat?.merchant.apiKey, configuration.wechatV3?.merchant.apiV3Key,
            pemLine(configuration.wechatV3?.merchant.privateKey.pemRepresentation), configuration.miniProgram?.secret,
            pemLine(configuration.alipay?.privateKey.pemRepresentation), configuration.webhook?.secret,
            configuration.applePay?.adyenHMACKey, configuration.applePay?.stripeWebhookSecret,
        ]
    }

    private let listening: ListeningPort
    /// `metrics.listen`: `/metrics` on an address of its own.
    private let metricsServer: HTTPServer?
    /// Rung when a webhook may have been queued (a request that changes something, a job's run).
    private let webhooksDue: Doorbell
    private let metrics: ServerMetrics
    private let api: MerchantAPI
    private let clock: any WallClock
    /// Every route, as `(method, pattern)`.
    public let routeTable: [(method: String, pattern: String)]

    private let jobs = Mutex<[Task<Void, Never>]>([])

    /// Reconciles a day (`yyyy-MM-dd`, Beijing time): downloads each configured provider's bill and
    /// reports every trade missing on either side or differing in amount or status. Works without
    /// ``start()`` (`cashier reconcile --config`).
    /// - Parameter progress: one line per step (downloads, then trades checked).
    public func reconcile(date: String, progress: @Sendable (String) -> Void = { _ in }) async throws -> ReconciliationReport {
        try await store.migrate()
        return try await Reconciler(api: api).run(date: date, progress: progress)
    }

    /// Applies the store's migrations, listens, and starts the webhook delivery job.
    /// How often the providers' keys are checked for age (a download happens only when needed).
    static let providerKeysInterval: Duration = .seconds(300)

    public func start() async throws {
        try await store.migrate()
        try server.start()
        try metricsServer?.start()
        listening.port.store(server.port, ordering: .releasing)
        let metrics = self.metrics
        let store = self.store
        let holder = instanceID
        let jobLease = configuration.jobLease
        let clock = self.clock
        let webhooksDue = self.webhooksDue
        /// Runs `body` every `interval` until stopped, counting each run for `/metrics`. With
        /// `exclusive`, only while this instance holds the job's lease in the store: instances
        /// sharing a database run it one at a time, and another takes over when the holder dies.
        /// A `doorbell` cuts the wait short when rung; rings are then gathered for
        /// ``MerchantServer/ringGap`` before the next run, so a busy server (every request rings)
        /// runs the job at most that often rather than in a loop of empty claims.
        func every(
            _ interval: Duration, _ job: String, exclusive: Bool = true, doorbell: Doorbell? = nil,
            _ body: @escaping @Sendable () async -> Void
        ) -> Task<Void, Never> {
            let lease = max(jobLease, 3 * Double(interval.components.seconds))
            return Task {
                while !Task.isCancelled {
                    var mine = true
                    if exclusive { mine = (try? await store.acquireLease(job, holder: holder, now: clock.now(), duration: lease)) ?? false }
                    if mine {
                        await body()
                        metrics.increment("cashier_job_runs_total", ["job": job])
                        // Any other job's run may have queued a webhook: send it now.
                        if doorbell == nil {
                            webhooksDue.ring()
                            api.watch.ring()
                        }
                    }
                    if let doorbell {
                        if await doorbell.wait(upTo: interval) == .rung { try? await Task.sleep(for: Self.ringGap) }
                    } else {
                        try? await Task.sleep(for: interval)
                    }
                }
                // Stopped: the lease goes now, so another instance (or this one, restarted) runs
                // the job at once rather than when the lease would have ended.
                if exclusive { try? await store.releaseLease(job, holder: holder) }
            }
        }
        let api = self.api
        let schedule = querySchedule
        var tasks = [
            every(configuration.expiryInterval, "expiry") { _ = try? await api.closeExpired() },
            every(configuration.queryInterval, "query_fallback") { _ = try? await api.queryPending(schedule: schedule) },
            every(configuration.refundInterval, "refunds") { _ = try? await api.settleRefunds() },
        ]
        if configuration.wechatV3?.downloadsPlatformCertificates == true
            || configuration.serviceProvider?.wechatV3?.downloadsPlatformCertificates == true
        {
            // Each instance keeps its own keys: WeChat Pay v3's platform certificates at start, then as they age.
            tasks.append(
                every(Self.providerKeysInterval, "provider_keys", exclusive: false) {
                    for adapter in api.adapters.all { await adapter.maintainKeys() }
                })
        }
        if let endpoint = configuration.webhook {
            let dispatcher = WebhookDispatcher(endpoint: endpoint, store: store, lease: jobLease, clock: clock) { delivered in
                metrics.increment("cashier_webhook_deliveries_total", ["result": delivered ? "delivered" : "failed"])
            }
            // Messages are claimed one by one: every instance may deliver.
            tasks.append(
                every(configuration.webhookInterval, "webhooks", exclusive: false, doorbell: webhooksDue) {
                    _ = try? await dispatcher.deliverAllDue()
                })
        }
        jobs.withLock { $0 += tasks }
    }

    /// The least time between two runs of a job woken by its doorbell.
    static let ringGap: Duration = .milliseconds(10)

    private let querySchedule = QueryFallbackSchedule()
    /// Who holds a job's lease in the store; `/healthz` names it.
    public let instanceID: String

    /// Asks the providers about pending payments whose turn has come (what the query-fallback job
    /// runs every ``MerchantConfiguration/queryInterval``). - Returns: how many were found paid.
    @discardableResult
    public func queryPendingPayments() async throws -> Int {
        try await api.queryPending(schedule: querySchedule)
    }

    /// Closes unpaid orders whose expiry has passed, at their providers and here (what the expiry
    /// job runs every ``MerchantConfiguration/expiryInterval``). - Returns: how many.
    @discardableResult
    public func closeExpiredOrders() async throws -> Int {
        try await api.closeExpired()
    }

    /// Settles refunds whose answer was lost, and refunds duplicates when configured to (what the
    /// refund job runs every ``MerchantConfiguration/refundInterval``). - Returns: how many.
    @discardableResult
    public func settleRefunds() async throws -> Int {
        try await api.settleRefunds()
    }

    public var port: UInt16 { server.port }
    /// The port of `metrics.listen`, when configured (after ``start()``).
    public var metricsPort: UInt16? { metricsServer?.port }
    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

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
        api.watch.stop()
        await metricsServer?.stop()
        await server.stop()
        for task in stopping { await task.value }
    }
}
