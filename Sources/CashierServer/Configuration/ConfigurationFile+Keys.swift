import Cashier
import Foundation

extension ConfigurationFile {
    /// What a key of the file holds: a value the readers check, an object of further keys, or a
    /// list of such objects.
    indirect enum Shape: Sendable {
        case value
        case object([String: Shape])
        case objects([String: Shape])

        /// An object's keys: plain `values`, `secrets` (each as `name`, `name_env` and `name_file`:
        /// the bare name is known so that its reader can say why a secret is not written in the
        /// file) and nested shapes.
        static func keys(_ values: [String], secrets: [String] = [], _ nested: [String: Shape] = [:]) -> [String: Shape] {
            var keys = nested
            for name in values { keys[name] = .value }
            for name in secrets {
                for key in [name, name + "_env", name + "_file"] { keys[key] = .value }
            }
            return keys
        }
    }

    /// Every key `cashier serve --config` reads. A key not here is a mistake the merchant should
    /// hear about at start (a misspelt `webhook` would otherwise leave webhooks silently off);
    /// a key starting with `_` is a comment. `ConfigurationFileKeysTests` checks that every key
    /// the readers name is listed.
    static let knownKeys: [String: Shape] = {
        let wechat = Shape.keys(
            [
                "appid", "mch_id", "base_url", "api_certificate_file", "api_certificate_key_file", "cross_border_currencies",
                "papay_plan_id",
            ],
            secrets: ["api_key"], ["h5_site": .object(Shape.keys(["url", "name"]))])
        let wechatV3 = Shape.keys(
            [
                "appid", "mch_id", "certificate_serial", "base_url", "platform_public_key_file", "platform_public_key_id",
                "cross_border_currencies", "complaint_notifications", "complaint_polling", "certificate_file",
            ], secrets: ["private_key", "api_v3_key"])
        let alipay = Shape.keys(["app_id", "alipay_public_key_file", "gateway", "seller_id"], secrets: ["private_key"])
        let applePay = Shape.keys(
            [
                "merchant_identifier", "country_code", "display_name", "supported_networks", "root_ca_file",
                "processing_certificate_file", "processor", "capture", "domain_association_file", "shipping_countries",
                "required_billing_contact_fields", "required_shipping_contact_fields",
            ], secrets: ["processing_key"],
            [
                "stripe": .object(Shape.keys(["base_url"], secrets: ["secret_key", "webhook_secret"])),
                "adyen": .object(
                    Shape.keys(
                        ["merchant_account", "base_url", "environment", "live_endpoint_prefix", "report_base_url"],
                        secrets: ["api_key", "report_api_key", "hmac_key"])),
                "web": .object(Shape.keys(["domain", "identity_certificate_file", "identity_key_file"])),
                "shipping_methods": .objects(Shape.keys(["identifier", "label", "detail", "amount"])),
            ])
        return Shape.keys(
            [
                "public_base_url", "publishable_key", "port", "database", "database_pool_size", "database_writers", "catalog_file",
                "wechat_default_api", "time_zone", "refund_duplicates_automatically",
            ], secrets: ["secret_key"],
            [
                "wechat": .object(wechat), "wechat_v3": .object(wechatV3), "alipay": .object(alipay),
                "miniprogram": .object(Shape.keys(["appid", "base_url"], secrets: ["secret"])),
                "official_account": .object(Shape.keys(["appid", "base_url", "authorize_url"], secrets: ["secret"])),
                "service_provider": .object(["wechat": .object(wechat), "wechat_v3": .object(wechatV3), "alipay": .object(alipay)]),
                "merchants": .objects(
                    Shape.keys(
                        ["id", "name", "wechat_sub_mch_id", "wechat_sub_appid", "alipay_app_id"], secrets: ["alipay_app_auth_token"])),
                "applepay": .object(applePay), "unionpay": .object(unionpayKeys),
                "coupons": .objects(Shape.keys(["code", "label", "percent_off", "amount_off", "expires_at"])),
                "checkout": .object(Shape.keys(["return_origins", "methods"])),
                "webhook": .object(Shape.keys(["url", "concurrency"], secrets: ["secret"])),
                "jobs": .object(
                    Shape.keys([
                        "query_after_seconds", "query_interval_seconds", "expiry_interval_seconds", "webhook_interval_seconds",
                        "lease_seconds", "refund_interval_seconds", "refund_check_after_seconds", "idempotency_lease_seconds",
                        "read_query_interval_seconds", "complaint_interval_seconds",
                    ])),
                "http": .object(
                    Shape.keys([
                        "per_ip_connection_limit", "request_deadline_seconds", "handler_deadline_seconds",
                        "publishable_requests_per_minute", "trusted_proxies",
                    ])),
                "metrics": .object(Shape.keys(["listen"], secrets: ["token"])),
                "barcode": .object(Shape.keys(["answer_within_seconds", "give_up_after_seconds", "query_interval_seconds"])),
                "recurring": .object(Shape.keys(["retry_after_hours", "interval_seconds"])),
            ])
    }()

    /// Checks that `object` holds only keys `known` names, and that the keys holding objects or
    /// lists of objects do. - Throws: ``Problem`` naming the first key that is not a setting,
    /// with the one it was probably meant to be.
    static func checkKeys(_ object: Object, _ known: [String: Shape], path: String = "") throws {
        for key in object.keys.sorted() where !key.hasPrefix("_") {
            guard let shape = known[key] else {
                throw Problem(path: path + key, reason: unknownKeyReason(key, among: known.keys))
            }
            switch shape {
            case .value: break
            case .object(let keys):
                guard let nested = object[key]?.object else {
                    throw Problem(path: path + key, reason: "must be an object")
                }
                try checkKeys(nested, keys, path: path + key + ".")
            case .objects(let keys):
                guard let list = object[key]?.array else { throw Problem(path: path + key, reason: "must be a list of objects") }
                for (index, element) in list.enumerated() {
                    guard let nested = element.object else {
                        throw Problem(path: "\(path)\(key)[\(index)]", reason: "must be an object")
                    }
                    try checkKeys(nested, keys, path: "\(path)\(key)[\(index)].")
                }
            }
        }
    }

    /// "is not a setting": with the known key closest in spelling (``KeySuggestion``), else the
    /// keys this object takes when they are few.
    static func unknownKeyReason(_ key: String, among known: Dictionary<String, Shape>.Keys) -> String {
        let comment = #"(a key starting with "_" is a comment)"#
        if let guess = KeySuggestion.closest(to: key, among: known) {
            return "is not a setting: did you mean \(guess)? \(comment)"
        }
        guard known.count <= 12 else { return "is not a setting: see the README's configuration \(comment)" }
        return "is not a setting: this object takes \(known.sorted().joined(separator: ", ")) \(comment)"
    }
}
