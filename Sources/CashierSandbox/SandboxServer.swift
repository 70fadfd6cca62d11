public import ApplePay
public import Cashier
public import CashierCrypto
import CashierCurl
public import CashierHTTP
public import Foundation
import Synchronization
public import WeChatPay

/// The sandboxes on one HTTP server on 127.0.0.1: the WeChat Pay v2 and v3 gateways under
/// `/wechat/`, Alipay's `gateway.do` under `/alipay/`, UnionPay's gateway under `/unionpay/`
/// (its file-download host on a second port), the Apple Pay token minter under
/// `/sandbox/applepay/`, and the payer API `POST /sandbox/pay`.
///
/// ```swift
/// let sandbox = SandboxServer(wechatMerchants: [merchant], timeScale: 0.001)
/// try sandbox.start()
/// let client = WeChatPay.V2.Client(merchant: merchant, baseURL: sandbox.wechatV2URL)
/// ```
public final class SandboxServer: Sendable {
    /// The WeChat Pay v2 simulator.
    public let wechatV2: WeChatV2Sandbox
    /// The WeChat Pay v3 simulator.
    public let wechatV3: WeChatV3Sandbox
    /// The Alipay gateway simulator.
    public let alipay: AlipaySandbox
    /// The Apple Pay test CA and token minter.
    public let applePay: ApplePaySandbox
    /// Stripe's API for Apple Pay, under `/stripe/v1/…`.
    public let stripe: StripeSandbox
    /// Adyen's Checkout API for Apple Pay, under `/adyen/v72/…`.
    public let adyen: AdyenSandbox
    /// UnionPay's gateway, under `/unionpay/gateway/api/…`, and its file-download host (a listener of its own).
    public let unionpay: UnionPaySandbox
    public let unionpayFiles: UnionPayFileHost
    /// Every notification the sandboxes sent, with each attempt.
    public let delivery: NotificationDelivery
    private let server: HTTPServer
    private let faults: FaultSwitch
    /// The port given to `init`: where a sandbox started with `start(listening: false)` says it is.
    private let givenPort: UInt16
    /// Whether ``start(listening:)`` opened the socket.
    private let onSocket = Atomic<Bool>(false)
    /// Where this sandbox listens, shared with the simulators for their payer-page links.
    private let address: SandboxAddress

    /// The fault in force, shared by the request handler and `setFault`.
    private final class FaultSwitch: Sendable {
        let current = Mutex<SandboxFault>(.none)

        /// The fault for the next call; a counted one is used up by it.
        func take() -> SandboxFault {
            current.withLock { fault in
                defer { fault = fault.afterOneCall }
                return fault
            }
        }
    }

    /// - Parameters:
    ///   - wechatMerchants: the merchants the WeChat sandbox knows (their keys verify requests).
    ///   - wechatV3Merchants: the merchants the v3 sandbox knows.
    ///   - miniProgramSecrets: mini program app ids and secrets for `jscode2session`.
    ///   - officialAccountSecrets: official account app ids and secrets for web authorisation
    ///     (`/connect/oauth2/authorize`, `/sns/oauth2/access_token`).
    ///   - applePayCA: the Apple Pay test CA (a fresh one when `nil`).
    ///   - host: where to listen (loopback).
    ///   - port: 0 for any free port.
    ///   - timeScale: multiplies notification retry intervals (1 = WeChat's real schedule).
    ///   - transport: how notifications are sent; `nil` for libcurl, as the merchant server sends
    ///     its calls (FoundationNetworking's `URLSession` waits on its own queue from Swift's
    ///     cooperative threads, and under a loaded test run held deliveries for seconds). A test
    ///     gives an in-process transport to a sandbox that does not listen (``start(listening:)``).
    public init(
        wechatMerchants: [WeChatPay.V2.Merchant],
        wechatV3Merchants: [WeChatV3Sandbox.Merchant] = [],
        miniProgramSecrets: [String: String] = [:],
        officialAccountSecrets: [String: String] = [:],
        alipayApps: [String: RSAPublicKey] = [:],
        applePayCA: ApplePayTestCA? = nil,
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        timeScale: Double = 1,
        transport: (any HTTPTransport)? = nil
    ) {
        let transport = transport ?? CurlTransport()
        delivery = NotificationDelivery(transport: transport, timeScale: timeScale)
        givenPort = port
        let address = SandboxAddress()
        self.address = address
        wechatV2 = WeChatV2Sandbox(
            merchants: wechatMerchants, boundAppIDs: Set(miniProgramSecrets.keys), delivery: delivery, address: address)
        wechatV3 = WeChatV3Sandbox(merchants: wechatV3Merchants, delivery: delivery, address: address)
        var router = Router()
        unionpay = UnionPaySandbox(delivery: delivery, address: address)
        unionpay.register(on: &router, prefix: "/unionpay")
        let unionpaySandbox = unionpay
        wechatV2.register(on: &router, prefix: "/wechat")
        wechatV3.register(on: &router, prefix: "/wechat")
        wechatV2.registerConsole(on: &router, v3: wechatV3)
        WeChatAccountsSandbox(secrets: miniProgramSecrets.merging(officialAccountSecrets) { first, _ in first }).register(on: &router)
        alipay = AlipaySandbox(apps: alipayApps, delivery: delivery)
        alipay.register(on: &router, path: "/alipay/gateway.do")
        applePay = ApplePaySandbox(ca: applePayCA ?? (try! ApplePayTestCA()))
        applePay.register(on: &router)
        stripe = StripeSandbox(ca: applePay.ca, delivery: delivery)
        stripe.register(on: &router, prefix: "/stripe")
        adyen = AdyenSandbox(ca: applePay.ca, delivery: delivery)
        adyen.register(on: &router, prefix: "/adyen")
        SandboxPages(wechatV2: wechatV2, wechatV3: wechatV3, applePay: applePay, transport: transport, address: address).register(
            on: &router)
        WeChatComplaintPages(wechatV3: wechatV3).register(on: &router)
        let alipaySandbox = alipay
        let wechat = wechatV2
        let wechatV3 = wechatV3
        let adyenSandbox = adyen
        let stripeSandbox = stripe
        router.add("POST", "/sandbox/pay") { request, _ in
            if let answer = await UnionPaySandbox.payerAPI(request, sandbox: unionpaySandbox) { return answer }
            struct Pay: Decodable {
                let provider: String
                let out_trade_no: String?
                let order_string: String?
                let outcome: WeChatV2Sandbox.Outcome
            }
            guard let pay = try? request.decodeJSON(Pay.self) else {
                return SandboxControl.invalid(#"expected {"provider":"wechat","out_trade_no":"…","outcome":"success"|"cancel"|"fail"}"#)
            }
            if pay.provider == "alipay", let orderString = pay.order_string {
                return .json(await alipaySandbox.payOrderString(orderString, outcome: pay.outcome))
            }
            guard let outTradeNo = pay.out_trade_no else {
                return SandboxControl.invalid("give out_trade_no (or, for Alipay app pay, order_string)")
            }
            guard pay.provider == "wechat" || pay.provider == "alipay" else {
                return .error(status: 400, code: "unsupported_provider", message: "provider must be \"wechat\" or \"alipay\"")
            }
            let state =
                pay.provider == "alipay"
                ? await alipaySandbox.pay(outTradeNo: outTradeNo, outcome: pay.outcome)
                : await SandboxPages.payWeChat(outTradeNo, pay.outcome, v2: wechat, v3: wechatV3)
            guard let state else {
                return .error(status: 404, code: "order_not_found", message: "no \(pay.provider) order \(outTradeNo) in the sandbox")
            }
            return .json(["provider": pay.provider, "out_trade_no": outTradeNo, "trade_state": state])
        }
        // The payee's side of a WeChat merchant transfer: what `wx.requestMerchantTransfer` does.
        WeChatTransferPages(wechatV3: wechatV3).register(on: &router)
        let delivery = self.delivery
        router.add("POST", "/sandbox/replay") { request, _ in
            struct Replay: Decodable {
                let key: String
                let copies: Int
                let urls: [String]
            }
            guard let replay = try? request.decodeJSON(Replay.self), (1...1000).contains(replay.copies),
                case let urls = replay.urls.compactMap(URL.init(string:)), urls.count == replay.urls.count,
                urls.allSatisfy({ $0.scheme == "http" || $0.scheme == "https" })
            else {
                return SandboxControl.invalid(
                    #"expected {"key":"<out_trade_no or out_refund_no>","copies":1…1000,"urls":["http://…/notify/wechat/v2",…]}"#)
            }
            guard let result = await delivery.replay(key: replay.key, copies: replay.copies, to: urls) else {
                return .error(status: 404, code: "not_found", message: "no notification was sent under \(replay.key)")
            }
            return .json(["sent": result.sent, "acknowledged": result.acknowledged])
        }
        router.add("POST", "/sandbox/refund_outcome") { request, _ in
            guard let object = SandboxControl.object(request),
                let outcome = SandboxRefundOutcome(json: object)
            else {
                return SandboxControl.invalid(
                    #"expected {"outcome":"succeed"|"refuse"|"fail_later","status":"REFUNDCLOSE"|"CHANGE"|"ABNORMAL"|"CLOSED"}"#)
            }
            await wechat.setRefundOutcome(outcome)
            await wechatV3.setRefundOutcome(outcome)
            await alipaySandbox.setRefundOutcome(outcome)
            adyenSandbox.setRefundOutcome(outcome)
            stripeSandbox.setRefundOutcome(outcome)
            await unionpaySandbox.setRefundOutcome(outcome)
            return .json(["outcome": object["outcome"] as? String ?? ""])
        }
        // The merchant's side of Alipay's ISV authorisation, and the payer's password time at the counter.
        router.add("POST", "/sandbox/alipay/app_auth_tokens") { request, _ in
            struct Grant: Decodable {
                let app_auth_token: String
                let merchant_app_id: String
            }
            guard let grant = try? request.decodeJSON(Grant.self), !grant.app_auth_token.isEmpty, !grant.merchant_app_id.isEmpty else {
                return SandboxControl.invalid(#"expected {"app_auth_token":"…","merchant_app_id":"2021…"}"#)
            }
            await alipaySandbox.grantAppAuthToken(grant.app_auth_token, merchantAppID: grant.merchant_app_id)
            return .json(["app_auth_token": grant.app_auth_token, "merchant_app_id": grant.merchant_app_id])
        }
        router.add("POST", "/sandbox/password_delay") { request, _ in
            struct Delay: Decodable { let seconds: Double }
            guard let delay = try? request.decodeJSON(Delay.self), (0...600).contains(delay.seconds) else {
                return SandboxControl.invalid(#"expected {"seconds":5} (0 to 600)"#)
            }
            await wechat.setPasswordDelay(delay.seconds)
            await alipaySandbox.setPasswordDelay(delay.seconds)
            return .json(["seconds": delay.seconds])
        }
        router.add("GET", "/sandbox/ledger") { request, _ in
            let number = request.queryValue("out_trade_no")
            let entries = (await wechat.ledger() + wechatV3.ledger() + alipaySandbox.ledger() + unionpaySandbox.ledger()).filter {
                number == nil || $0.out_trade_no == number
            }
            return .json(["data": entries])
        }
        let faults = FaultSwitch()
        self.faults = faults
        unionpayFiles = UnionPayFileHost(sandbox: unionpay, host: host) { answer in await faults.take().apply(answer) }
        router.add("POST", "/sandbox/faults") { request, _ in
            guard let object = SandboxControl.object(request),
                let fault = SandboxFault(json: object)
            else {
                return SandboxControl.invalid(
                    #"expected {"mode":"none"|"latency"|"server_error"|"timeout"|"garbage"|"bad_signature"|"lost_reply","milliseconds":N,"count":N}"#
                )
            }
            faults.current.withLock { $0 = fault }
            return .json(["mode": object["mode"] as? String ?? ""])
        }
        let routes = router
        // One worker: a simulator's traffic is light, and test runs start dozens of sandboxes.
        // Bodies up to 8 MiB: media uploads take images of 5 MB and PDFs of 7.5 MB.
        server = HTTPServer(configuration: .init(host: host, port: port, threads: 1, maxBodyBytes: 8 << 20)) { request in
            // Faults hit the providers' gateways only, never the sandbox's own control API.
            guard !request.path.hasPrefix("/sandbox/") else { return await routes.handle(request) }
            return await faults.take().apply { await routes.handle(request) }
        }
    }

    /// Injects `fault` into every gateway call from now on (`.none` to stop).
    public func setFault(_ fault: SandboxFault) {
        faults.current.withLock { $0 = fault }
    }

    /// Starts listening.
    ///
    /// With `listening: false` no socket is opened: ``handle(_:)`` answers, and the sandbox says
    /// it is at the `port` given to `init` (every URL here, and the payer pages' links), which
    /// should not be 0 — a test's in-process transport answers there by calling ``handle(_:)``,
    /// and the notifications go out through the `transport` given to `init`.
    public func start(listening socket: Bool = true) throws {
        if socket {
            try server.start()
            onSocket.store(true, ordering: .releasing)
        }
        // UnionPay's file host is a listener of its own (a port of its own), in process or not.
        try unionpayFiles.start()
        address.set(baseURL.absoluteString)
    }

    /// Answers `request` in process as it would over its socket (faults included), with no socket opened.
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        await server.handle(request)
    }

    /// The port it listens on (after ``start(listening:)``; without a socket, the one given to `init`).
    public var port: UInt16 { onSocket.load(ordering: .acquiring) ? server.port : givenPort }

    /// Stops listening, letting calls in progress finish.
    public func stop() async {
        await server.stop()
        await unionpayFiles.stop()
    }

    /// Lets the Stripe and Adyen simulators decrypt Apple Pay tokens for the merchant with this
    /// processing key, as a processor that holds it does.
    public func registerProcessingKey(_ key: ApplePay.MerchantKey) {
        stripe.core.register(processingKey: key)
        adyen.core.register(processingKey: key)
    }

    /// Stripe's API base, for `ApplePay.StripeProcessor(baseURL:)` and `stripe.api_base`.
    public var stripeURL: URL { URL(string: "http://127.0.0.1:\(port)/stripe")! }

    /// Where the sandbox's Adyen serves its Payment accounting reports (`ApplePay.AdyenProcessor.ReportAccess(baseURL:)`).
    public var adyenReportsURL: URL { URL(string: "http://127.0.0.1:\(port)/adyen/reports/download/MerchantAccount/")! }

    /// Adyen's Checkout API base, for `ApplePay.AdyenProcessor(baseURL:)` and the Adyen SDK's `baseUrl`.
    public var adyenURL: URL { URL(string: "http://127.0.0.1:\(port)/adyen/\(ApplePay.AdyenProcessor.apiVersion)")! }

    /// `http://127.0.0.1:PORT/`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    /// The WeChat Pay v3 gateway, for `WeChatPay.V3.Client(baseURL:)` and wechatpayv3's gateway.
    public var wechatV3URL: URL { URL(string: "http://127.0.0.1:\(port)/wechat")! }

    /// Alipay's `gateway.do`, for `Alipay.Client(gateway:)` and other SDKs.
    public var alipayGatewayURL: URL { URL(string: "http://127.0.0.1:\(port)/alipay/gateway.do")! }

    /// The host for `WeChatPay.OfficialAccount(baseURL:authorizeURL:)` (both: `/connect/oauth2/authorize`
    /// and `/sns/oauth2/access_token`).
    public var officialAccountURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// The host for `WeChatPay.MiniProgram(baseURL:)` (`/sns/jscode2session`).
    public var miniProgramURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The WeChat Pay v2 gateway, for `WeChatPay.V2.Client(baseURL:)` and wechatpy's `API_BASE_URL`.
    public var wechatV2URL: URL { URL(string: "http://127.0.0.1:\(port)/wechat/")! }
}
