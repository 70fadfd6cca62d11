import ApplePay
public import Cashier
import CashierCrypto
public import CashierSandbox
public import CashierServer
public import CashierStore
public import Foundation
import UnionPay
public import WeChatPay

/// Sandbox mode: the provider sandboxes on loopback with a WeChat Pay merchant, an Alipay app and
/// an Apple Pay processing certificate of their own, and the merchant configuration that uses
/// them — what `cashier-sandbox serve`, `cashier-sandbox demo` and the end-to-end tests run.
public struct SandboxMode: Sendable {
    public let sandbox: SandboxServer
    public let configuration: MerchantConfiguration
    /// The WeChat merchant (its API key signs the sandbox's notifications).
    public let wechatMerchant: WeChatPay.V2.Merchant
    /// What the payer's side calls the sandbox through (``pay(provider:outTradeNo:)``).
    let payerTransport: any HTTPTransport

    public static let alipayAppID = "2021000000000001"
    /// The platform's Alipay app as an ISV (third-party app), through which sub-merchants are paid.
    public static let isvAlipayAppID = "2021000000000099"
    /// The sandbox's sub-merchant, paid through the service provider / ISV: `"merchant": "north"`.
    public static let subMerchantID = "north"
    /// Its WeChat Pay sub-merchant number (`sub_mch_id`, `sub_mchid`).
    public static let subMerchantWeChatID = "1900000109"
    /// Its own Alipay app, which authorised the ISV (notifications name it as `auth_app_id`).
    public static let subMerchantAlipayAppID = "2021000000000077"
    /// The sandbox's mini program: its payments are placed with the merchant's mch_id under this appid.
    public static let miniProgramAppID = "wx8888888888888888"
    public static let appleMerchantIdentifier = "merchant.com.example.sandbox"
    /// The key the sandbox server pays Apple Pay through the sandbox's Stripe with.
    public static let stripeSecretKey = "sk_test_cashier_sandbox_0000000000"

    /// Lets the sandbox's payer side see the server's orders: Apple Pay tokens minted by
    /// `{"order_id": …}` carry the order's amount and id.
    public func connect(to store: any OrderStore) async {
        await sandbox.applePay.setOrderLookup { id in try? await store.order(id: id)?.total }
    }

    /// The sandbox's Stripe sends its webhook events to the server at `server` (its
    /// `/notify/stripe`), signed with the configuration's signing secret.
    public func connectStripeEvents(to server: URL) {
        guard let secret = configuration.applePay?.stripeWebhookSecret else { return }
        try? sandbox.stripe.sendWebhooks(to: server.appendingPathComponent("notify/stripe").absoluteString, secret: secret)
    }

    /// The merchant's RSA keys in sandbox mode (its WeChat Pay v3 API key and its Alipay app key),
    /// made once per process. They are throwaway keys for a simulator; a fresh pair took half a
    /// second of CPU, and a test run that started dozens of sandboxes at once spent its first
    /// minute generating keys while every in-process server waited for a core.
    static let processKeys = Result {
        (try RSAPrivateKey(generatingKeySizeInBits: 2048), try RSAPrivateKey(generatingKeySizeInBits: 2048))
    }

    /// Starts the sandbox (on `port`, 0 for any) and returns the configuration for a server.
    ///
    /// With `listening: false` the sandbox opens no socket (``SandboxServer/start(listening:)``)
    /// and says it is at `port`; `transport` then carries everything that would have crossed the
    /// network — the sandbox's notifications, the configured Stripe processor's calls, Apple Pay
    /// merchant validation and the payer's calls — to handlers in this process (a test's
    /// in-process transport). Give the server the same transport (`MerchantServer(providerTransport:)`).
    /// - Parameters:
    ///   - listening: whether the sandbox listens on `port`.
    ///   - transport: what those calls go through (by default: libcurl for the sandbox's
    ///     notifications, `URLSession` for the rest, as before).
    public static func start(
        port: UInt16 = 0, timeScale: Double = 1, listening: Bool = true, transport: (any HTTPTransport)? = nil
    ) async throws -> SandboxMode {
        let wechat = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: SecureRandom.alphanumeric(count: 32))
        // Made on a thread of their own the first time, never on one of Swift's few cooperative
        // threads, where they would hold up every handler.
        let (merchantKey, alipayKey) = try await OwnThread.run { try Self.processKeys.get() }
        let wechatV3 = try WeChatPay.V3.Merchant(
            mchID: wechat.mchID, certificateSerial: Hex.encode(SecureRandom.bytes(count: 20)).uppercased(),
            privateKey: merchantKey, apiV3Key: SecureRandom.alphanumeric(count: 32))
        // The platform as a WeChat Pay service provider (its own mch_id, key and API certificate; the
        // sandbox reuses the RSA key under another serial) and as an Alipay ISV.
        let serviceProvider = WeChatPay.V2.Merchant(
            appID: "wx2421b1c4370ec43b", mchID: "1900000100", apiKey: SecureRandom.alphanumeric(count: 32))
        let serviceProviderV3 = try WeChatPay.V3.Merchant(
            mchID: serviceProvider.mchID, certificateSerial: Hex.encode(SecureRandom.bytes(count: 20)).uppercased(),
            privateKey: merchantKey, apiV3Key: SecureRandom.alphanumeric(count: 32))
        let appAuthToken = "202612BB" + SecureRandom.alphanumeric(count: 24)
        var miniProgram = MerchantConfiguration.MiniProgram(appID: miniProgramAppID, secret: SecureRandom.alphanumeric(count: 32))
        // The official account that identifies payers in WeChat's browser: the merchant's own appid.
        let officialAccountSecret = SecureRandom.alphanumeric(count: 32)
        let miniProgramSecrets = [miniProgram.appID: miniProgram.secret]
        let sandbox = try await OwnThread.run {
            SandboxServer(  // (Alipay's side makes its own RSA key)
                wechatMerchants: [wechat, serviceProvider],
                wechatV3Merchants: [wechatV3, serviceProviderV3].map {
                    .init(
                        mchID: $0.mchID, certificateSerial: $0.certificateSerial, publicKey: $0.privateKey.publicKey, apiV3Key: $0.apiV3Key)
                },
                miniProgramSecrets: miniProgramSecrets, officialAccountSecrets: [wechat.appID: officialAccountSecret],
                alipayApps: [alipayAppID: alipayKey.publicKey, isvAlipayAppID: alipayKey.publicKey], port: port,
                timeScale: timeScale, transport: transport)
        }
        try sandbox.start(listening: listening)  // first: the configuration needs its port
        await sandbox.alipay.grantAppAuthToken(appAuthToken, merchantAppID: subMerchantAlipayAppID)
        await sandbox.alipay.setDefaultAgreementApp(alipayAppID)
        await sandbox.wechatV2.setDefaultContractMerchant(wechat.mchID)
        let processing = try sandbox.applePay.ca.issueMerchantKey(merchantIdentifier: appleMerchantIdentifier)
        try await sandbox.applePay.register(merchantCertificate: processing.certificate)
        // The sandbox's Stripe and Adyen hold the processing key, as the real ones do.
        sandbox.registerProcessingKey(processing)
        let keys = MerchantConfiguration.generateKeys()
        let platformKeys = WeChatPay.V3.PlatformKeys()
        try platformKeys.add(certificate: sandbox.wechatV3.platformCertificate)
        var configuration = MerchantConfiguration(
            secretKey: keys.secret, publishableKey: keys.publishable, wechat: .init(merchant: wechat, baseURL: sandbox.wechatV2URL),
            alipay: .init(
                appID: alipayAppID, privateKey: alipayKey, alipayPublicKey: sandbox.alipay.alipayPublicKey,
                gateway: sandbox.alipayGatewayURL,
                sellerID: sandbox.alipay.sellerID),
            applePay: .init(
                merchantIdentifier: appleMerchantIdentifier, countryCode: try CountryCode(alpha2: "CN"), displayName: "Cashier Sandbox",
                supportedNetworks: [.chinaUnionPay, .visa, .masterCard],
                // Holding the key too, the sandbox server checks each token's amount before Stripe sees it.
                decrypter: ApplePay.TokenDecrypter(
                    merchantKeys: [processing], verifier: try ApplePay.TokenVerifier(trustAnchors: [sandbox.applePay.ca.root])),
                processor: ApplePay.StripeProcessor(
                    secretKey: stripeSecretKey, baseURL: sandbox.stripeURL, transport: transport ?? URLSessionTransport(),
                    backoff: .milliseconds(20))))
        configuration.applePay?.webSession = ApplePay.MerchantValidator(
            merchantIdentifier: appleMerchantIdentifier, displayName: "Cashier Sandbox", domain: "127.0.0.1",
            transport: transport ?? URLSessionTransport(), allowedHosts: [], loopbackHosts: ["127.0.0.1:\(sandbox.baseURL.port ?? 0)"])
        // The sandbox's Stripe sends its events (refunds failing later, disputes) once the server is up (connectStripeEvents(to:)).
        configuration.applePay?.stripeWebhookSecret = "whsec_" + SecureRandom.alphanumeric(count: 32)
        configuration.applePay?.domainAssociation = "cashier-sandbox-domain-association \(appleMerchantIdentifier)\n"
        configuration.coupons = [
            Coupon(code: "WELCOME10", label: "Welcome 10% off", discount: .percentOff(10)),
            Coupon(code: "FIVE", label: "5.00 off", discount: .amountOff("5.00")),
        ]
        configuration.wechatV3 = .init(appID: wechat.appID, merchant: wechatV3, platformKeys: platformKeys, baseURL: sandbox.wechatV3URL)
        // Complaints raised in the sandbox reach the server: it sets its complaint notify URL at start.
        configuration.wechatV3?.registersComplaintNotifyURL = true
        configuration.serviceProvider = .init(
            wechat: .init(merchant: serviceProvider, baseURL: sandbox.wechatV2URL),
            wechatV3: .init(
                appID: serviceProvider.appID, merchant: serviceProviderV3, platformKeys: platformKeys, baseURL: sandbox.wechatV3URL),
            alipay: .init(
                appID: isvAlipayAppID, privateKey: alipayKey, alipayPublicKey: sandbox.alipay.alipayPublicKey,
                gateway: sandbox.alipayGatewayURL))
        configuration.subMerchants = [
            .init(
                id: subMerchantID, name: "North Street Café (sub-merchant)", wechatSubMchID: subMerchantWeChatID,
                alipayAppAuthToken: appAuthToken, alipayAppID: subMerchantAlipayAppID)
        ]
        miniProgram.baseURL = sandbox.miniProgramURL
        configuration.miniProgram = miniProgram
        configuration.officialAccount = OfficialAccountSettings(
            appID: wechat.appID, secret: officialAccountSecret, baseURL: sandbox.officialAccountURL,
            authorizeURL: sandbox.officialAccountURL)
        // UnionPay's gateway as its test environment (the plugins' mode 01), with the sandbox's test
        // merchant and CA; the checkout pays a tn on the sandbox's payer page.
        let unionpayCA = sandbox.unionpay.ca
        configuration.unionpay = MerchantConfiguration.UnionPaySettings(
            merchantID: unionpayCA.merchantID,
            signingKey: try UnionPay.SigningKey(privateKey: unionpayCA.merchantKey, certificate: unionpayCA.merchantCertificate),
            verifier: try UnionPay.Verifier(root: unionpayCA.root, middle: unionpayCA.middle, owner: .unionPayOrTestEnvironment),
            environment: .test, endpoints: sandbox.unionpayEndpoints,
            checkoutPayURL: sandbox.unionpayGatewayURL.appendingPathComponent("pay"))
        // The sandbox's pretend shop is where checkout pages send payers back.
        configuration.checkout = CheckoutSettings(returnOrigins: [sandbox.baseURL.absoluteString])
        // Everything on loopback, for one developer: /metrics open on the API's port.
        configuration.metricsAccess = .open
        return SandboxMode(
            sandbox: sandbox, configuration: configuration, wechatMerchant: wechat, payerTransport: transport ?? URLSessionTransport())
    }
}
