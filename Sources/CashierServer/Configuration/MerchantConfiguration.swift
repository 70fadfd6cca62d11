import Alipay
public import ApplePay
public import Cashier
public import CashierCrypto
public import Foundation
public import WeChatPay

/// Everything the merchant server needs: API keys, where providers should send notifications,
/// and each provider's credentials (any may be missing; its payment methods are then refused).
public struct MerchantConfiguration: Sendable {
    /// WeChat Pay API v2.
    public struct WeChat: Sendable {
        public var merchant: WeChatPay.V2.Merchant
        public var baseURL: URL
        /// How refunds (`secapi/`) travel: with the merchant's API certificate (mutual TLS).
        public var mutualTLSTransport: (any HTTPTransport)?
        /// Currencies besides CNY this merchant may charge (a cross-border merchant account).
        public var crossBorderCurrencies: Set<Currency> = []
        /// The mobile site H5 (`wechat.h5`) orders name in `scene_info`; `nil`: this server's public
        /// address and host name.
        public var h5Site: WeChatPay.V2.UnifiedOrder.H5Site?
        /// The 委托代扣 template (`plan_id`) agreements are signed under when a request names none.
        public var papayPlanID: String?

        public init(
            merchant: WeChatPay.V2.Merchant, baseURL: URL = WeChatPay.V2.Client.productionURL,
            mutualTLSTransport: (any HTTPTransport)? = nil
        ) {
            self.merchant = merchant
            self.baseURL = baseURL
            self.mutualTLSTransport = mutualTLSTransport
        }
    }

    /// WeChat Pay API v3 (JSON, SHA256withRSA, AES-256-GCM resources).
    public struct WeChatV3: Sendable {
        /// The app (or official account) the payments are for.
        public var appID: String
        public var merchant: WeChatPay.V3.Merchant
        /// WeChat's platform certificates or public key: responses and notifications are verified
        /// with them (certificates are downloaded and refreshed on demand).
        public var platformKeys: WeChatPay.V3.PlatformKeys
        public var baseURL: URL
        /// How v3 calls travel; `nil`: the server's shared libcurl transport.
        public var transport: (any HTTPTransport)?
        /// Currencies besides CNY this merchant may charge (a cross-border merchant account).
        public var crossBorderCurrencies: Set<Currency> = []
        /// Certificate mode: the platform certificates are downloaded when the server starts and
        /// every 12 hours (and, at most once a minute, when a message names an unknown serial).
        /// `false` in public-key mode, where the key is configured and never changes by itself.
        public var downloadsPlatformCertificates = true
        /// At start, make WeChat Pay send this merchant's complaint notifications to this server
        /// (`{public_base_url}/notify/wechat/v3/complaints`, `wechat_v3.complaint_notifications`):
        /// set when none is set, changed when another is. Off by default: the URL is the
        /// merchant's to choose, and one set elsewhere is left alone.
        public var registersComplaintNotifyURL = false
        /// The complaint job reads this merchant's recent complaints every `complaint_interval_seconds`
        /// (and once at start), for what a notification did not bring (`wechat_v3.complaint_polling`).
        /// `false` leaves complaints to their notifications: no call is made on the job's account.
        public var pollsComplaints = true

        public init(
            appID: String, merchant: WeChatPay.V3.Merchant, platformKeys: WeChatPay.V3.PlatformKeys,
            baseURL: URL = WeChatPay.V3.Client.productionURL, transport: (any HTTPTransport)? = nil
        ) {
            self.appID = appID
            self.merchant = merchant
            self.platformKeys = platformKeys
            self.baseURL = baseURL
            self.transport = transport
        }
    }

    /// A WeChat mini program whose payers pay through `wechat.miniprogram`: its `js_code` is
    /// exchanged for the payer's openid on the server (the app secret never reaches the device).
    public struct MiniProgram: Sendable {
        public var appID: String
        public var secret: String
        public var baseURL: URL

        public init(appID: String, secret: String, baseURL: URL = WeChatPay.MiniProgram.productionURL) {
            self.appID = appID
            self.secret = secret
            self.baseURL = baseURL
        }
    }

    /// Which WeChat Pay API a payment uses when the request does not say (`api`).
    public enum WeChatAPI: String, Sendable {
        case v2, v3
    }

    public struct Alipay: Sendable {
        public var appID: String
        public var privateKey: RSAPrivateKey
        public var alipayPublicKey: RSAPublicKey
        public var gateway: URL
        /// The seller (partner) id notifications must name, when known.
        public var sellerID: String?

        public init(appID: String, privateKey: RSAPrivateKey, alipayPublicKey: RSAPublicKey, gateway: URL, sellerID: String? = nil) {
            self.appID = appID
            self.privateKey = privateKey
            self.alipayPublicKey = alipayPublicKey
            self.gateway = gateway
            self.sellerID = sellerID
        }
    }

    public struct ApplePay: Sendable {
        /// When the processor takes the money.
        public enum Capture: String, Sendable {
            /// As the payer authorises: the order is paid and the money moved.
            case automatic
            /// Held: the order is paid (authorised), and the merchant captures it (all or part) or
            /// voids it through `POST /v1/orders/{id}/capture` and `/void` — within the
            /// processor's window (seven days for Stripe and Adyen card payments).
            case manual
        }

        public var merchantIdentifier: String
        public var countryCode: CountryCode
        public var displayName: String
        public var supportedNetworks: [ApplePayNetwork]
        /// Checks every token's signature chain to Apple's root, its signing time and the order
        /// bound into it — before anything else, with or without the processing key.
        public var verifier: ApplePayTokenVerifier
        /// The payment processing keys, when the merchant holds them: tokens are then decrypted and
        /// their amount and currency checked against the order before the processor sees them
        /// (required when the processor takes decrypted tokens).
        public var decrypter: ApplePayDecrypter?
        public var processor: any ApplePayProcessor
        public var capture: Capture = .automatic
        /// Adyen's webhook HMAC key (hex, from Customer Area → Developers → Webhooks). With it,
        /// `POST /notify/adyen` takes Adyen's standard webhooks, and a refund Adyen answered
        /// `received` counts as accepted until its `REFUND` webhook confirms it — or fails it
        /// (`success: false`, `REFUND_FAILED`, `REFUNDED_REVERSED`), which gives the amount back
        /// to the order. Without it `received` is taken as done.
        public var adyenHMACKey: String?
        /// Stripe's webhook signing secret (`whsec_…`, from Dashboard → Developers → Webhooks). With
        /// it, `POST /notify/stripe` takes Stripe's events: a refund's outcome sooner than the refund
        /// job would ask, and disputes — the amount a dispute takes is recorded as gone back, and
        /// given back if the dispute is won.
        public var stripeWebhookSecret: String?
        /// The domain-association file Apple gave for this merchant's web domains, served at
        /// `/.well-known/apple-developer-merchantid-domain-association`.
        public var domainAssociation: String?
        /// Apple Pay on the web: calls Apple's payment-session endpoint over mutual TLS with the
        /// merchant identity certificate, for `POST /v1/applepay/sessions`.
        public var webSession: ApplePayMerchantValidator?
        /// Offered on every order's sheet when the order names none (amounts in the order's currency).
        public var shippingMethods: [ShippingOption] = []
        public var requiredBillingContactFields: [ApplePayContactField] = []
        public var requiredShippingContactFields: [ApplePayContactField] = []
        /// Where the merchant ships (ISO 3166 alpha-2); empty: anywhere. A shipping address
        /// elsewhere gets Apple's "address unserviceable" on the sheet.
        public var shippingCountries: Set<String> = []

        /// A shipping method as configured: its amount is a decimal string read in each order's currency.
        public struct ShippingOption: Sendable, Equatable {
            public var identifier: String
            public var label: String
            public var detail: String
            /// `"5.00"`.
            public var amount: String
            public init(identifier: String, label: String, detail: String = "", amount: String) {
                self.identifier = identifier
                self.label = label
                self.detail = detail
                self.amount = amount
            }

            /// The method in `currency`. - Throws: when the amount is not a decimal in it.
            public func method(in currency: Currency) throws -> ShippingMethod {
                try ShippingMethod(identifier: identifier, label: label, detail: detail, amount: Money(decimal: amount, currency: currency))
            }
        }

        /// The merchant holds the processing key: tokens are verified and decrypted here.
        public init(
            merchantIdentifier: String, countryCode: CountryCode, displayName: String, supportedNetworks: [ApplePayNetwork],
            decrypter: ApplePayDecrypter, processor: any ApplePayProcessor
        ) {
            self.init(
                merchantIdentifier: merchantIdentifier, countryCode: countryCode, displayName: displayName,
                supportedNetworks: supportedNetworks, verifier: decrypter.verifier, decrypter: decrypter, processor: processor)
        }

        /// - Parameter decrypter: `nil` when the processor holds the processing key (Stripe, Adyen).
        public init(
            merchantIdentifier: String, countryCode: CountryCode, displayName: String, supportedNetworks: [ApplePayNetwork],
            verifier: ApplePayTokenVerifier, decrypter: ApplePayDecrypter?, processor: any ApplePayProcessor
        ) {
            self.merchantIdentifier = merchantIdentifier
            self.countryCode = countryCode
            self.displayName = displayName
            self.supportedNetworks = supportedNetworks
            self.verifier = verifier
            self.decrypter = decrypter
            self.processor = processor
        }
    }

    /// A platform's credentials as a WeChat Pay service provider (服务商) and an Alipay ISV: the
    /// sub-merchants' payments are placed, queried, refunded and billed with them, naming the
    /// sub-merchant (`sub_mch_id`, `sub_mchid`, `app_auth_token`).
    public struct ServiceProvider: Sendable {
        /// API v2 as a service provider: the service provider's appid, mch_id and API key.
        public var wechat: WeChat?
        /// API v3 partner APIs (`/v3/pay/partner/…`): the service provider's appid (`sp_appid`) and merchant.
        public var wechatV3: WeChatV3?
        /// The ISV's own Alipay app; calls carry each sub-merchant's `app_auth_token`.
        public var alipay: Alipay?

        public init(wechat: WeChat? = nil, wechatV3: WeChatV3? = nil, alipay: Alipay? = nil) {
            self.wechat = wechat
            self.wechatV3 = wechatV3
            self.alipay = alipay
        }
    }

    /// A merchant the platform takes payments for, through the ``ServiceProvider``.
    public struct SubMerchant: Sendable, Equatable {
        /// The id orders name (`"merchant": "north"`), `[a-z0-9_-]{1,32}`.
        public var id: String
        public var name: String
        /// WeChat Pay: the sub-merchant's `sub_mch_id` (v2) / `sub_mchid` (v3).
        public var wechatSubMchID: String?
        /// WeChat Pay: the sub-merchant's own app (`sub_appid`), when payments are for it rather than the service provider's.
        public var wechatSubAppID: String?
        /// Alipay: the token the merchant granted the ISV (`app_auth_token`).
        public var alipayAppAuthToken: String?
        /// Alipay: the merchant's own app id, which notifications name as `auth_app_id`.
        public var alipayAppID: String?

        public init(
            id: String, name: String, wechatSubMchID: String? = nil, wechatSubAppID: String? = nil, alipayAppAuthToken: String? = nil,
            alipayAppID: String? = nil
        ) {
            self.id = id
            self.name = name
            self.wechatSubMchID = wechatSubMchID
            self.wechatSubAppID = wechatSubAppID
            self.alipayAppAuthToken = alipayAppAuthToken
            self.alipayAppID = alipayAppID
        }

        /// `true` when `id` may name a merchant.
        public static func isValidID(_ id: String) -> Bool {
            (1...32).contains(id.utf8.count)
                && id.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 || $0 == 95 }
        }
    }

    /// The service provider / ISV credentials the sub-merchants' payments go through.
    public var serviceProvider: ServiceProvider?
    /// The merchants paid through ``serviceProvider``, besides the server's direct merchant (the
    /// top-level `wechat`, `wechatV3` and `alipay`). Every order belongs to one of them or to the
    /// direct merchant.
    public var subMerchants: [SubMerchant] = []

    /// `sk_…`: the merchant's backend.
    public var secretKey: String
    /// `pk_…`: the app, with an order's `client_secret`.
    public var publishableKey: String
    /// Where providers reach this server, e.g. `https://pay.example.com` (notify URLs hang off it);
    /// `nil`: the address it listens on (the sandbox, tests).
    public var publicBaseURL: String?
    public var wechat: WeChat?
    public var wechatV3: WeChatV3?
    public var miniProgram: MiniProgram?
    /// The official account whose web authorisation identifies payers in WeChat's browser
    /// (JSAPI on the hosted checkout page).
    public var officialAccount: OfficialAccountSettings?
    /// The hosted checkout page's return origins and methods.
    public var checkout = CheckoutSettings()
    /// The WeChat API used when a payment request names none: v2 when configured, else v3.
    public var defaultWeChatAPI: WeChatAPI?
    public var alipay: Alipay?
    public var applePay: ApplePay?
    /// UnionPay's online gateway (`unionpay.applepay`, `unionpay.app`).
    public var unionpay: UnionPaySettings?
    /// Where the merchant is: the dashboard shows times in this zone (default Asia/Shanghai).
    public var timeZone: TimeZone = TimeZone(identifier: "Asia/Shanghai") ?? .current
    /// Server-side prices: lets the app create orders from SKUs with the publishable key.
    public var catalog: Catalog?
    /// Codes the payment sheet accepts (Apple Pay's coupon field); the server applies them.
    public var coupons: [Coupon] = []
    /// When a payment has been pending this long, reading the order asks the provider first
    /// ("query when in doubt": the notification may be late or lost).
    public var queryAfter: TimeInterval = 10
    /// Reading an order asks the provider about a payment in doubt at most once in this long
    /// (per payment, per instance); reads in between answer what the store holds, which a
    /// notification still updates at once. Without it, whoever holds one order's client secret
    /// could make the server spend the merchant's query quota at the provider as fast as it can
    /// read the order, one read after another. `0`: every read asks.
    public var readQueryInterval: TimeInterval = 2
    /// How often the query-fallback job looks for pending payments to ask about (each one backs
    /// off from ``queryAfter``, doubling up to ten minutes).
    public var queryInterval: Duration = .seconds(5)
    /// Where `order.paid`, `order.refunded`, `order.closed` and `order.refund_required` go.
    public var webhook: WebhookDispatcher.Endpoint?
    /// How often the webhook outbox is checked.
    public var webhookInterval: Duration = .seconds(1)
    /// How long an instance holds a job's lease or a claimed webhook before another instance
    /// sharing the database may take it over (when this one died).
    public var jobLease: TimeInterval = 120
    /// Calls in a row that find a provider down (no answer, HTTP 5xx) before its calls fail fast.
    public var breakerThreshold = 5
    /// How long a failing provider's calls fail fast before one is tried again.
    public var breakerCooldown: TimeInterval = 30
    /// How often expired unpaid orders are looked for and closed.
    public var expiryInterval: Duration = .seconds(30)
    /// Refund a payment that arrives for an order another payment already paid (the payer paid
    /// twice) without waiting for the merchant: the refund job sends it back in full. Off by
    /// default: the payment is recorded, flagged `refund_required` and announced either way.
    public var refundDuplicatesAutomatically = false
    /// How long after a failed recurring charge each retry comes (the dunning schedule): the
    /// first retry after the first delay, and so on; the last delay repeats while a
    /// subscription's `max_attempts` allows more.
    public var recurringRetryDelays: [TimeInterval] = [86_400, 3 * 86_400, 5 * 86_400]
    /// How often the recurring job looks for periods due, charges awaited and agreements pending.
    public var recurringInterval: Duration = .seconds(60)
    /// How often the refund job asks about refunds still pending (and sends the automatic ones).
    public var refundInterval: Duration = .seconds(10)
    /// How often the complaint job reads the providers' recent complaints (WeChat Pay's last 29
    /// days) for changes a notification did not bring, and announces missed deadlines.
    public var complaintInterval: Duration = .seconds(600)
    /// A refund pending this long is asked about at its provider.
    public var refundCheckAfter: TimeInterval = 30
    /// How long a request holds its `Idempotency-Key` before another may take it over (a request
    /// interrupted by a crash); renewed while the request runs.
    public var idempotencyLease: TimeInterval = 10
    /// The most connections at once from one address (`http.per_ip_connection_limit`; 0: no
    /// limit — behind a proxy, where every connection comes from the proxy, limit at the proxy).
    public var perIPConnectionLimit = 256
    /// The longest a request may take to arrive (`http.request_deadline_seconds`; 0: no limit).
    public var requestDeadlineSeconds = 30
    /// The longest an API handler may take before the caller is answered 503 `deadline_exceeded`
    /// with `Retry-After` while the work goes on under its `Idempotency-Key`
    /// (`http.handler_deadline_seconds`; 0, the default: no limit). Event streams and counter
    /// payments, which wait for the payer, are not limited.
    public var handlerDeadlineSeconds = 0
    /// Requests with the publishable key that make the server act, a minute from one payer
    /// address (`http.publishable_requests_per_minute`; 0, the default: no limit). See
    /// ``PublishableKeyThrottle``.
    public var publishableRequestsPerMinute = 0

    /// The proxies whose `X-Forwarded-For` names the payer's address (`http.trusted_proxies`);
    /// empty: the socket's peer is the payer (or the merchant's backend, which then passes
    /// `client_ip`). WeChat Pay's H5 payments check this address against the payer's phone.
    var trustedProxies = TrustedProxies()

    /// Counter payments (`wechat.barcode`, `alipay.barcode`): the request waits ``answerWithin``
    /// for the payer to confirm (querying every ``queryInterval``), then answers `pending` while
    /// the server keeps asking; at ``giveUpAfter`` the payment is reversed (WeChat Pay) or
    /// cancelled (Alipay), which also returns money that arrived too late.
    public struct BarcodeSettings: Sendable, Equatable {
        public var answerWithin: TimeInterval = 15
        public var giveUpAfter: TimeInterval = 60
        public var queryInterval: TimeInterval = 3
        public init() {}
    }

    public var barcode = BarcodeSettings()

    /// Who may read `/metrics` (payment volumes by provider and outcome).
    public enum MetricsAccess: Sendable, Equatable {
        /// Not served on the API's port (the default): read it from ``metricsListen`` instead.
        case closed
        /// `Authorization: Bearer <token>` (`metrics.token_env` / `metrics.token_file`).
        case token(String)
        /// Anyone who reaches the port: sandbox mode and tests only.
        case open
    }

    /// The certificates the configuration names (the WeChat Pay API certificate, Apple Pay's
    /// processing and merchant identity certificates, …) with when each ends: `/metrics` reports
    /// their days left as `cashier_certificate_expiry_days{certificate="…"}`. ``ConfigurationFile``
    /// fills it; WeChat Pay v3's downloaded platform certificates are reported beside them.
    public var certificates: [MonitoredCertificate] = []

    /// `/metrics` on the API's port.
    public var metricsAccess = MetricsAccess.closed
    /// A second listening address (`metrics.listen`, e.g. `127.0.0.1:9464`) that serves `/metrics`
    /// alone, without a token: for a scraper on the machine or a private network.
    public var metricsListen: (host: String, port: UInt16)?

    public init(
        secretKey: String, publishableKey: String, publicBaseURL: String? = nil, wechat: WeChat? = nil, alipay: Alipay? = nil,
        applePay: ApplePay? = nil
    ) {
        self.secretKey = secretKey
        self.publishableKey = publishableKey
        self.publicBaseURL = publicBaseURL
        self.wechat = wechat
        self.alipay = alipay
        self.applePay = applePay
    }

    /// A fresh pair of API keys.
    public static func generateKeys() -> (secret: String, publishable: String) {
        ("sk_" + SecureRandom.alphanumeric(count: 32), "pk_" + SecureRandom.alphanumeric(count: 32))
    }
}

public typealias ApplePayNetwork = ApplePay.PaymentRequest.Network
public typealias ApplePayDecrypter = ApplePay.TokenDecrypter
public typealias ApplePayProcessor = ApplePay.PaymentProcessor
public typealias ApplePayTokenVerifier = ApplePay.TokenVerifier
public typealias ApplePayMerchantValidator = ApplePay.MerchantValidator
public typealias ApplePayContactField = ApplePay.PaymentRequest.ContactField
