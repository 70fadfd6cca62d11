import ApplePay
import CashierCrypto
import CashierSandbox
import CashierServer
import Foundation
import TestSupport
import Testing

/// `cashier serve --config`: secrets from the environment or key files, every field checked,
/// and each mistake reported with its path.
@Suite struct ConfigurationFileTests {
    struct Folder {
        let url: URL
        init() throws {
            url = Scratch.url("cashier-config-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        func write(_ text: String, _ name: String) throws {
            try text.write(to: url.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        func config(_ object: [String: Any]) throws -> URL {
            let file = url.appendingPathComponent("cashier.json")
            try JSONSerialization.data(withJSONObject: object).write(to: file)
            return file
        }
    }

    static let environment = [
        "CASHIER_SECRET_KEY": "sk_" + String(repeating: "a", count: 32), "WECHAT_API_KEY": String(repeating: "k", count: 32),
        "HOOK_SECRET": "whsec_x", "WECHAT_API_V3_KEY": String(repeating: "v", count: 32), "MINI_SECRET": "mini-secret",
        "STRIPE_SECRET_KEY": "sk_test_config", "ADYEN_API_KEY": "AQE_config",
    ]

    func full(_ folder: Folder) throws -> [String: Any] {
        let alipayApp = TestKeys.rsa(0)
        let alipay = TestKeys.rsa(1)
        try folder.write(alipayApp.pemRepresentation, "alipay-app.pem")
        try folder.write(alipay.publicKey.pemRepresentation, "alipay.pem")
        let ca = try ApplePayTestCA()
        let merchant = try ca.issueMerchantKey(merchantIdentifier: "merchant.com.example")
        try folder.write(merchant.certificate.pemRepresentation, "apple.pem")
        guard case .p256(let key) = merchant.privateKey else { throw CocoaError(.featureUnsupported) }
        try folder.write(key.pemRepresentation, "apple.key")
        try folder.write(alipayApp.pemRepresentation, "apiclient_key.pem")
        try folder.write(alipay.publicKey.pemRepresentation, "pub_key.pem")
        try folder.write(#"{"currency":"CNY","items":{"latte":{"label":"Latte","amount":"12.75"}}}"#, "catalog.json")
        return [
            "wechat_v3": [
                "appid": "wx1", "mch_id": "1230000109", "certificate_serial": "5157F09EFDC096DE15EBE81A47057A7232F1B8E1",
                "private_key_file": "apiclient_key.pem", "api_v3_key_env": "WECHAT_API_V3_KEY", "platform_public_key_file": "pub_key.pem",
                "platform_public_key_id": "PUB_KEY_ID_0114232134912410000000000000",
            ],
            "miniprogram": ["appid": "wxmini", "secret_env": "MINI_SECRET"], "wechat_default_api": "v3", "catalog_file": "catalog.json",
            "public_base_url": "https://pay.example.com/", "port": 8443, "database": "/var/lib/cashier.db",
            "secret_key_env": "CASHIER_SECRET_KEY", "publishable_key": "pk_live_123",
            "wechat": ["appid": "wx1", "mch_id": "1230000109", "api_key_env": "WECHAT_API_KEY"],
            "alipay": ["app_id": "2021", "private_key_file": "alipay-app.pem", "alipay_public_key_file": "alipay.pem"],
            "applepay": [
                "merchant_identifier": "merchant.com.example", "country_code": "CN", "display_name": "Example",
                "supported_networks": ["chinaUnionPay", "visa"], "processor": "stripe",
                "stripe": ["secret_key_env": "STRIPE_SECRET_KEY"], "capture": "manual", "domain_association_file": "catalog.json",
                "shipping_methods": [["identifier": "std", "label": "Standard", "amount": "0.00"]],
                "required_shipping_contact_fields": ["postalAddress", "phone"], "shipping_countries": ["CN", "HK"],
            ],
            "coupons": [["code": "WELCOME10", "label": "10% off", "percent_off": 10]],
            "official_account": ["secret_env": "MINI_SECRET"],
            "checkout": [
                "return_origins": ["https://Shop.Example.com:443", "http://localhost:3000/"], "methods": ["wechat.native", "applepay"],
            ],
            "webhook": ["url": "https://shop.example.com/hooks", "secret_env": "HOOK_SECRET"],
        ]
    }

    @Test func aCompleteFileConfiguresEveryProvider() throws {
        let folder = try Folder()
        let parsed = try ConfigurationFile(contentsOf: try folder.config(try full(folder)), environment: Self.environment)
        #expect(parsed.port == 8443 && parsed.database == "/var/lib/cashier.db")
        #expect(parsed.databasePoolSize == 10 && parsed.databaseWriters == 2)  // the defaults
        #expect(parsed.configuration.publicBaseURL == "https://pay.example.com")
        #expect(parsed.configuration.wechat?.merchant.mchID == "1230000109" && parsed.configuration.alipay?.appID == "2021")
        #expect(parsed.configuration.applePay?.supportedNetworks == [.chinaUnionPay, .visa])
        #expect(parsed.configuration.webhook?.secret == "whsec_x" && parsed.configuration.webhook?.concurrency == 16)
        #expect(parsed.configuration.wechatV3?.platformKeys.serials == ["PUB_KEY_ID_0114232134912410000000000000"])
        #expect(parsed.configuration.miniProgram?.secret == "mini-secret" && parsed.configuration.defaultWeChatAPI == .v3)
        #expect(parsed.configuration.catalog?.entries["latte"]?.price.minorUnits == 1275)
        let apple = try #require(parsed.configuration.applePay)
        #expect(apple.processor is ApplePay.StripeProcessor && apple.decrypter == nil && apple.capture == .manual)
        #expect(apple.shippingMethods.map(\.identifier) == ["std"] && apple.requiredShippingContactFields == [.postalAddress, .phone])
        #expect(apple.shippingCountries == ["CN", "HK"] && apple.domainAssociation?.contains("latte") == true)
        #expect(parsed.configuration.coupons.map(\.code) == ["WELCOME10"])
        // The official account defaults to the WeChat appid; return origins are normalised.
        #expect(parsed.configuration.officialAccount?.appID == "wx1" && parsed.configuration.officialAccount?.secret == "mini-secret")
        #expect(parsed.configuration.checkout.returnOrigins == ["https://shop.example.com", "http://localhost:3000"])
        #expect(parsed.configuration.checkout.methods == [.wechatNative, .applePay])
    }

    @Test func serviceProviderAndSubMerchantsAreReadAndChecked() throws {
        let folder = try Folder()
        var root = try full(folder)
        root["service_provider"] = [
            "wechat": ["appid": "wxsp", "mch_id": "1900000100", "api_key_env": "WECHAT_API_KEY"],
            "alipay": ["app_id": "2021isv", "private_key_file": "alipay-app.pem", "alipay_public_key_file": "alipay.pem"],
        ]
        root["merchants"] = [
            [
                "id": "north", "name": "North Street", "wechat_sub_mch_id": "1900000109", "alipay_app_id": "2021north",
                "alipay_app_auth_token_env": "NORTH_TOKEN",
            ],
            ["id": "south", "wechat_sub_mch_id": "1900000110", "wechat_sub_appid": "wxsouth"],
        ]
        var environment = Self.environment
        environment["NORTH_TOKEN"] = "202612BBnorth"
        let parsed = try ConfigurationFile(contentsOf: try folder.config(root), environment: environment)
        #expect(parsed.configuration.serviceProvider?.wechat?.merchant.mchID == "1900000100")
        #expect(parsed.configuration.serviceProvider?.alipay?.appID == "2021isv")
        #expect(parsed.configuration.subMerchants.map(\.id) == ["north", "south"])
        #expect(parsed.configuration.subMerchants[0].alipayAppAuthToken == "202612BBnorth")
        #expect(parsed.configuration.subMerchants[1].wechatSubAppID == "wxsouth" && parsed.configuration.subMerchants[1].name == "south")
        func problem(_ merchants: Any, provider: Bool = true) throws -> String {
            var broken = root
            broken["merchants"] = merchants
            if !provider { broken["service_provider"] = nil }
            do {
                _ = try ConfigurationFile(contentsOf: try folder.config(broken), environment: environment)
                return "accepted"
            } catch let problem as ConfigurationFile.Problem {
                return problem.path
            }
        }
        #expect(try problem([["id": "North!", "wechat_sub_mch_id": "1"]]) == "merchants[0].id")
        #expect(try problem([["id": "a", "wechat_sub_mch_id": "1"], ["id": "a", "wechat_sub_mch_id": "2"]]) == "merchants[1].id")
        #expect(try problem([["id": "a"]]) == "merchants[0].wechat_sub_mch_id")
        #expect(try problem([["id": "a", "alipay_app_auth_token_env": "NORTH_TOKEN"]]) == "merchants[0].alipay_app_id")
        #expect(try problem([["id": "a", "alipay_app_auth_token": "inline"]]) == "merchants[0].alipay_app_auth_token")
        #expect(try problem([["id": "a", "wechat_sub_mch_id": "1"]], provider: false) == "merchants")
    }

    @Test func checkoutSettingsAreChecked() throws {
        let folder = try Folder()
        let good = try full(folder)
        func problem(_ checkout: Any) throws -> String {
            var object = good
            object["checkout"] = checkout
            do {
                _ = try ConfigurationFile(contentsOf: try folder.config(object), environment: Self.environment)
                return "accepted"
            } catch let problem as ConfigurationFile.Problem {
                return problem.description
            }
        }
        #expect(try problem(["return_origins": ["https://shop.example.com/return"]]).contains("is not an origin"))
        #expect(try problem(["return_origins": ["javascript:alert(1)"]]).contains("checkout.return_origins"))
        #expect(try problem(["return_origins": "https://shop.example.com"]).contains("must be a list of origins"))
        #expect(try problem(["methods": ["wechat.app"]]).contains("'wechat.app' is not a method a web page can start"))
        #expect(try problem(["return_origins": ["https://shop.example.com"]]) == "accepted")
    }

    /// The sandbox processor authorises without moving money: outside sandbox mode it never
    /// starts, and the message says what to configure instead.
    @Test func theSandboxProcessorIsRefusedAndEachProcessorIsChecked() throws {
        let folder = try Folder()
        let good = try full(folder)
        func problem(_ apple: [String: Any], environment: [String: String] = Self.environment) throws -> String {
            var object = good
            object["applepay"] = (good["applepay"] as? [String: Any] ?? [:]).merging(apple) { $1 }
            do {
                _ = try ConfigurationFile(contentsOf: try folder.config(object), environment: environment)
                return "accepted"
            } catch let problem as ConfigurationFile.Problem {
                return problem.description
            }
        }
        let sandbox = try problem(["processor": "sandbox"])
        #expect(sandbox.contains("applepay.processor") && sandbox.contains("only in sandbox mode") && sandbox.contains("stripe"))
        #expect(try problem(["stripe": ["secret_key_env": "NOPE"]]).contains("applepay.stripe.secret_key_env: NOPE is not set"))
        #expect(try problem(["stripe": ["secret_key": "sk_test_inline"]]).contains("secrets are not written in the file"))
        #expect(
            try problem(["stripe": ["secret_key_env": "ADYEN_API_KEY"]]).contains("applepay.stripe.secret_key: is not a Stripe secret key"))
        #expect(try problem(["processor": "adyen", "adyen": ["api_key_env": "ADYEN_API_KEY"]]).contains("applepay.adyen.merchant_account"))
        #expect(
            try problem([
                "processor": "adyen", "adyen": ["api_key_env": "ADYEN_API_KEY", "merchant_account": "Shop", "environment": "live"],
            ])
            .contains("live_endpoint_prefix"))
        #expect(
            try problem(["processor": "adyen", "adyen": ["api_key_env": "ADYEN_API_KEY", "merchant_account": "Shop"]]) == "accepted")
        // Adyen's webhook HMAC key: a secret (env or file), hex.
        let adyen: [String: Any] = ["api_key_env": "ADYEN_API_KEY", "merchant_account": "Shop"]
        var hexKey = Self.environment
        hexKey["ADYEN_HMAC"] = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
        var notHex = Self.environment
        notHex["ADYEN_HMAC"] = "my-webhook-password"
        let withKey = ["processor": "adyen", "adyen": adyen.merging(["hmac_key_env": "ADYEN_HMAC"]) { $1 }] as [String: Any]
        #expect(try problem(withKey, environment: hexKey) == "accepted")
        #expect(try problem(withKey, environment: notHex).contains("applepay.adyen.hmac_key: is not hex"))
        #expect(try problem(withKey).contains("applepay.adyen.hmac_key_env: ADYEN_HMAC is not set"))
        #expect(
            try problem(["processor": "adyen", "adyen": adyen.merging(["hmac_key": "44782DEF"]) { $1 }])
                .contains("secrets are not written in the file"))
        var object = good
        object["applepay"] = (good["applepay"] as? [String: Any] ?? [:]).merging(withKey) { $1 }
        let read = try ConfigurationFile(contentsOf: try folder.config(object), environment: hexKey)
        #expect(read.configuration.applePay?.adyenHMACKey == hexKey["ADYEN_HMAC"])
        // Stripe's webhook signing secret: a secret (env or file), whsec_….
        var signing = Self.environment
        signing["STRIPE_WHSEC"] = "whsec_0123456789abcdef"
        var apiKeyInstead = Self.environment
        apiKeyInstead["STRIPE_WHSEC"] = "sk_test_not_a_signing_secret"
        let stripe = ["stripe": ["secret_key_env": "STRIPE_SECRET_KEY", "webhook_secret_env": "STRIPE_WHSEC"]] as [String: Any]
        #expect(try problem(stripe, environment: signing) == "accepted")
        #expect(try problem(stripe, environment: apiKeyInstead).contains("applepay.stripe.webhook_secret: is not a webhook signing secret"))
        #expect(try problem(stripe).contains("applepay.stripe.webhook_secret_env: STRIPE_WHSEC is not set"))
        #expect(
            try problem(["stripe": ["secret_key_env": "STRIPE_SECRET_KEY", "webhook_secret": "whsec_inline"]])
                .contains("secrets are not written in the file"))
        object = good
        object["applepay"] = (good["applepay"] as? [String: Any] ?? [:]).merging(stripe) { $1 }
        #expect(
            try ConfigurationFile(contentsOf: try folder.config(object), environment: signing).configuration.applePay?.stripeWebhookSecret
                == "whsec_0123456789abcdef")
        #expect(try problem(["processor": "worldpay"]).contains("'worldpay' is not built in"))
        #expect(try problem(["capture": "later"]).contains("applepay.capture"))
        #expect(
            try problem(["shipping_methods": [["identifier": "x", "label": "X", "amount": "-1"]]]).contains("shipping_methods[0].amount"))
        #expect(try problem(["required_shipping_contact_fields": ["fax"]]).contains("'fax' is not one of"))
        #expect(try problem(["shipping_countries": ["Mars"]]).contains("applepay.shipping_countries"))
    }

    @Test func everyMistakeNamesItsField() throws {
        let folder = try Folder()
        let good = try full(folder)
        func problem(_ change: (inout [String: Any]) -> Void, environment: [String: String] = Self.environment) throws -> String {
            var object = good
            change(&object)
            do {
                _ = try ConfigurationFile(contentsOf: try folder.config(object), environment: environment)
                return "accepted"
            } catch let problem as ConfigurationFile.Problem {
                return problem.description
            }
        }
        #expect(try problem({ _ in }, environment: [:]) == "config: secret_key_env: CASHIER_SECRET_KEY is not set in the environment")
        #expect(try problem({ $0["secret_key"] = "sk_inline" }).contains("secrets are not written in the file"))
        #expect(try problem({ $0["public_base_url"] = "pay.example.com" }).contains("public_base_url"))
        #expect(try problem({ $0["publishable_key"] = "sk_oops" }) == "config: publishable_key: must start with pk_")
        #expect(
            try problem({ $0["wechat"] = ["appid": "wx1", "mch_id": "1", "api_key_env": "MISSING"] }).contains(
                "wechat.api_key_env: MISSING"))
        #expect(
            try problem({ $0["alipay"] = ["app_id": "2021", "private_key_file": "nope.pem", "alipay_public_key_file": "alipay.pem"] })
                .contains("alipay.private_key_file"))
        var apple = good["applepay"] as? [String: Any] ?? [:]
        apple["supported_networks"] = ["diners"]
        #expect(try problem({ $0["applepay"] = apple }).contains("unknown network 'diners'"))
        apple = good["applepay"] as? [String: Any] ?? [:]
        apple["processor"] = "sandbox"
        #expect(try problem({ $0["applepay"] = apple }).contains("applepay.processor"))
        #expect(try problem({ $0["coupons"] = [["code": "X", "label": "X", "percent_off": 120]] }).contains("coupons[0].percent_off"))
        #expect(try problem({ $0["port"] = 70_000 }) == "config: port: must be 0 to 65535")
        #expect(try problem({ $0["database_writers"] = 0 }) == "config: database_writers: must be 1 to 16")
        // Not a whole number: refused, not read as the default (a string, 2.5) or as 1 (`true`).
        for wrong: Any in ["8080", 8080.5, true] {
            #expect(try problem({ $0["port"] = wrong }) == "config: port: must be 0 to 65535", "\(wrong)")
            #expect(try problem({ $0["database_pool_size"] = wrong }) == "config: database_pool_size: must be 1 to 200", "\(wrong)")
        }
        #expect(
            try problem({ $0["http"] = ["per_ip_connection_limit": true] })
                == "config: http.per_ip_connection_limit: must be 0 (no limit) to 65535")
        // 0 and 1 are numbers, not booleans (Foundation on Linux says they are both).
        var counter = good
        counter["barcode"] = ["answer_within_seconds": 0, "give_up_after_seconds": 1, "query_interval_seconds": 1]
        counter["refund_duplicates_automatically"] = true
        let quick = try ConfigurationFile(contentsOf: try folder.config(counter), environment: Self.environment).configuration
        #expect(quick.barcode.answerWithin == 0 && quick.barcode.giveUpAfter == 1 && quick.barcode.queryInterval == 1)
        #expect(quick.refundDuplicatesAutomatically)
        #expect(
            try problem({ $0["barcode"] = ["give_up_after_seconds": true] })
                == "config: barcode.give_up_after_seconds: must be a number of seconds from 1.0 to 600.0")
        #expect(
            try problem({ $0["refund_duplicates_automatically"] = 1 }) == "config: refund_duplicates_automatically: must be true or false")
        for wrong: Any in [-1, 1_000_001, "60", 2.5] {
            #expect(
                try problem({ $0["http"] = ["publishable_requests_per_minute": wrong] })
                    == "config: http.publishable_requests_per_minute: must be 0 (no limit) to 1000000", "\(wrong)")
        }
        var limited = good
        limited["http"] = ["publishable_requests_per_minute": 120, "trusted_proxies": ["10.0.0.0/8"]]
        let parsed = try ConfigurationFile(contentsOf: try folder.config(limited), environment: Self.environment)
        #expect(parsed.configuration.publishableRequestsPerMinute == 120)
        #expect(
            try ConfigurationFile(contentsOf: try folder.config(good), environment: Self.environment).configuration
                .publishableRequestsPerMinute == 0)
        for wrong: Any in [0, 65, "8", 2.5] {
            #expect(
                try problem({
                    $0["webhook"] = ["url": "https://shop.example.com/hooks", "secret_env": "HOOK_SECRET", "concurrency": wrong]
                })
                    == "config: webhook.concurrency: must be a whole number of webhooks in flight at once, 1 to 64", "\(wrong)")
        }
        var v3 = good["wechat_v3"] as? [String: Any] ?? [:]
        v3["platform_public_key_id"] = nil
        #expect(try problem({ $0["wechat_v3"] = v3 }).contains("give both platform_public_key_file and platform_public_key_id"))
        v3 = good["wechat_v3"] as? [String: Any] ?? [:]
        v3["private_key_file"] = "catalog.json"
        #expect(try problem({ $0["wechat_v3"] = v3 }).contains("wechat_v3.private_key"))
        #expect(try problem({ $0["wechat_default_api"] = "v4" }).contains("wechat_default_api"))
        try folder.write(#"{"currency":"CNY","items":{"latte":{"label":"Latte","amount":"12.755"}}}"#, "bad-catalog.json")
        #expect(try problem({ $0["catalog_file"] = "bad-catalog.json" }).contains("catalog.items.latte.amount"))
        #expect(
            try problem({
                $0["wechat"] = ["appid": "wx1", "mch_id": "1", "api_key_env": "WECHAT_API_KEY", "api_certificate_file": "alipay.pem"]
            }).contains("give both api_certificate_file and api_certificate_key_file"))
        #expect(
            try problem({
                $0["wechat"] = [
                    "appid": "wx1", "mch_id": "1", "api_key_env": "WECHAT_API_KEY", "api_certificate_file": "alipay.pem",
                    "api_certificate_key_file": "missing.key",
                ]
            }).contains("wechat.api_certificate_key_file"))
    }

    /// A merchant whose endpoint cannot take sixteen requests at once says how many it can.
    /// How often reading an order may ask about a payment in doubt: 2 s unless said, 0 for every
    /// read, at most an hour.
    @Test func theReadQueryIntervalIsReadAndChecked() throws {
        let folder = try Folder()
        var root = try full(folder)
        #expect(
            try ConfigurationFile(contentsOf: try folder.config(root), environment: Self.environment).configuration.readQueryInterval == 2)
        for seconds in [0, 30] {
            root["jobs"] = ["read_query_interval_seconds": seconds]
            let parsed = try ConfigurationFile(contentsOf: try folder.config(root), environment: Self.environment)
            #expect(parsed.configuration.readQueryInterval == TimeInterval(seconds))
        }
        for wrong in [3_601, -1, 1.5, true] as [Any] {
            root["jobs"] = ["read_query_interval_seconds": wrong]
            let refused = #expect(throws: ConfigurationFile.Problem.self) {
                try ConfigurationFile(contentsOf: try folder.config(root), environment: Self.environment)
            }
            #expect(
                refused?.description == "config: jobs.read_query_interval_seconds: must be a whole number of seconds, 0 to 3600", "\(wrong)"
            )
        }
    }

    /// The file is read as JSONSerialization reads it — a byte-order mark, UTF-16, a trailing
    /// comma and `8.443e3` are accepted, as they always were — and `null` is a value given, not a
    /// key left out.
    @Test func theFileIsReadAsJSONSerializationReadsIt() throws {
        let folder = try Folder()
        let text = String(
            decoding: try JSONSerialization.data(withJSONObject: try full(folder), options: [.sortedKeys, .withoutEscapingSlashes]),
            as: UTF8.self)
        let file = folder.url.appendingPathComponent("cashier.json")
        func read(_ data: Data) throws -> String {
            try data.write(to: file)
            do {
                return "port \(try ConfigurationFile(contentsOf: file, environment: Self.environment).port)"
            } catch let problem as ConfigurationFile.Problem {
                return problem.description
            }
        }
        func read(replacing old: String, with new: String) throws -> String {
            try #require(text.contains(old))
            return try read(Data(text.replacingOccurrences(of: old, with: new).utf8))
        }
        #expect(try read(Data([0xEF, 0xBB, 0xBF]) + Data(text.utf8)) == "port 8443")
        #expect(try read(try #require(text.data(using: .utf16))) == "port 8443")
        #expect(try read(Data((text.dropLast() + ",}").utf8)) == "port 8443")
        #expect(try read(replacing: #""port":8443"#, with: #""port":8.443e3"#) == "port 8443")
        let huge = try read(replacing: #""port":8443"#, with: #""port":1e400"#)
        #expect(huge.hasPrefix("config: \(file.path): is not valid JSON: "), "\(huge)")
        #expect(try read(replacing: #""port":8443"#, with: #""port":null"#) == "config: port: must be 0 to 65535")
        #expect(
            try read(replacing: #""database":"/var/lib/cashier.db""#, with: #""database":null"#)
                == "config: database: must be a non-empty string")
        #expect(try read(replacing: #""wechat":{"#, with: #""wechat":null,"_wechat":{"#) == "config: wechat: must be an object")
    }

    @Test func theWebhookEndpointSetsHowManyDeliveriesAreInFlight() throws {
        let folder = try Folder()
        var root = try full(folder)
        root["webhook"] = ["url": "https://shop.example.com/hooks", "secret_env": "HOOK_SECRET", "concurrency": 2]
        let parsed = try ConfigurationFile(contentsOf: try folder.config(root), environment: Self.environment)
        #expect(parsed.configuration.webhook?.concurrency == 2 && parsed.configuration.webhook?.url.host == "shop.example.com")
    }
}
