import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierCurl
import CashierHTTP
import CashierStore
import Foundation
import Synchronization
import WeChatPay

/// The merchant server without its sockets: the router with every route and its middleware, the
/// ledger and its services, and the bells that follow a change (webhooks to send, order streams
/// to wake). ``MerchantServer`` puts it behind libmicrohttpd; a test can call ``handle(_:)``
/// directly, with no socket, and wait for ``settled()``.
final class MerchantApp: Sendable {
    let ledger: Ledger
    let routes: Router
    /// The configuration this app was built from.
    var configuration: MerchantConfiguration { ledger.configuration }
    /// What every app of one server shares, whatever configuration it was built from: a reload
    /// builds a new app over the same store, jobs, metrics, bells and streams.
    let shared: Shared
    var watch: OrderWatch { shared.watch }
    /// Rung when a webhook may have been queued (a request that changes something, a job's run).
    var webhooksDue: Doorbell { shared.webhooksDue }
    var metrics: ServerMetrics { shared.metrics }
    var audit: SecretsAudit? { shared.audit }
    var instanceID: String { shared.instanceID }
    let keys: KeyRing
    /// What every call to a provider goes through (libcurl, connections kept between calls, unless given).
    var providerTransport: any HTTPTransport { shared.providerTransport }
    /// Stops calling a provider that keeps failing (see ``ProviderBreaker``).
    var breaker: ProviderBreaker { shared.breaker }
    /// Requests whose answer is not sent yet, and work going on past its handler deadline (every app's).
    private var inFlight: Counter { shared.inFlight }

    /// A count shared with the closures that move it.
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .sequentiallyConsistent) }
        func subtract() { value.subtract(1, ordering: .sequentiallyConsistent) }
        var count: Int { value.load(ordering: .sequentiallyConsistent) }
    }
    /// Rung when a request is answered or a job's run ends (``settled()``).
    var activity: Doorbell { shared.activity }

    /// What outlives a reload: made once per server (``MerchantServer``), handed to each app.
    struct Shared: Sendable {
        let store: any OrderStore
        let clock: any WallClock
        let audit: SecretsAudit?
        let listening: ListeningPort
        let instanceID: String
        let metrics: ServerMetrics
        let watch: OrderWatch
        let webhooksDue: Doorbell
        let activity: Doorbell
        let inFlight: Counter
        let breaker: ProviderBreaker
        let providerTransport: any HTTPTransport
        let orderCreated: (@Sendable (OrderJSON) -> Void)?
        let sandboxPayer: (any SandboxPayer)?
        /// Where provider calls are logged (with the audit's copy when auditing), if anywhere.
        let log: ServerLog?

        /// - Parameter configuration: the first configuration (the breaker's threshold and cooldown are read at start only).
        init(
            configuration: MerchantConfiguration, store: any OrderStore, clock: any WallClock, audit: SecretsAudit?,
            listening: ListeningPort, providerTransport: (any HTTPTransport)?, orderCreated: (@Sendable (OrderJSON) -> Void)?,
            sandboxPayer: (any SandboxPayer)?, log: ServerLog?
        ) {
            self.store = store
            self.clock = clock
            self.audit = audit
            self.listening = listening
            instanceID = "instance-" + UUID().uuidString.lowercased()
            metrics = ServerMetrics(unloggedReportLines: { store.unloggedReportLines })
            watch = OrderWatch(store: store, reread: EventsController.streamReread)
            webhooksDue = Doorbell()
            activity = Doorbell()
            inFlight = Counter()
            breaker = ProviderBreaker(threshold: configuration.breakerThreshold, cooldown: configuration.breakerCooldown, clock: clock)
            self.providerTransport = providerTransport ?? CurlTransport()
            self.orderCreated = orderCreated
            self.sandboxPayer = sandboxPayer
            self.log = log
        }
    }

    /// The app for `configuration` over what `shared` holds.
    init(configuration: MerchantConfiguration, shared: Shared) {
        self.shared = shared
        let (store, clock, audit, listening) = (shared.store, shared.clock, shared.audit, shared.listening)
        let (instanceID, metrics, breaker, transport) = (shared.instanceID, shared.metrics, shared.breaker, shared.providerTransport)
        let sandboxPayer = shared.sandboxPayer
        let adapters = AdapterFactory.adapters(
            configuration, breaker: breaker, listening: listening, clock: clock, shared: transport, log: shared.log)
        let ledger = Ledger(
            configuration: configuration, store: store, clock: clock, metrics: metrics, adapters: adapters,
            queries: InFlightQueries(interval: configuration.readQueryInterval, clock: clock), audit: audit, listening: listening,
            orderCreated: shared.orderCreated)
        self.ledger = ledger
        let watch = shared.watch
        let keys = KeyRing(configuration: configuration, store: store, clock: clock, apiKeys: APIKeys())
        self.keys = keys

        let builder = RouterBuilder()
        SystemRoutes(configuration: configuration, metrics: metrics, instanceID: instanceID, sandbox: sandboxPayer != nil)
            .register(on: &builder.router)
        // One bucket per payer address for every payer-facing route: the API's with the publishable key, the checkout's.
        let payerBucket =
            configuration.publishableRequestsPerMinute > 0
            ? PublishableKeyThrottle(perMinute: configuration.publishableRequestsPerMinute) : nil
        let throttle = payerBucket.map {
            Throttle<APIContext>(
                throttle: $0, proxies: configuration.trustedProxies, clock: clock, metrics: metrics,
                counts: Throttle<APIContext>.publishableKey(configuration.publishableKey))
        }
        let middleware = APIMiddleware(
            keys: keys, store: store, clock: clock, instanceID: instanceID, idempotencyLease: configuration.idempotencyLease,
            throttle: throttle)
        var api = RouteGroup<APIContext>(builder, errors: ErrorMapping<APIContext>.response(for:)).add(ErrorMapping<APIContext>())
        if configuration.handlerDeadlineSeconds > 0 {
            let (webhooksDue, inFlight, activity) = (shared.webhooksDue, shared.inFlight, shared.activity)
            api = api.add(
                Deadline<APIContext>(
                    .seconds(configuration.handlerDeadlineSeconds), exempt: Self.waitsForThePayer,
                    // Still in flight for ``settled()`` until it ends.
                    startedLate: { inFlight.add() },
                    finishedLate: { request, response in
                        // What a late request changed is announced as an answered one's is.
                        if request.method != "GET", (response?.status ?? 500) < 500 {
                            webhooksDue.ring()
                            watch.ring()
                        }
                        inFlight.subtract()
                        activity.ring()
                    }))
        }
        api.register(OrdersController(ledger: ledger, middleware: middleware))
        api.register(PaymentsController(ledger: ledger, middleware: middleware))
        api.register(RefundsController(ledger: ledger, middleware: middleware))
        api.register(OrderActionsController(ledger: ledger, middleware: middleware))
        api.register(EventsController(ledger: ledger, middleware: middleware, watch: watch))
        api.register(ReconciliationController(ledger: ledger, middleware: middleware))
        api.register(RecordsController(ledger: ledger, middleware: middleware))
        api.register(WebhooksController(ledger: ledger, middleware: middleware))
        api.register(ComplaintsController(ledger: ledger, middleware: middleware))
        api.register(TransfersController(ledger: ledger, middleware: middleware))
        api.register(SplitsController(ledger: ledger, middleware: middleware))
        api.register(RecurringController(ledger: ledger, middleware: middleware))
        if let sandboxPayer {
            api.register(TestHelpersController(ledger: ledger, middleware: middleware, payer: sandboxPayer, watch: watch))
        }
        NotifyController(
            ledger: ledger, stripe: configuration.applePay?.stripeWebhookSecret.map { StripeEvents(secret: $0, clock: clock) },
            adyen: configuration.applePay?.adyenHMACKey.map { AdyenEvents(hmacKey: $0) }
        ).register(on: &builder.router)
        Dashboard(ledger: ledger, keys: keys, clock: clock).register(builder)
        CheckoutPage(ledger: ledger, breaker: breaker, providerTransport: transport).register(
            builder,
            throttle: payerBucket.map {
                Throttle<CheckoutContext>(throttle: $0, proxies: configuration.trustedProxies, clock: clock, metrics: metrics) { _ in true }
            })
        // The merchant API takes the query parameters its document lists, and no other.
        for operation in OpenAPIDocument.queryParameters {
            builder.router.limitQuery(operation.method, operation.path, to: operation.names)
        }
        routes = builder.router
        audit?.secret(Self.secrets(of: configuration))
    }

    /// The requests that wait for the payer, which no handler deadline limits: an order's event
    /// stream, and a counter payment (its method a barcode one) waiting for the payer to confirm.
    @Sendable static func waitsForThePayer(_ request: HTTPServerRequest, _ context: APIContext) -> Bool {
        switch context.route.name {
        case "stream": return true
        case "start_payment":
            struct Method: Decodable { let method: String? }
            return (try? JSONDecoder().decode(Method.self, from: Data(request.body)))?.method.flatMap(PaymentMethod.init)?.isBarcode
                ?? false
        default: return false
        }
    }

    /// Every route, as `(method, pattern)`.
    var routeTable: [(method: String, pattern: String)] { routes.table }

    /// How a request is answered: at once for an immediate route, an unknown path or a method
    /// not allowed; otherwise later, by its handler. A request that may have changed an order
    /// rings the webhook and stream bells after its answer (``changed(_:_:)``); every answer is
    /// counted, and read by the secrets audit when it runs.
    ///
    /// Each request has an id (``RequestID``): its `X-Request-Id` when sane, else one made here.
    /// The answer carries it back in `X-Request-Id` (a prepared answer — a health check — excepted,
    /// which is sent as built), the access log names it, and a handler's calls to the providers
    /// are logged under it.
    func answer(_ request: HTTPServerRequest) -> HTTPServer.Answer {
        let id = RequestID.given(request.headers[RequestID.header]) ?? RequestID.make()
        switch routes.answer(request) {
        case .now(let response): return .now(RequestID.tag(finished(request, response), id))
        case .later(let work):
            inFlight.add()
            return .later {
                await RequestID.$current.withValue(id) { RequestID.tag(self.done(self.changed(request, await work())), id) }
            }
        case .handedOff(let work):
            inFlight.add()
            return .handedOff { answer in work { answer(RequestID.tag(self.done(self.changed(request, $0)), id)) } }
        }
    }

    /// Answers `request` in process, as the server would over a socket.
    func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        await Router.response(answer(request))
    }

    private func done(_ response: HTTPServerResponse) -> HTTPServerResponse {
        inFlight.subtract()
        activity.ring()
        return response
    }

    /// Counted, and read by the secrets audit when it runs (tests), whichever way it was answered.
    private func finished(_ request: HTTPServerRequest, _ response: HTTPServerResponse) -> HTTPServerResponse {
        metrics.countRequest(status: response.status)
        if let audit {
            // An export is a file: the audit reads it too (only when auditing, in tests).
            let body = response.bodyFile.flatMap { FileManager.default.contents(atPath: $0) }.map(Array.init) ?? response.body
            audit.output("\(response.status) \(request.path) " + String(decoding: body, as: UTF8.self))
        }
        return response
    }

    /// A request that may have changed an order may have queued a webhook: it is sent now, and
    /// the order's streams look again.
    private func changed(_ request: HTTPServerRequest, _ response: HTTPServerResponse) -> HTTPServerResponse {
        if request.method != "GET" && request.method != "HEAD" && response.status < 500 {
            webhooksDue.ring()
            watch.ring()
        }
        return finished(request, response)
    }

    /// Waits until nothing is left to happen of its own accord: no request in flight, no job's run
    /// under way, and no webhook due at the clock's time (when an endpoint is configured). A test
    /// moves its clock, then waits for this instead of sleeping.
    func settled(jobs: JobRunner? = nil) async {
        while true {
            let busy =
                inFlight.count > 0 || (jobs?.running.load(ordering: .sequentiallyConsistent) ?? 0) > 0
            if !busy {
                let due =
                    ledger.configuration.webhook == nil
                    ? [] : ((try? await ledger.store.dueOutbox(now: ledger.clock.now(), limit: 1)) ?? [])
                if due.isEmpty { return }
                webhooksDue.ring()
            }
            // Woken when a request is answered or a run ends; looked at again at least every 50 ms.
            await activity.wait(upTo: .milliseconds(50))
        }
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
}
