import ApplePay
import Cashier
import CashierCLI
import CashierCrypto
import CashierHTTP
import CashierSandbox
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import WeChatPay

/// `cashier-sandbox serve`: the merchant server in sandbox mode — the WeChat Pay, Alipay and Apple
/// Pay sandboxes start in the same process with generated keys, and the server uses them.
enum SandboxServeCommand {
    static let command = Command(
        name: "serve",
        summary: "Run the merchant server in sandbox mode, with the provider sandboxes in process, until interrupted.",
        discussion: """
            Sandbox mode generates API keys (printed) and provider keys, and keeps orders in --db (default ./cashier.db).
            --ready-file gets {"api_url","sandbox_url","publishable_key","secret_key"} (and the unionpay_* entries
            the gateways' ready file has) once the server accepts requests.
            With your providers' real credentials, run `cashier serve --config FILE` instead.
            """,
        options: ServeCommand.listeningOptions + [
            .value("ready-file", "FILE", "Write the URLs and keys here as JSON when ready."),
            .value("catalog", "FILE", "Prices by SKU (JSON): lets the app create orders from SKUs with the publishable key."),
            .value("webhook-url", "URL", "Deliver order.paid/refunded/closed/refund_required webhooks here."),
            .secret("webhook-secret", "Sign them with this secret (default: generated and printed)."),
            .flag("sandbox", "Sandbox mode (the only mode here; taken for scripts written for `cashier serve --sandbox`)."),
            .flag("access-log", "Write one JSON line per request to stderr (method, path, status, sizes, time; never bodies or keys)."),
        ]
    ) { arguments, io in
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
        try ServeCommand.applyHTTPLimits(arguments, to: &configuration)
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
            accessLog: ServeCommand.accessLog(arguments),
            orderCreated: { [io] order in
                // Sandbox mode only: the link carries the order's client secret.
                io.write(
                    "order \(order.id)  \(order.amount.amount) \(order.amount.currency)  checkout \(order.checkout_url ?? "")\n"
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
            ].merging(sandbox.unionpayReadyFileEntries) { $1 }, orStop: server.stop)
        await ServeCommand.runUntilTerminated(server, store: store, io) { await sandbox.stop() }
        return 0
    }
}
