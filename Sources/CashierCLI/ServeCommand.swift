import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandbox
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import WeChatPay

/// `cashier serve`: the merchant server. Without provider credentials it runs in sandbox mode:
/// the WeChat Pay, Alipay and Apple Pay sandboxes start in the same process with generated keys.
enum ServeCommand {
    static let command = Command(
        name: "serve",
        summary: "Run the merchant server (sandbox mode: with the provider sandboxes in process) until interrupted.",
        discussion: """
            Sandbox mode generates API keys (printed) and provider keys, and keeps orders in --db (default ./cashier.db).
            --ready-file gets {"api_url","sandbox_url","publishable_key","secret_key"} once the server accepts requests.
            With --config FILE it runs with the merchant's real credentials instead (see ConfigurationFile: secrets come from
            environment variables or key files, and every field is checked at start).
            """,
        options: [
            .value("port", "N", "Port for the merchant API (default: any free port)."),
            .value(
                "per-ip-connection-limit", "N",
                "The most connections from one address (default 256; 0 for none, behind a proxy that limits clients)."),
            .value("request-deadline", "SECONDS", "The longest a request may take to arrive (default 30; 0 for none)."),
            .value(
                "publishable-requests-per-minute", "N",
                "Requests with the publishable key that create or pay, a minute from one address (default 0: no limit)."),
            .value(
                "db", "PATH|URL",
                "A SQLite file (default ./cashier.db) or postgres://user@host/db for several instances (the password from PGPASSWORD or a PGPASSFILE, never the URL)."
            ),
            .value("config", "FILE", "Real credentials (JSON; secrets from environment variables or key files)."),
            .value("ready-file", "FILE", "Write the URLs and keys here as JSON when ready."),
            .value("catalog", "FILE", "Prices by SKU (JSON): lets the app create orders from SKUs with the publishable key."),
            .value("webhook-url", "URL", "Deliver order.paid/refunded/closed/refund_required webhooks here."),
            .secret("webhook-secret", "Sign them with this secret (default: generated and printed)."),
            .flag("sandbox", "Run with the in-process sandboxes (the default while no credentials are configured)."),
            .flag("access-log", "Write one JSON line per request to stderr (method, path, status, sizes, time; never bodies or keys)."),
        ]
    ) { arguments, io in
        if let file = arguments.value("config") {
            return try await production(file: file, arguments, io)
        }
        guard let port = UInt16(arguments.value("port") ?? "0") else { throw CommandFailure("--port must be 0 to 65535", status: 2) }
        let path = try CommandInput.database(arguments.value("db")) ?? "cashier.db"
        let readyFile = try ReadyFile(arguments)
        let mode: SandboxMode
        do {
            mode = try await SandboxMode.start()
        } catch {
            throw CommandFailure("cannot start the sandbox: \(error)")
        }
        do {
            return try await sandboxed(mode, port: port, path: path, readyFile: readyFile, arguments, io)
        } catch {
            // The sandboxes run threads of their own: stopped before the command gives up, not
            // left running while the process exits under them.
            await mode.sandbox.stop()
            throw error
        }
    }

    /// Sandbox mode, once the sandboxes are up: the store, the merchant server, the banner.
    static func sandboxed(
        _ mode: SandboxMode, port: UInt16, path: String, readyFile: ReadyFile?, _ arguments: ParsedArguments, _ io: CommandIO
    ) async throws -> Int32 {
        let sandbox = mode.sandbox
        let store: any OrderStore
        do {
            store = try await OrderStoreOpener.open(path)
        } catch let error as StoreError {
            throw CommandFailure("--db: \(error.message)", status: 2)
        }
        await mode.connect(to: store)
        var configuration = mode.configuration
        if let file = arguments.value("catalog") {
            let data: Data
            do {
                data = try UserFile.contents(file)
            } catch {
                throw CommandFailure("--catalog: \(error)", status: 2)
            }
            do {
                configuration.catalog = try Catalog(json: data)
            } catch let error as PaymentError {
                throw CommandFailure("--catalog: \(error.message)", status: 2)
            }
        }
        try Self.applyHTTPLimits(arguments, to: &configuration)
        let keys = (secret: configuration.secretKey, publishable: configuration.publishableKey)
        var webhookSecret: String?
        if let text = arguments.value("webhook-url") {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                throw CommandFailure("--webhook-url must be an http(s) URL, not '\(text)'", status: 2)
            }
            let secret = try arguments.secret("webhook-secret") ?? "whsec_" + SecureRandom.alphanumeric(count: 32)
            configuration.webhook = .init(url: url, secret: secret)
            webhookSecret = secret
        }
        let server = MerchantServer(
            configuration: configuration, store: store, port: port, audit: SecretsAudit.fromEnvironment(),
            accessLog: Self.accessLog(arguments),
            orderCreated: { [io] order in
                // Sandbox mode only: the link carries the order's client secret.
                io.write(
                    "order \(order.id)  \(order.amount.decimalString) \(order.amount.currency.code)  checkout \(order.checkout_url ?? "")\n"
                )
            }, sandboxPayer: mode)
        do {
            try await server.start()
        } catch {
            throw CommandFailure("cannot start: \(error)")
        }
        mode.connectStripeEvents(to: server.baseURL)
        io.write("Cashier \(CashierVersion.current) — sandbox mode (no provider credentials configured)\n")
        io.write("merchant API     \(server.baseURL.absoluteString)/v1   (orders in \(OrderStoreOpener.describe(path)))\n")
        io.write("sandbox          \(sandbox.baseURL.absoluteString)   (payer API: POST /sandbox/pay)\n")
        io.write("secret key       \(keys.secret)   (sandbox only; your backend)\n")
        io.write("publishable key  \(keys.publishable)   (the app, with an order's client_secret)\n")
        io.write(
            "checkout pages   \(server.baseURL.absoluteString)/pay/{order_id}?client_secret=…   (each order's link is printed below)\n")
        if let webhook = configuration.webhook {
            io.write("webhooks         \(webhook.url.absoluteString)   (signing secret \(webhookSecret ?? ""))\n")
        }
        try await readyFile?.write(
            [
                "api_url": server.baseURL.absoluteString, "sandbox_url": sandbox.baseURL.absoluteString,
                "publishable_key": keys.publishable, "secret_key": keys.secret,
            ], orStop: server.stop)
        await runUntilTerminated(server, store: store, io) { await sandbox.stop() }
        return 0
    }

    /// Waits for SIGINT or SIGTERM, then stops: the server (requests, webhook sends and provider
    /// questions in flight finish), whatever `also` stops, and the store, last — nothing uses
    /// it any more. A second signal meanwhile ends the process at once (``TerminationSignals``).
    static func runUntilTerminated(
        _ server: MerchantServer, store: any OrderStore, _ io: CommandIO, also: () async -> Void = {}
    ) async {
        await TerminationSignals.wait()
        io.write("stopping: finishing what is in flight (a second Ctrl-C or SIGTERM stops at once)\n")
        await server.stop()
        await also()
        await store.close()  // SQLite: the WAL copied back, -wal and -shm gone; PostgreSQL: sessions ended
        io.write("server stopped\n")
    }

    /// `cashier serve --config FILE`: no sandboxes, the configured providers.
    /// `--per-ip-connection-limit`, `--request-deadline` and `--publishable-requests-per-minute`, when given.
    static func applyHTTPLimits(_ arguments: ParsedArguments, to configuration: inout MerchantConfiguration) throws {
        if let text = arguments.value("per-ip-connection-limit") {
            guard let limit = Int(text), (0...65_535).contains(limit) else {
                throw CommandFailure("--per-ip-connection-limit must be 0 (no limit) to 65535", status: 2)
            }
            configuration.perIPConnectionLimit = limit
        }
        if let text = arguments.value("request-deadline") {
            guard let seconds = Int(text), (0...3600).contains(seconds) else {
                throw CommandFailure("--request-deadline must be 0 (none) to 3600 seconds", status: 2)
            }
            configuration.requestDeadlineSeconds = seconds
        }
        if let text = arguments.value("publishable-requests-per-minute") {
            guard let rate = Int(text), (0...1_000_000).contains(rate) else {
                throw CommandFailure("--publishable-requests-per-minute must be 0 (no limit) to 1000000", status: 2)
            }
            configuration.publishableRequestsPerMinute = rate
        }
    }

    static func production(file: String, _ arguments: ParsedArguments, _ io: CommandIO) async throws -> Int32 {
        let readyFile = try ReadyFile(arguments)
        let parsed: ConfigurationFile
        do {
            parsed = try ConfigurationFile(contentsOf: URL(fileURLWithPath: file))
        } catch let problem as ConfigurationFile.Problem {
            throw CommandFailure(problem.description, status: 2)
        }
        guard let port = arguments.value("port").map({ UInt16($0) }) ?? parsed.port else {
            throw CommandFailure("--port must be 0 to 65535", status: 2)
        }
        let path = try CommandInput.database(arguments.value("db")) ?? parsed.database
        let store: any OrderStore
        do {
            store = try await OrderStoreOpener.open(path, poolSize: parsed.databasePoolSize, writers: parsed.databaseWriters)
        } catch let error as StoreError {
            throw CommandFailure("database: \(error.message)", status: 2)
        }
        var configuration = parsed.configuration
        try Self.applyHTTPLimits(arguments, to: &configuration)
        let server = MerchantServer(
            configuration: configuration, store: store, port: port, audit: SecretsAudit.fromEnvironment(),
            accessLog: Self.accessLog(arguments))
        do {
            try await server.start()
        } catch {
            throw CommandFailure("cannot start: \(error)")
        }
        let configured = parsed.configuration
        var providers: [String] = []
        if configured.wechat != nil { providers.append("WeChat Pay v2") }
        if configured.wechatV3 != nil { providers.append("WeChat Pay v3") }
        if let mini = configured.miniProgram { providers.append("mini program \(mini.appID)") }
        if configured.alipay != nil { providers.append("Alipay") }
        if configured.applePay != nil { providers.append("Apple Pay") }
        io.write("Cashier \(CashierVersion.current) — \(providers.isEmpty ? "no providers" : providers.joined(separator: ", "))\n")
        io.write("merchant API  \(server.baseURL.absoluteString)/v1   (orders in \(OrderStoreOpener.describe(path)))\n")
        io.write(
            "notify URLs   \(parsed.configuration.publicBaseURL ?? "")/notify/wechat/v2, /notify/wechat/v2/refund, /notify/wechat/v3, "
                + "/notify/alipay\n")
        try await readyFile?.write(
            ["api_url": server.baseURL.absoluteString, "publishable_key": parsed.configuration.publishableKey], orStop: server.stop)
        await runUntilTerminated(server, store: store, io)
        return 0
    }

    /// `--access-log`: JSON lines on stderr.
    static func accessLog(_ arguments: ParsedArguments) -> (@Sendable (AccessLogEntry) -> Void)? {
        guard arguments.flag("access-log") else { return nil }
        return { entry in try? FileHandle.standardError.writeRetrying(Data((entry.jsonLine + "\n").utf8)) }
    }
}
