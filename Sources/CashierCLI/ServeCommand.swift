import ApplePay
import Cashier
import CashierCrypto
import CashierSandbox
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
            Production configuration files (provider credentials) are not read yet: --config is refused.
            """,
        options: [
            .value("port", "N", "Port for the merchant API (default: any free port)."),
            .value("db", "PATH", "The SQLite database (default ./cashier.db)."),
            .value("config", "FILE", "Provider credentials (not supported yet)."),
            .value("ready-file", "FILE", "Write the URLs and keys here as JSON when ready."),
            .value("webhook-url", "URL", "Deliver order.paid/refunded/closed/refund_required webhooks here."),
            .value("webhook-secret", "SECRET", "Sign them with this secret (default: generated and printed)."),
            .flag("sandbox", "Run with the in-process sandboxes (the default while no credentials are configured)."),
        ]
    ) { arguments, io in
        if arguments.value("config") != nil {
            throw CommandFailure(
                "--config: production credentials are not supported yet; run `cashier serve --sandbox` (see the README's status)", status: 2
            )
        }
        guard let port = UInt16(arguments.value("port") ?? "0") else { throw CommandFailure("--port must be 0 to 65535", status: 2) }
        let path = arguments.value("db") ?? "cashier.db"
        let wechat = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: SecureRandom.alphanumeric(count: 32))
        let alipayAppID = "2021000000000001"
        let alipayKey = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        let sandbox = SandboxServer(wechatMerchants: [wechat], alipayApps: [alipayAppID: alipayKey.publicKey])
        do {
            try sandbox.start()  // first: the configuration below needs its port
        } catch {
            throw CommandFailure("cannot start the sandbox: \(error)")
        }
        let processing = try sandbox.applePay.ca.issueMerchantKey(merchantIdentifier: "merchant.com.example.sandbox")
        try await sandbox.applePay.register(merchantCertificate: processing.certificate)
        let store: SQLiteOrderStore
        do {
            store = try SQLiteOrderStore(path: path)
        } catch let error as StoreError {
            throw CommandFailure("--db: \(error.message)", status: 2)
        }
        let keys = MerchantConfiguration.generateKeys()
        var configuration = MerchantConfiguration(
            secretKey: keys.secret, publishableKey: keys.publishable,
            wechat: .init(merchant: wechat, baseURL: sandbox.wechatV2URL),
            alipay: .init(
                appID: alipayAppID, privateKey: alipayKey, alipayPublicKey: sandbox.alipay.alipayPublicKey,
                gateway: sandbox.alipayGatewayURL,
                sellerID: sandbox.alipay.sellerID),
            applePay: .init(
                merchantIdentifier: "merchant.com.example.sandbox", countryCode: try CountryCode(alpha2: "CN"),
                displayName: "Cashier Sandbox",
                supportedNetworks: [.chinaUnionPay, .visa, .masterCard],
                decrypter: ApplePay.TokenDecrypter(
                    merchantKeys: [processing], verifier: try ApplePay.TokenVerifier(trustAnchors: [sandbox.applePay.ca.root])),
                processor: ApplePay.SandboxProcessor()))
        var webhookSecret: String?
        if let text = arguments.value("webhook-url") {
            guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
                throw CommandFailure("--webhook-url must be an http(s) URL, not '\(text)'", status: 2)
            }
            let secret = arguments.value("webhook-secret") ?? "whsec_" + SecureRandom.alphanumeric(count: 32)
            configuration.webhook = .init(url: url, secret: secret)
            webhookSecret = secret
        }
        let server = MerchantServer(configuration: configuration, store: store, port: port)
        do {
            try await server.start()
        } catch {
            throw CommandFailure("cannot start: \(error)")
        }
        io.write("Cashier \(CashierVersion.current) — sandbox mode (no provider credentials configured)\n")
        io.write("merchant API     \(server.baseURL.absoluteString)/v1   (orders in \(path))\n")
        io.write("sandbox          \(sandbox.baseURL.absoluteString)   (payer API: POST /sandbox/pay)\n")
        io.write("secret key       \(keys.secret)   (sandbox only; your backend)\n")
        io.write("publishable key  \(keys.publishable)   (the app, with an order's client_secret)\n")
        if let webhook = configuration.webhook {
            io.write("webhooks         \(webhook.url.absoluteString)   (signing secret \(webhookSecret ?? ""))\n")
        }
        if let file = arguments.value("ready-file") {
            let ready = [
                "api_url": server.baseURL.absoluteString, "sandbox_url": sandbox.baseURL.absoluteString,
                "publishable_key": keys.publishable,
                "secret_key": keys.secret,
            ]
            let data = try JSONSerialization.data(withJSONObject: ready, options: [.sortedKeys, .withoutEscapingSlashes])
            try data.write(to: URL(fileURLWithPath: file), options: .atomic)
        }
        await SandboxCommand.waitForTermination()
        await server.stop()
        await sandbox.stop()
        io.write("server stopped\n")
        return 0
    }
}
