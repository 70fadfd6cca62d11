import Cashier
import CashierCLI
import CashierCrypto
import CashierSandbox
import CashierSandboxMode
import Dispatch
import Foundation
import WeChatPay

/// `cashier-sandbox gateways`: the offline gateways on 127.0.0.1, until SIGINT or SIGTERM.
enum GatewaysCommand {
    static let command = Command(
        name: "gateways",
        summary: "Run the offline WeChat Pay v2/v3 and Alipay gateways, the Apple Pay token minter and the payer API until interrupted.",
        discussion: """
            Without --wechat-key a test merchant is used and its key is printed (sandbox only).
            The payer API: POST /sandbox/pay {"provider":"wechat","out_trade_no":"…","outcome":"success"|"cancel"|"fail"}.
            Apple Pay: POST /sandbox/applepay/token {"amount":"12.75","currency":"CNY"} mints a PKPayment for the registered
            processing certificate (--applepay-merchant-cert, or POST /sandbox/applepay/merchants); trust GET
            /sandbox/applepay/root.pem in place of Apple's root. Without --applepay-merchant-cert the sandbox issues its own
            processing key, which its Stripe (/stripe/v1/…) and Adyen (/adyen/v72/…) simulators hold to decrypt tokens.
            --ready-file gets one JSON object once the sandbox accepts requests.
            """,
        options: [
            .value("port", "N", "Port to listen on (default: any free port)."),
            .value("time-scale", "X", "Multiply notification retry intervals (default 1; 0.001 for tests)."),
            .value("wechat-appid", "APPID", "The merchant's appid (default wxd930ea5d5a258f4f)."),
            .value("wechat-mch-id", "MCH_ID", "The merchant's mch_id (default 10000100)."),
            .secret("wechat-key", "The merchant's API key (default: a test key, printed)."),
            .value("wechat-v3-mchid", "MCHID", "A v3 merchant's mchid (with the three options below)."),
            .value("wechat-v3-serial", "SERIAL", "Its API certificate serial (serial_no in Authorization)."),
            .value("wechat-v3-public-key", "PEM", "Its API certificate or public key (file path or PEM text)."),
            .secret("wechat-api-v3-key", "Its 32-byte APIv3 key."),
            .value("alipay-app-id", "ID", "An Alipay app id (with --alipay-app-public-key)."),
            .value("alipay-app-public-key", "PEM", "That app's public key (file path, PEM text or bare base64)."),
            .value("applepay-merchant-cert", "PEM", "An Apple Pay payment processing certificate to mint tokens for."),
            .value("ready-file", "FILE", "Write {\"sandbox_url\",\"wechat_v2_url\",\"wechat_v3_url\",\"payer_url\"} here when ready."),
        ]
    ) { arguments, io in
        guard let port = UInt16(arguments.value("port") ?? "0") else { throw CommandFailure("--port must be 0 to 65535", status: 2) }
        guard let timeScale = Double(arguments.value("time-scale") ?? "1"), timeScale > 0 else {
            throw CommandFailure("--time-scale must be a positive number", status: 2)
        }
        let readyFile = try ReadyFile(arguments)
        let key = try arguments.secret("wechat-key") ?? "192006250b4c09247ec02edce69f6a2d"
        let merchant = WeChatPay.V2.Merchant(
            appID: arguments.value("wechat-appid") ?? "wxd930ea5d5a258f4f", mchID: arguments.value("wechat-mch-id") ?? "10000100",
            apiKey: key)
        let v3Options =
            ["wechat-v3-mchid", "wechat-v3-serial", "wechat-v3-public-key"].map { arguments.value($0) } + [
                try arguments.secret("wechat-api-v3-key")
            ]
        var v3Merchants: [WeChatV3Sandbox.Merchant] = []
        switch v3Options.compactMap({ $0 }).count {
        case 0: break
        case 4:
            guard v3Options[3]!.utf8.count == 32 else { throw CommandFailure("--wechat-api-v3-key must be 32 bytes", status: 2) }
            let publicKey: RSAPublicKey
            do {
                publicKey = try RSAPublicKey(pemRepresentation: CommandInput.pem(v3Options[2]!, option: "wechat-v3-public-key"))
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("--wechat-v3-public-key: \(error)", status: 2)
            }
            v3Merchants.append(.init(mchID: v3Options[0]!, certificateSerial: v3Options[1]!, publicKey: publicKey, apiV3Key: v3Options[3]!))
        default:
            throw CommandFailure(
                "a v3 merchant needs all of --wechat-v3-mchid, --wechat-v3-serial, --wechat-v3-public-key, --wechat-api-v3-key", status: 2)
        }
        var alipayApps: [String: RSAPublicKey] = [:]
        switch (arguments.value("alipay-app-id"), arguments.value("alipay-app-public-key")) {
        case (nil, nil): break
        case (let appID?, let key?):
            do {
                alipayApps[appID] = try RSAPublicKey(pemRepresentation: CommandInput.keyText(key, option: "alipay-app-public-key"))
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("--alipay-app-public-key is not a readable file, PEM text or bare base64 key", status: 2)
            }
        default: throw CommandFailure("an Alipay app needs both --alipay-app-id and --alipay-app-public-key", status: 2)
        }
        let sandbox = SandboxServer(
            wechatMerchants: [merchant], wechatV3Merchants: v3Merchants, alipayApps: alipayApps, port: port, timeScale: timeScale)
        if let certificate = arguments.value("applepay-merchant-cert") {
            do {
                let pem = try CommandInput.pem(certificate, option: "applepay-merchant-cert")
                try await sandbox.applePay.register(merchantCertificate: X509Certificate(pemRepresentation: pem))
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure("--applepay-merchant-cert: not a payment processing certificate (\(error))", status: 2)
            }
        } else {
            // A processing key of its own, held by the simulated Stripe and Adyen as a real processor
            // holds the merchant's: tokens minted here go through their SDKs with no set-up.
            let key = try sandbox.applePay.ca.issueMerchantKey(merchantIdentifier: SandboxMode.appleMerchantIdentifier)
            try await sandbox.applePay.register(merchantCertificate: key.certificate)
            sandbox.registerProcessingKey(key)
        }
        do {
            try sandbox.start()
        } catch {
            throw CommandFailure("\(error)")
        }
        let payer = sandbox.baseURL.appendingPathComponent("sandbox/pay").absoluteString
        io.write("WeChat Pay v2 gateway  \(sandbox.wechatV2URL.absoluteString)  (appid \(merchant.appID), mch_id \(merchant.mchID))\n")
        if try arguments.secret("wechat-key") == nil { io.write("test API key           \(key)  (sandbox only)\n") }
        if let v3 = v3Merchants.first {
            io.write("WeChat Pay v3 gateway  \(sandbox.wechatV3URL.absoluteString)  (mchid \(v3.mchID))\n")
        }
        if let appID = alipayApps.keys.first {
            io.write("Alipay gateway         \(sandbox.alipayGatewayURL.absoluteString)  (app_id \(appID))\n")
            io.write("Alipay public key (configure it as Alipay's key):\n\(sandbox.alipay.alipayPublicKey.pemRepresentation)")
        }
        let applePayToken = sandbox.baseURL.appendingPathComponent("sandbox/applepay/token").absoluteString
        let applePayRoot = sandbox.baseURL.appendingPathComponent("sandbox/applepay/root.pem").absoluteString
        io.write("Apple Pay token minter POST \(applePayToken)  (trust \(applePayRoot), not Apple's root)\n")
        io.write("Stripe API (Apple Pay) \(sandbox.stripeURL.absoluteString)  (stripe.api_base; any sk_test_… key)\n")
        io.write("Adyen Checkout API     \(sandbox.adyenURL.absoluteString)  (the SDK services' baseUrl; any X-API-Key)\n")
        let adyenWebhook = sandbox.baseURL.appendingPathComponent("sandbox/adyen/webhook").absoluteString
        io.write("Adyen webhooks         POST \(adyenWebhook) {\"url\":…,\"hmac_key\":…}  (signed webhooks from then on)\n")
        let stripeWebhook = sandbox.baseURL.appendingPathComponent("sandbox/stripe/webhook").absoluteString
        io.write("Stripe webhooks        POST \(stripeWebhook) {\"url\":…,\"secret\":\"whsec_…\"}  (signed events from then on)\n")
        io.write("payer API              POST \(payer)\n")
        try await readyFile?.write(
            [
                "sandbox_url": sandbox.baseURL.absoluteString, "wechat_v2_url": sandbox.wechatV2URL.absoluteString,
                "wechat_v3_url": sandbox.wechatV3URL.absoluteString, "payer_url": payer,
                "alipay_gateway_url": sandbox.alipayGatewayURL.absoluteString,
                "alipay_public_key": sandbox.alipay.alipayPublicKey.pemRepresentation, "applepay_token_url": applePayToken,
                "applepay_root_url": applePayRoot, "stripe_api_base": sandbox.stripeURL.absoluteString,
                "adyen_checkout_url": sandbox.adyenURL.absoluteString,
            ], orStop: sandbox.stop)
        await TerminationSignals.wait()
        await sandbox.stop()
        io.write("sandbox stopped\n")
        return 0
    }
}
