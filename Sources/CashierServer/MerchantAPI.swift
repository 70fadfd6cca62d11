import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierCurl
import CashierHTTP
import CashierStore
import Foundation
import WeChatPay

/// The routes of ``MerchantServer``.
struct MerchantAPI: Sendable {
    let configuration: MerchantConfiguration
    let store: any OrderStore
    let listening: ListeningPort
    let metrics: ServerMetrics
    /// This process among the instances sharing a database (job leases, `/healthz`).
    let instanceID: String
    /// Stops calling a provider that keeps failing (see ``ProviderBreaker``).
    let breaker: ProviderBreaker
    /// Every time this server reads.
    let clock: any WallClock
    /// Records what leaves the server and the secrets it holds, when the secrets check runs.
    let audit: SecretsAudit?
    /// What every call to a provider goes through (libcurl, connections kept between calls).
    let providerTransport: any HTTPTransport
    /// One per configured provider and API generation.
    let adapters: PaymentAdapters
    /// Told of every order created (`cashier serve --sandbox` prints its checkout link).
    let orderCreated: (@Sendable (OrderJSON) -> Void)?
    /// Wakes the order streams when this instance may have changed an order.
    let watch: OrderWatch
    /// In sandbox mode: pays attempts as a payer would (`/v1/test_helpers/…`).
    let sandboxPayer: (any SandboxPayer)?
    /// Secret keys made with `cashier keys`.
    let apiKeys = APIKeys()
    /// The payer-side requests with the publishable key, per address; `nil` when not limited.
    let throttle: PublishableKeyThrottle?
    /// The provider questions under way about payments in doubt, shared by the requests that need them.
    let queries: InFlightQueries

    init(
        configuration: MerchantConfiguration, store: any OrderStore, listening: ListeningPort, metrics: ServerMetrics, instanceID: String,
        clock: any WallClock, audit: SecretsAudit?, orderCreated: (@Sendable (OrderJSON) -> Void)? = nil,
        sandboxPayer: (any SandboxPayer)? = nil
    ) {
        self.sandboxPayer = sandboxPayer
        self.orderCreated = orderCreated
        watch = OrderWatch(store: store, reread: Self.streamReread)
        self.configuration = configuration
        self.store = store
        self.listening = listening
        self.metrics = metrics
        self.instanceID = instanceID
        self.clock = clock
        self.audit = audit
        queries = InFlightQueries(interval: configuration.readQueryInterval, clock: clock)
        throttle =
            configuration.publishableRequestsPerMinute > 0
            ? PublishableKeyThrottle(perMinute: configuration.publishableRequestsPerMinute) : nil
        let breaker = ProviderBreaker(threshold: configuration.breakerThreshold, cooldown: configuration.breakerCooldown, clock: clock)
        self.breaker = breaker
        let transport = CurlTransport()
        providerTransport = transport
        adapters = Self.adapters(configuration, breaker: breaker, listening: listening, clock: clock, shared: transport)
    }

    /// Where payers and providers reach this server: the configured public URL, else the address it listens on.
    var publicBase: String { notifyBase }

    /// Where providers send notifications.
    var notifyBase: String { Self.notifyBase(configuration, listening) }

    static func notifyBase(_ configuration: MerchantConfiguration, _ listening: ListeningPort) -> String {
        configuration.publicBaseURL ?? "http://127.0.0.1:\(listening.port.load(ordering: .acquiring))"
    }

    enum Caller { case secret, publishable }

    func register(on router: inout Router) {
        let health = HTTPServerResponse.json(HealthJSON(status: "ok", instance: instanceID)).prepared()
        router.addImmediate("GET", "/healthz") { _, _ in health }
        let document: HTTPServerResponse
        do {
            let data = try OpenAPIDocument.served(sandbox: sandboxPayer != nil)
            document = HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(data)).prepared()
        } catch {
            document = .error(status: 500, code: "internal_error", message: "the OpenAPI document could not be written: \(error)")
        }
        router.addImmediate("GET", "/openapi.json") { _, _ in document }
        if sandboxPayer != nil {
            router.add("POST", "/v1/test_helpers/orders/{id}/pay") { request, parameters in
                await self.sandboxPay(request, id: parameters["id"] ?? "")
            }
        }
        let metricsAccess = configuration.metricsAccess
        router.addImmediate("GET", "/metrics") { request, _ in
            switch metricsAccess {
            case .open: break
            case .closed:
                return .error(
                    status: 404, code: "not_found",
                    message:
                        "/metrics is not served here: configure metrics.token_env (a bearer token) or metrics.listen (a private address)")
            case .token(let token):
                guard let key = Self.bearerKey(request), ConstantTime.equals(key, token) else {
                    return .error(status: 401, code: "unauthorized", message: "send Authorization: Bearer <metrics.token>")
                }
            }
            return .text(self.metrics.render(), contentType: "text/plain; version=0.0.4")
        }
        /// A route the app may call with the publishable key to make the server act: throttled per address.
        func payerRoute(_ path: String, _ handler: @escaping @Sendable (HTTPServerRequest, String) async -> HTTPServerResponse) {
            router.add("POST", path) { request, parameters in
                if let refusal = self.throttled(request) { return refusal }
                return await handler(request, parameters["id"] ?? "")
            }
        }
        payerRoute("/v1/orders") { request, _ in await self.createOrder(request) }
        router.add("GET", "/v1/orders") { request, _ in await self.listOrders(request) }
        router.add("GET", "/v1/orders/{id}") { request, parameters in await self.getOrder(request, id: parameters["id"] ?? "") }
        payerRoute("/v1/orders/{id}/payments") { request, id in await self.startPayment(request, id: id) }
        payerRoute("/v1/orders/{id}/payments/applepay/authorize") { request, id in await self.authorizeApplePay(request, id: id) }
        payerRoute("/v1/orders/{id}/payments/applepay/update") { request, id in await self.updateApplePaySheet(request, id: id) }
        payerRoute("/v1/applepay/sessions") { request, _ in await self.applePaySession(request) }
        let association = configuration.applePay?.domainAssociation
        router.add("GET", "/.well-known/apple-developer-merchantid-domain-association") { _, _ in
            guard let association else {
                return .error(
                    status: 404, code: "not_found", message: "no domain-association file is configured (applepay.domain_association_file)")
            }
            return .text(association, contentType: "text/plain")
        }
        router.add("POST", "/v1/orders/{id}/refunds") { request, parameters in await self.refund(request, id: parameters["id"] ?? "") }
        router.add("POST", "/v1/orders/{id}/capture") { request, parameters in await self.capture(request, id: parameters["id"] ?? "") }
        router.add("POST", "/v1/orders/{id}/void") { request, parameters in await self.void(request, id: parameters["id"] ?? "") }
        router.add("POST", "/v1/orders/{id}/close") { request, parameters in await self.close(request, id: parameters["id"] ?? "") }
        router.add("GET", "/v1/orders/{id}/stream") { request, parameters in await self.stream(request, id: parameters["id"] ?? "") }
        router.add("GET", "/v1/orders/{id}/events") { request, parameters in await self.events(request, id: parameters["id"] ?? "") }
        router.add("GET", "/v1/reconciliations/{date}") { request, parameters in
            await self.reconciliation(request, date: parameters["date"] ?? "")
        }
        router.add("GET", "/v1/payments") { request, _ in await self.listPayments(request) }
        router.add("GET", "/v1/refunds") { request, _ in await self.listRefunds(request) }
        router.add("GET", "/v1/exports/{file}") { request, parameters in await self.export(request, file: parameters["file"] ?? "") }
        router.add("GET", "/v1/webhooks") { request, _ in await self.listWebhooks(request) }
        router.add("POST", "/v1/webhooks/resend") { request, _ in await self.resendFailedWebhooks(request) }
        router.add("POST", "/v1/webhooks/{id}/resend") { request, parameters in
            await self.resendWebhook(request, id: parameters["id"] ?? "")
        }
        let routes: [(String, PaymentProvider)] = [
            ("/notify/wechat/v2", .wechatV2), ("/notify/wechat/v2/refund", .wechatV2), ("/notify/wechat/v3", .wechatV3),
            ("/notify/alipay", .alipay),
        ]
        router.add("POST", "/notify/adyen") { request, _ in await self.adyenWebhook(request) }
        router.add("POST", "/notify/stripe") { request, _ in await self.stripeWebhook(request) }
        for (path, provider) in routes {
            router.addDeciding("POST", path) { request, _ in self.notificationAnswer(request, provider: provider) }
            // A sub-merchant's notifications come to its own path, verified by its adapter.
            let merchantPath = path.hasSuffix("/refund") ? String(path.dropLast(7)) + "/m/{merchant}/refund" : path + "/m/{merchant}"
            router.addDeciding("POST", merchantPath) { request, parameters in
                self.notificationAnswer(request, provider: provider, merchant: parameters["merchant"])
            }
        }
    }

    /// `GET /v1/reconciliations/{date}`: the day's bills against the payments here (secret key).
    func reconciliation(_ request: HTTPServerRequest, date: String) async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        if let refusal = Self.platformOnly(identity) { return refusal }
        do {
            return .json(try await Reconciler(api: self).run(date: date, progress: { _ in }))
        } catch {
            return Self.failure(error)
        }
    }

    // MARK: Authentication

    /// Who is calling: which kind of key, and — for a key made with `cashier keys create
    /// --merchant` — the sub-merchant it acts for. One key lookup per request: handlers that need
    /// both ask once.
    struct Identity: Sendable, Equatable {
        let caller: Caller
        /// The sub-merchant the key acts for; `nil` for the configured keys and the platform's own.
        var merchant: String? = nil
    }

    func identify(_ request: HTTPServerRequest) async -> Identity? {
        guard let key = Self.bearerKey(request) else { return nil }
        return await identify(key: key)
    }

    /// The key in `Authorization: Bearer …`, if the request sends one.
    static func bearerKey(_ request: HTTPServerRequest) -> String? {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst(7))
    }

    /// The configured keys first (no database read); then the keys made with `cashier keys`.
    func identify(key: String) async -> Identity? {
        if ConstantTime.equals(key, configuration.secretKey) { return Identity(caller: .secret) }
        if ConstantTime.equals(key, configuration.publishableKey) { return Identity(caller: .publishable) }
        return await apiKeys.active(key, store: store, now: clock.now()).map { Identity(caller: .secret, merchant: $0.merchant) }
    }

    func caller(_ request: HTTPServerRequest) async -> Caller? { await identify(request)?.caller }

    /// 429 when `request` carries the publishable key and its payer's address has used up its
    /// requests (``PublishableKeyThrottle``); `nil` to go on. Other keys are not counted.
    func throttled(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        guard let throttle, let key = Self.bearerKey(request), ConstantTime.equals(key, configuration.publishableKey) else { return nil }
        let address = configuration.trustedProxies.clientAddress(of: request) ?? "unknown"
        guard let wait = throttle.admit(address, now: clock.now()) else { return nil }
        metrics.increment("cashier_rate_limited_total")
        var refused = HTTPServerResponse.error(
            status: 429, code: "rate_limited",
            message:
                "too many requests with the publishable key from this address (at most \(throttle.perMinute) a minute): "
                + "try again in \(wait) s")
        refused.headers.set("Retry-After", String(wait))
        return refused
    }

    /// The secret key's identity, or `nil` (answer 401).
    func secretCaller(_ request: HTTPServerRequest) async -> Identity? {
        guard let identity = await identify(request), identity.caller == .secret else { return nil }
        return identity
    }

    /// 404 for an order of another merchant than the key's (a merchant's key touches its own orders
    /// only); `nil` to go on.
    func foreignOrder(_ id: String, for identity: Identity) async -> HTTPServerResponse? {
        guard let bound = identity.merchant else { return nil }
        guard let order = try? await store.order(id: id), order.merchant == bound else {
            return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
        }
        return nil
    }

    /// Refuses a merchant's own key on what belongs to the platform as a whole (reconciliation
    /// against the accounts' bills, the webhook log): it reads and lists its own orders, payments
    /// and refunds only. - Returns: the refusal, or `nil` to go on.
    static func platformOnly(_ identity: Identity) -> HTTPServerResponse? {
        guard let merchant = identity.merchant else { return nil }
        return .error(
            status: 403, code: "forbidden",
            message:
                "this key acts for merchant \(merchant): it reads and lists that merchant's orders, payments and refunds; reconciliation and webhooks need the platform's key"
        )
    }

    /// The merchant a new order is for: the one named (a configured sub-merchant), or the key's.
    /// - Throws: when the name is unknown (422) or the key acts for another merchant (403).
    func orderMerchant(named: String?, for identity: Identity) throws -> String? {
        let bound = identity.merchant
        if let named {
            guard configuration.subMerchants.contains(where: { $0.id == named }) else {
                throw PaymentError(
                    .invalidRequest,
                    "merchant '\(named)' is not configured (merchants: \(configuration.subMerchants.map(\.id).joined(separator: ", ")))")
            }
            if let bound, bound != named { throw RequestProblem.forbidden("this key acts for merchant \(bound), not \(named)") }
            return named
        }
        return bound
    }

    /// Whether `key` is a secret key of this server (the dashboard's sign-in).
    /// Whether `key` is one of the platform's secret keys: not publishable, and not a key made with
    /// `--merchant` (the dashboard acts with the server's own key on every merchant's orders).
    func isPlatformSecretKey(_ key: String) async -> Bool {
        guard let identity = await identify(key: key) else { return false }
        return identity.caller == .secret && identity.merchant == nil
    }

    static let unauthorized = HTTPServerResponse.error(
        status: 401, code: "unauthorized",
        message: "send Authorization: Bearer sk_… (your backend) or pk_… with the order's client_secret (the app)")

    /// The order, if the caller may see it: the secret key, or the publishable key with its client secret.
    func authorizedOrder(_ identity: Identity, id: String, clientSecret: String?) async throws -> (StoredOrder, Caller)? {
        guard let order = try await store.order(id: id) else { return nil }
        if identity.caller == .publishable {
            guard let clientSecret, ConstantTime.equals(clientSecret, order.clientSecret) else { return nil }
        } else if let bound = identity.merchant, bound != order.merchant {
            return nil  // a merchant's key sees its own orders only
        }
        return (order, identity.caller)
    }

    /// A request to this API made on a caller's behalf — a dashboard form (the secret key), the
    /// checkout page (the publishable key) — so it goes through the same handlers, checks and answers.
    /// `from` is the caller's own request: its peer and `X-Forwarded-For` come along, so the API
    /// finds the caller's address (a payment's `client_ip`) as it does for a direct call.
    func request(_ path: String, _ body: [String: Any], key: String, from caller: HTTPServerRequest? = nil) -> HTTPServerRequest {
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer \(key)")
        headers.add("Content-Type", "application/json")
        if let forwardedFor = caller?.headers["X-Forwarded-For"] { headers.add("X-Forwarded-For", forwardedFor) }
        let data = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
        var request = HTTPServerRequest(method: "POST", path: path, headers: headers, body: Array(data))
        request.remoteAddress = caller?.remoteAddress
        return request
    }

    static func failure(_ error: any Error) -> HTTPServerResponse {
        switch error {
        case let error as RequestProblem:
            .error(status: error.status, code: error.status == 403 ? "forbidden" : "invalid_request", message: error.message)
        // Found past the request's shape (a price the currency cannot hold, a method not configured,
        // a provider's own refusal of a field): the document allows it, a rule refuses it.
        case let error as PaymentError where error.code == .invalidRequest:
            .error(status: 422, code: "invalid_request", message: error.message)
        case let error as PaymentError where error.code == .transport:
            // The provider did not answer (or its calls are paused): nothing happened here; retry later.
            .error(status: 503, code: "provider_unavailable", message: error.message)
        case let error as PaymentError: .error(status: 502, code: "provider_error", message: error.message)
        case let error as StoreError where error.code == .illegalTransition:
            .error(status: 409, code: "invalid_state", message: error.message)
        case let error as StoreError where error.code == .inProgress:
            .error(status: 409, code: "payment_in_progress", message: error.message)
        // More than what is left of the payment: the request is well formed; the payment's state refuses it.
        case let error as StoreError where error.code == .limitExceeded:
            .error(status: 409, code: "refund_too_large", message: error.message)
        case let error as StoreError where error.code == .notFound: .error(status: 404, code: "not_found", message: error.message)
        case let error as StoreError where error.code == .conflict: .error(status: 409, code: "conflict", message: error.message)
        default: .error(status: 500, code: "internal_error", message: "the request could not be completed; it is safe to retry")
        }
    }

    static func detail(_ fields: [String: String]) -> String {
        JSONText.object(fields)
    }
}
