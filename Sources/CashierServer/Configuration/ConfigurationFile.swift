import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierCurl
public import Foundation
import WeChatPay

/// `cashier serve --config FILE`: the merchant's real credentials, as JSON. Secrets are never
/// written in the file itself: each comes from an environment variable (`…_env`) or a key file
/// (`…_file`, relative paths from the file's folder). Every field is checked at start, and a
/// mistake is reported with its path, e.g. `wechat.api_key_env: WECHAT_API_KEY is not set`; a key
/// that is not a setting (`knownKeys`) is a mistake too, unless it starts with `_` (a comment).
///
/// ```json
/// {
///   "public_base_url": "https://pay.example.com", "port": 8080, "database": "cashier.db",
///   "secret_key_env": "CASHIER_SECRET_KEY", "publishable_key": "pk_live_…",
///   "wechat": {"appid": "wx…", "mch_id": "1230000109", "api_key_env": "WECHAT_API_KEY", "cross_border_currencies": ["HKD"],
///              "h5_site": {"url": "https://m.example.com", "name": "Example"}},
///   "wechat_v3": {"appid": "wx…", "mch_id": "1230000109", "certificate_serial": "5157F09E…", "private_key_file": "keys/apiclient_key.pem",
///                 "api_v3_key_env": "WECHAT_API_V3_KEY", "platform_public_key_file": "keys/pub_key.pem",
///                 "platform_public_key_id": "PUB_KEY_ID_…"},
///   "miniprogram": {"appid": "wx…", "secret_env": "WECHAT_MINIPROGRAM_SECRET"}, "wechat_default_api": "v3",
///   "official_account": {"appid": "wx…", "secret_env": "WECHAT_OFFICIAL_ACCOUNT_SECRET"},
///   "checkout": {"return_origins": ["https://shop.example.com"], "methods": ["wechat.native", "wechat.h5", "wechat.jsapi",
///                "alipay.page", "alipay.wap", "applepay"]},
///   "alipay": {"app_id": "2021…", "private_key_file": "keys/alipay-app.pem", "alipay_public_key_file": "keys/alipay.pem"},
///   "applepay": {"merchant_identifier": "merchant.com.example", "country_code": "CN", "display_name": "Example",
///                "supported_networks": ["chinaUnionPay", "visa"], "processor": "stripe",
///                "stripe": {"secret_key_env": "STRIPE_SECRET_KEY"}, "capture": "automatic",
///                (or "processor": "adyen", "adyen": {"api_key_env": "ADYEN_API_KEY", "merchant_account": "Shop",
///                 "environment": "live", "live_endpoint_prefix": "1797a841fbb37ca7-AdyenDemo", "report_api_key_env": "ADYEN_REPORT_KEY",
///                 "hmac_key_env": "ADYEN_HMAC_KEY"})
///                "domain_association_file": "apple-developer-merchantid-domain-association",
///                "web": {"domain": "shop.example.com", "identity_certificate_file": "keys/apple-identity.pem",
///                        "identity_key_file": "keys/apple-identity.key"},
///                "shipping_methods": [{"identifier": "standard", "label": "Standard", "detail": "3-5 days", "amount": "0.00"}],
///                "required_shipping_contact_fields": ["postalAddress", "name", "phone"]},
///   "unionpay": {"mer_id": "777290058110048", "sign_pfx_file": "keys/acp_sign.pfx", "sign_pfx_password_env": "UNIONPAY_PFX_PASSWORD",
///                "root_cert_file": "keys/acp_prod_root.cer", "middle_cert_file": "keys/acp_prod_middle.cer"},
///   "coupons": [{"code": "WELCOME10", "label": "Welcome 10% off", "percent_off": 10}, {"code": "FIVE", "label": "5 off", "amount_off": "5.00"}],
///   "catalog_file": "catalog.json", "database_pool_size": 10, "database_writers": 2, "time_zone": "Asia/Shanghai",
///   "http": {"per_ip_connection_limit": 256, "request_deadline_seconds": 30, "trusted_proxies": ["127.0.0.1", "10.0.0.0/8"],
///            "publishable_requests_per_minute": 60},
///   "barcode": {"answer_within_seconds": 15, "give_up_after_seconds": 60, "query_interval_seconds": 3},
///   "service_provider": {"wechat": {…as wechat…}, "wechat_v3": {…as wechat_v3…}, "alipay": {…as alipay…}},
///   "merchants": [{"id": "north", "name": "North Street", "wechat_sub_mch_id": "1900000109",
///                  "alipay_app_id": "2021…", "alipay_app_auth_token_env": "NORTH_ALIPAY_APP_AUTH_TOKEN"}],
///   "metrics": {"token_env": "CASHIER_METRICS_TOKEN", "listen": "127.0.0.1:9464"},
///   "jobs": {"query_after_seconds": 10, "query_interval_seconds": 5, "expiry_interval_seconds": 30,
///            "webhook_interval_seconds": 1, "lease_seconds": 120, "refund_interval_seconds": 10,
///            "refund_check_after_seconds": 30, "idempotency_lease_seconds": 10},
///   "refund_duplicates_automatically": false,
///   "webhook": {"url": "https://shop.example.com/hooks/cashier", "secret_env": "CASHIER_WEBHOOK_SECRET",
///               "concurrency": 16}
/// }
/// ```
public struct ConfigurationFile: Sendable {
    public let configuration: MerchantConfiguration
    public let port: UInt16
    public let database: String
    /// PostgreSQL connections this instance keeps for reads (`database_pool_size`, default 10).
    public let databasePoolSize: Int
    /// PostgreSQL connections that group-commit this instance's writes (`database_writers`, default 2).
    public let databaseWriters: Int

    /// A configuration problem: `path` names the field.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let reason: String
        public var description: String { "config: \(path): \(reason)" }
    }

    /// An object of the file: its members by name.
    typealias Object = [String: JSONReader.Value]

    /// Reads and checks the file. - Throws: ``Problem`` naming the first wrong field.
    public init(contentsOf url: URL, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let reader = Reader(folder: url.deletingLastPathComponent(), environment: environment)
        try self.init(try Self.root(contentsOf: url), reader)
    }

    /// The file's object, read by `JSONSerialization` (``UserFile/jsonObject(_:)``: the files it
    /// accepts — a trailing comma, a byte-order mark, UTF-16 — and its words for the others, with
    /// the line and column, are what merchants have been given) and walked as a typed value.
    /// - Throws: ``Problem`` naming the file when it cannot be read or is not a JSON object.
    static func root(contentsOf url: URL) throws -> Object {
        let parsed: JSONReader.Value?
        do {
            parsed = JSONReader.Value(jsonObject: try UserFile.jsonObject(url.path))
        } catch {
            throw Problem(path: url.path, reason: error.reason)
        }
        // JSONSerialization gives nothing a value cannot hold: this guard never refuses.
        guard let root = parsed?.object else {
            throw Problem(path: url.path, reason: "holds JSON that is not an object (it must start with {)")
        }
        return root
    }

    struct Reader {
        let folder: URL
        let environment: [String: String]

        func string(_ object: Object, _ key: String, _ path: String, required: Bool = true) throws -> String? {
            guard let value = object[key] else {
                if required { throw Problem(path: path + key, reason: "is missing") }
                return nil
            }
            guard let text = value.string, !text.isEmpty else { throw Problem(path: path + key, reason: "must be a non-empty string") }
            return text
        }

        /// A whole number within `range`, when given: "must be a whole number of `unit`, a to b" otherwise.
        func wholeNumber(_ object: Object, _ key: String, _ path: String, of unit: String, in range: ClosedRange<Int>) throws
            -> Int?
        {
            try Self.wholeNumber(
                object, key, path, in: range, reason: "must be a whole number of \(unit), \(range.lowerBound) to \(range.upperBound)")
        }

        /// A whole number within `range`, when given (not `true`, 2.5 or "8"); `reason` otherwise.
        static func wholeNumber(_ object: Object, _ key: String, _ path: String, in range: ClosedRange<Int>, reason: String)
            throws -> Int?
        {
            guard let value = object[key] else { return nil }
            guard let number = value.wholeNumber, range.contains(number) else { throw Problem(path: path + key, reason: reason) }
            return number
        }

        /// A secret from `<key>_env` (an environment variable) or `<key>_file` (a file).
        func secret(_ object: Object, _ key: String, _ path: String) throws -> String {
            if object[key] != nil {
                throw Problem(path: path + key, reason: "secrets are not written in the file: use \(key)_env or \(key)_file")
            }
            if let name = try string(object, key + "_env", path, required: false) {
                guard let value = environment[name], !value.isEmpty else {
                    throw Problem(path: path + key + "_env", reason: "\(name) is not set in the environment")
                }
                return value
            }
            if let file = try string(object, key + "_file", path, required: false) {
                return try contents(file, path + key + "_file")
            }
            throw Problem(path: path + key + "_env", reason: "is missing (or give \(key)_file)")
        }

        /// An RSA private key given as the secret `key` (see ``secret(_:_:_:)``); `reason` says
        /// which key was expected when the secret is not one.
        func rsaPrivateKey(_ object: Object, _ key: String, _ path: String, reason: String) throws -> RSAPrivateKey {
            let text = try secret(object, key, path)
            guard let privateKey = try? RSAPrivateKey(pemRepresentation: text) else { throw Problem(path: path + key, reason: reason) }
            return privateKey
        }

        func contents(_ file: String, _ path: String) throws -> String {
            let url = file.hasPrefix("/") ? URL(fileURLWithPath: file) : folder.appendingPathComponent(file)
            let data: Data
            do {
                data = try UserFile.contents(url.path)
            } catch {
                throw Problem(path: path, reason: error.description)
            }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A list of ISO 4217 codes (`["HKD", "USD"]`), empty when absent.
        func currencies(_ object: Object, _ key: String, _ path: String) throws -> Set<Currency> {
            guard let value = object[key] else { return [] }
            guard let codes = value.strings else { throw Problem(path: path + key, reason: "must be a list of ISO 4217 codes") }
            return Set(
                try codes.map { code in
                    guard let currency = try? Currency(code: code) else {
                        throw Problem(path: path + key, reason: "'\(code)' is not an ISO 4217 code (e.g. HKD)")
                    }
                    return currency
                })
        }

        func url(_ object: Object, _ key: String, _ path: String) throws -> URL? {
            guard let text = try string(object, key, path, required: false) else { return nil }
            guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw Problem(path: path + key, reason: "'\(text)' is not an http(s) URL")
            }
            return url
        }
    }

    init(_ root: Object, _ reader: Reader) throws {
        try Self.checkKeys(root, Self.knownKeys)
        let secret = try reader.secret(root, "secret_key", "")
        guard secret.hasPrefix("sk_"), secret.count >= 24 else {
            throw Problem(path: "secret_key", reason: "must start with sk_ and have at least 24 characters")
        }
        let publishable = try reader.string(root, "publishable_key", "")!
        guard publishable.hasPrefix("pk_") else { throw Problem(path: "publishable_key", reason: "must start with pk_") }
        guard let base = try reader.url(root, "public_base_url", "") else {
            throw Problem(path: "public_base_url", reason: "is missing: where the providers reach this server (https://…)")
        }
        var configuration = MerchantConfiguration(
            secretKey: secret, publishableKey: publishable,
            publicBaseURL: base.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")))
        if let wechat = root["wechat"]?.object { configuration.wechat = try Self.wechat(wechat, reader, path: "wechat.") }
        if let v3 = root["wechat_v3"]?.object { configuration.wechatV3 = try Self.wechatV3(v3, reader) }
        if let mini = root["miniprogram"]?.object {
            configuration.miniProgram = .init(
                appID: try reader.string(mini, "appid", "miniprogram.")!, secret: try reader.secret(mini, "secret", "miniprogram."),
                baseURL: try reader.url(mini, "base_url", "miniprogram.") ?? WeChatPay.MiniProgram.productionURL)
        }
        if let account = root["official_account"]?.object {
            guard
                let appID = try reader.string(account, "appid", "official_account.", required: false) ?? configuration.wechatV3?.appID
                    ?? configuration.wechat?.merchant.appID
            else { throw Problem(path: "official_account.appid", reason: "is missing (and no wechat appid to default to)") }
            configuration.officialAccount = .init(
                appID: appID, secret: try reader.secret(account, "secret", "official_account."),
                baseURL: try reader.url(account, "base_url", "official_account.") ?? WeChatPay.OfficialAccount.productionURL,
                authorizeURL: try reader.url(account, "authorize_url", "official_account.")
                    ?? WeChatPay.OfficialAccount.productionAuthorizeURL)
        }
        if let checkout = root["checkout"] {
            configuration.checkout = try Self.checkout(checkout)
        }
        if let api = try reader.string(root, "wechat_default_api", "", required: false) {
            guard let parsed = MerchantConfiguration.WeChatAPI(rawValue: api) else {
                throw Problem(path: "wechat_default_api", reason: "must be \"v2\" or \"v3\"")
            }
            configuration.defaultWeChatAPI = parsed
        }
        if let alipay = root["alipay"]?.object { configuration.alipay = try Self.alipay(alipay, reader, path: "alipay.") }
        try Self.merchants(root, reader, into: &configuration)
        if let applePay = root["applepay"]?.object {
            configuration.applePay = try Self.applePay(applePay, reader)
        }
        if let unionpay = root["unionpay"]?.object { configuration.unionpay = try Self.unionpay(unionpay, reader) }
        configuration.coupons = try Self.coupons(root["coupons"])
        if let file = try reader.string(root, "catalog_file", "", required: false) {
            do {
                configuration.catalog = try Catalog(json: Data(try reader.contents(file, "catalog_file").utf8))
            } catch let error as PaymentError {
                throw Problem(path: "catalog_file", reason: error.message)
            }
        }
        if let webhook = root["webhook"]?.object {
            guard let url = try reader.url(webhook, "url", "webhook.") else { throw Problem(path: "webhook.url", reason: "is missing") }
            let concurrency = try reader.wholeNumber(
                webhook, "concurrency", "webhook.", of: "webhooks in flight at once", in: WebhookDispatcher.concurrencyRange)
            configuration.webhook = .init(
                url: url, secret: try reader.secret(webhook, "secret", "webhook."),
                concurrency: concurrency ?? WebhookDispatcher.defaultConcurrency)
        }
        if let zone = try reader.string(root, "time_zone", "", required: false) {
            guard let timeZone = TimeZone(identifier: zone) else {
                throw Problem(path: "time_zone", reason: "'\(zone)' is not a time zone name such as Asia/Shanghai")
            }
            configuration.timeZone = timeZone
        }
        if let jobs = root["jobs"]?.object {
            func seconds(_ key: String, _ range: ClosedRange<Int>) throws -> Int? {
                try reader.wholeNumber(jobs, key, "jobs.", of: "seconds", in: range)
            }
            if let value = try seconds("query_after_seconds", 0...86_400) { configuration.queryAfter = TimeInterval(value) }
            if let value = try seconds("read_query_interval_seconds", 0...3_600) { configuration.readQueryInterval = TimeInterval(value) }
            if let value = try seconds("query_interval_seconds", 1...3_600) { configuration.queryInterval = .seconds(value) }
            if let value = try seconds("expiry_interval_seconds", 1...3_600) { configuration.expiryInterval = .seconds(value) }
            if let value = try seconds("webhook_interval_seconds", 1...3_600) { configuration.webhookInterval = .seconds(value) }
            if let value = try seconds("lease_seconds", 1...3_600) { configuration.jobLease = TimeInterval(value) }
            if let value = try seconds("refund_interval_seconds", 1...3_600) { configuration.refundInterval = .seconds(value) }
            if let value = try seconds("refund_check_after_seconds", 0...86_400) { configuration.refundCheckAfter = TimeInterval(value) }
            if let value = try seconds("idempotency_lease_seconds", 1...3_600) { configuration.idempotencyLease = TimeInterval(value) }
            if let value = try seconds("complaint_interval_seconds", 60...86_400) { configuration.complaintInterval = .seconds(value) }
        }
        if let value = root["refund_duplicates_automatically"] {
            guard let flag = value.bool else {
                throw Problem(path: "refund_duplicates_automatically", reason: "must be true or false")
            }
            configuration.refundDuplicatesAutomatically = flag
        }
        try Self.http(root, into: &configuration)
        try Self.metrics(root, reader, into: &configuration)
        try Self.barcode(root, into: &configuration)
        try Self.recurring(root, into: &configuration)
        // The certificates whose days left /metrics reports (cashier doctor checks them further).
        configuration.certificates = Doctor.certificates(root, reader)
        self.port = UInt16(try Reader.wholeNumber(root, "port", "", in: 0...65_535, reason: "must be 0 to 65535") ?? 8080)
        self.configuration = configuration
        (database, databasePoolSize, databaseWriters) = try Self.databaseFields(root, reader)
    }

    /// `recurring`: the dunning schedule (`retry_after_hours`, a list of 1 to 10 delays of 1 to
    /// 720 hours) and how often the recurring job runs (`interval_seconds`, 1 to 3600).
    static func recurring(_ root: Object, into configuration: inout MerchantConfiguration) throws {
        guard let recurring = root["recurring"]?.object else { return }
        if let value = recurring["retry_after_hours"] {
            guard let list = value.array, (1...10).contains(list.count) else {
                throw Problem(
                    path: "recurring.retry_after_hours", reason: "must be a list of 1 to 10 whole numbers of hours, such as [24, 72, 120]")
            }
            configuration.recurringRetryDelays = try list.map { item in
                guard let hours = item.wholeNumber, (1...720).contains(hours) else {
                    throw Problem(path: "recurring.retry_after_hours", reason: "each delay must be 1 to 720 hours")
                }
                return TimeInterval(hours) * 3_600
            }
        }
        if let seconds = try Reader.wholeNumber(recurring, "interval_seconds", "recurring.", in: 1...3_600, reason: "must be 1 to 3600") {
            configuration.recurringInterval = .seconds(seconds)
        }
    }

    /// `database` (default `cashier.db`), `database_pool_size` (10) and `database_writers` (2).
    static func databaseFields(_ root: Object, _ reader: Reader) throws -> (location: String, poolSize: Int, writers: Int) {
        func number(_ key: String, _ range: ClosedRange<Int>) throws -> Int? {
            try Reader.wholeNumber(root, key, "", in: range, reason: "must be \(range.lowerBound) to \(range.upperBound)")
        }
        return (
            try reader.string(root, "database", "", required: false) ?? "cashier.db", try number("database_pool_size", 1...200) ?? 10,
            try number("database_writers", 1...16) ?? 2
        )
    }

    /// The database a configuration file names and its pool size, read with the server's checks
    /// (every key a setting, `database` a non-empty string) but not its credentials: what a
    /// command that only needs the database (`cashier keys --config`) opens — the one
    /// `serve --config` would, never a default beside it because of a typo.
    /// - Throws: ``Problem`` naming the first wrong field.
    /// The ids of the file's sub-merchants (`merchants[].id`), read without its secrets: what
    /// `cashier keys create --merchant` is checked against.
    public static func merchantIDs(contentsOf url: URL) throws -> [String] {
        let root = try Self.root(contentsOf: url)
        try checkKeys(root, knownKeys)
        guard let value = root["merchants"] else { return [] }
        guard let list = value.objects else { throw Problem(path: "merchants", reason: "must be a list of objects") }
        return list.compactMap { $0["id"]?.string }
    }

    public static func database(contentsOf url: URL) throws -> (location: String, poolSize: Int) {
        let root = try Self.root(contentsOf: url)
        try checkKeys(root, knownKeys)
        let fields = try databaseFields(root, Reader(folder: url.deletingLastPathComponent(), environment: [:]))
        return (fields.location, fields.poolSize)
    }

    /// `http`: the limits on what clients may hold (`per_ip_connection_limit`, `request_deadline_seconds`, `handler_deadline_seconds`,
    /// `publishable_requests_per_minute`) and the proxies whose `X-Forwarded-For` is believed.
    static func http(_ root: Object, into configuration: inout MerchantConfiguration) throws {
        guard let value = root["http"] else { return }
        guard let http = value.object else { throw Problem(path: "http", reason: "must be an object") }
        func number(_ key: String, _ range: ClosedRange<Int>, zero: String) throws -> Int? {
            try Reader.wholeNumber(http, key, "http.", in: range, reason: "must be 0 (\(zero)) to \(range.upperBound)")
        }
        if let limit = try number("per_ip_connection_limit", 0...65_535, zero: "no limit") { configuration.perIPConnectionLimit = limit }
        if let deadline = try number("request_deadline_seconds", 0...3600, zero: "no deadline") {
            configuration.requestDeadlineSeconds = deadline
        }
        if let deadline = try number("handler_deadline_seconds", 0...3600, zero: "no deadline") {
            configuration.handlerDeadlineSeconds = deadline
        }
        if let rate = try number("publishable_requests_per_minute", 0...1_000_000, zero: "no limit") {
            configuration.publishableRequestsPerMinute = rate
        }
        if let proxies = http["trusted_proxies"] {
            guard let list = proxies.strings else {
                throw Problem(path: "http.trusted_proxies", reason: "must be a list of IP addresses or CIDR blocks")
            }
            do {
                configuration.trustedProxies = try TrustedProxies(parsing: list)
            } catch let problem as RequestProblem {
                throw Problem(path: "http.trusted_proxies", reason: problem.message)
            }
        }
    }

    /// `barcode`: how long a counter payment (`wechat.barcode`, `alipay.barcode`) is waited for.
    static func barcode(_ root: Object, into configuration: inout MerchantConfiguration) throws {
        guard let value = root["barcode"] else { return }
        guard let barcode = value.object else { throw Problem(path: "barcode", reason: "must be an object") }
        func seconds(_ key: String, _ range: ClosedRange<Double>) throws -> TimeInterval? {
            guard let given = barcode[key] else { return nil }
            guard let number = given.double, range.contains(number) else {
                throw Problem(path: "barcode." + key, reason: "must be a number of seconds from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        var settings = configuration.barcode
        if let answer = try seconds("answer_within_seconds", 0...120) { settings.answerWithin = answer }
        if let giveUp = try seconds("give_up_after_seconds", 1...600) { settings.giveUpAfter = giveUp }
        if let interval = try seconds("query_interval_seconds", 0.05...60) { settings.queryInterval = interval }
        guard settings.answerWithin <= settings.giveUpAfter else {
            throw Problem(path: "barcode.answer_within_seconds", reason: "must not be longer than give_up_after_seconds")
        }
        configuration.barcode = settings
    }

    /// `metrics`: `token_env` / `token_file` (a bearer token for `/metrics` on the API's port)
    /// and/or `listen` (`host:port`, a second address serving `/metrics` alone). Without either,
    /// `/metrics` is not served: payment volumes are not for whoever the proxy forwards.
    static func metrics(_ root: Object, _ reader: Reader, into configuration: inout MerchantConfiguration) throws {
        guard let value = root["metrics"] else { return }
        guard let metrics = value.object else { throw Problem(path: "metrics", reason: "must be an object") }
        if metrics["token"] != nil || metrics["token_env"] != nil || metrics["token_file"] != nil {
            let token = try reader.secret(metrics, "token", "metrics.")
            guard token.count >= 16 else { throw Problem(path: "metrics.token", reason: "must have at least 16 characters") }
            configuration.metricsAccess = .token(token)
        }
        if let listen = try reader.string(metrics, "listen", "metrics.", required: false) {
            guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]), port > 0 else {
                throw Problem(path: "metrics.listen", reason: "'\(listen)' is not host:port (e.g. 127.0.0.1:9464)")
            }
            configuration.metricsListen = (String(listen[..<colon]), port)
        }
    }

    /// `[{"code", "label", "percent_off": 1…100 | "amount_off": "5.00", "expires_at": "2027-01-01T00:00:00Z"}]`.
    /// `"checkout": {"return_origins": ["https://shop.example.com"], "methods": ["wechat.native", "alipay.page"]}`.
    static func checkout(_ value: JSONReader.Value) throws -> CheckoutSettings {
        guard let object = value.object else { throw Problem(path: "checkout", reason: "must be an object") }
        var origins: [String] = []
        if let given = object["return_origins"] {
            guard let list = given.strings else {
                throw Problem(path: "checkout.return_origins", reason: "must be a list of origins such as \"https://shop.example.com\"")
            }
            origins = try list.map { text in
                guard let origin = CheckoutSettings.origin(of: text), let parts = URLComponents(string: text),
                    parts.path.isEmpty || parts.path == "/", parts.query == nil, parts.fragment == nil
                else {
                    throw Problem(path: "checkout.return_origins", reason: "'\(text)' is not an origin (scheme://host[:port], no path)")
                }
                return origin
            }
        }
        var methods: Set<PaymentMethod>?
        if let given = object["methods"] {
            let names = CheckoutSettings.pageMethods.map(\.rawValue).joined(separator: ", ")
            guard let list = given.strings else { throw Problem(path: "checkout.methods", reason: "must be a list of: \(names)") }
            methods = Set(
                try list.map { name in
                    guard let method = PaymentMethod(rawValue: name), CheckoutSettings.pageMethods.contains(method) else {
                        throw Problem(path: "checkout.methods", reason: "'\(name)' is not a method a web page can start (\(names))")
                    }
                    return method
                })
        }
        return CheckoutSettings(returnOrigins: origins, methods: methods)
    }

    static func coupons(_ value: JSONReader.Value?) throws -> [Coupon] {
        guard let value else { return [] }
        guard let list = value.objects else { throw Problem(path: "coupons", reason: "must be a list of objects") }
        return try list.enumerated().map { index, object in
            let path = "coupons[\(index)]"
            guard let code = object["code"]?.string, !code.isEmpty, let label = object["label"]?.string, !label.isEmpty else {
                throw Problem(path: path, reason: "needs a code and a label")
            }
            let discount: Coupon.Discount
            switch (object["percent_off"]?.wholeNumber, object["amount_off"]?.string) {
            case (let percent?, nil):
                guard (1...100).contains(percent) else { throw Problem(path: path + ".percent_off", reason: "must be 1 to 100") }
                discount = .percentOff(percent)
            case (nil, let amount?):
                guard (try? Money(decimal: amount, currency: .cny))?.isPositive == true else {
                    throw Problem(path: path + ".amount_off", reason: "'\(amount)' is not a decimal amount more than zero (e.g. \"5.00\")")
                }
                discount = .amountOff(amount)
            default: throw Problem(path: path, reason: "give percent_off (1…100) or amount_off (\"5.00\"), not both")
            }
            var expiry: Date?
            if let text = object["expires_at"]?.string {
                guard let date = ISO8601DateFormatter().date(from: text) else {
                    throw Problem(path: path + ".expires_at", reason: "'\(text)' is not an ISO 8601 time (2027-01-01T00:00:00Z)")
                }
                expiry = date
            }
            return Coupon(code: code, label: label, discount: discount, expiresAt: expiry)
        }
    }
}
