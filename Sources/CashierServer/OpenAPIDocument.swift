import Foundation

/// The OpenAPI 3 description of the merchant API, served at `/openapi.json`. A test checks that
/// it names exactly the routes the server answers.
enum OpenAPIDocument {
    struct Operation {
        let method: String
        let path: String
        let summary: String
        /// `secret`, `either` (secret, or publishable with the client secret), `clientSecret` (secret, or the client
        /// secret alone), `provider` or `none`.
        let access: String
    }

    static let operations: [Operation] = [
        .init(method: "GET", path: "/healthz", summary: "Liveness.", access: "none"),
        .init(method: "GET", path: "/metrics", summary: "Counters in the Prometheus text format.", access: "none"),
        .init(method: "GET", path: "/openapi.json", summary: "This document.", access: "none"),
        .init(
            method: "POST", path: "/v1/orders",
            summary: "Create an order from priced items; honours Idempotency-Key (same body: same answer; other body: 409).",
            access: "secret"),
        .init(
            method: "GET", path: "/v1/orders",
            summary: "Orders, newest first: status, out_trade_no, limit (1–100), starting_after (an order id) for the next page.",
            access: "secret"),
        .init(
            method: "GET", path: "/v1/orders/{id}",
            summary: "An order with its payments and refunds; a payment pending too long is first queried at its provider.",
            access: "either"),
        .init(
            method: "POST", path: "/v1/orders/{id}/payments",
            summary: "Start a payment: wallet parameters for wechat.app, wechat.jsapi (openid), wechat.miniprogram (js_code), "
                + "wechat.native, wechat.h5 (each with api v2 or v3), alipay.app, alipay.wap or alipay.page (return_url), alipay.qr "
                + "or applepay.",
            access: "either"),
        .init(
            method: "POST", path: "/v1/orders/{id}/payments/applepay/authorize",
            summary: "Verify an Apple Pay token (and decrypt it when the server holds the processing key), authorise it at the "
                + "processor (Stripe, Adyen) with an idempotency key; answers a PKPaymentAuthorizationStatus and keeps the contacts.",
            access: "either"),
        .init(
            method: "POST", path: "/v1/orders/{id}/payments/applepay/update",
            summary: "The sheet's shipping_method, shipping_contact or coupon_code: the server reprices the unpaid order and answers "
                + "newTotal, newLineItems (and newShippingMethods, errors) for the sheet.", access: "either"),
        .init(
            method: "POST", path: "/v1/applepay/sessions",
            summary: "Apple Pay on the web: a merchant session from Apple for validation_url (Apple's hosts only, mutual TLS).",
            access: "either"),
        .init(
            method: "GET", path: "/.well-known/apple-developer-merchantid-domain-association",
            summary: "The domain-association file Apple gave the merchant (applepay.domain_association_file).", access: "none"),
        .init(
            method: "POST", path: "/v1/orders/{id}/capture",
            summary: "Capture an Apple Pay authorisation made with capture manual: all, or amount/amount_minor (the rest is released "
                + "and recorded as a refund); honours Idempotency-Key.", access: "secret"),
        .init(
            method: "POST", path: "/v1/orders/{id}/void",
            summary: "Void an uncaptured Apple Pay authorisation (recorded as a full refund); honours Idempotency-Key.",
            access: "secret"),
        .init(
            method: "POST", path: "/v1/orders/{id}/refunds",
            summary: "Refund part or all of a payment (payment: pay_…, default the one that paid the order), reserved first, never more "
                + "than it took; honours Idempotency-Key.", access: "secret"),
        .init(method: "POST", path: "/v1/orders/{id}/close", summary: "Close an unpaid order at its provider and here.", access: "secret"),
        .init(method: "GET", path: "/v1/orders/{id}/events", summary: "The order's append-only event log.", access: "secret"),
        .init(
            method: "GET", path: "/v1/orders/{id}/stream",
            summary: "The order as Server-Sent Events (text/event-stream): an `order` event at once and at every change (id: the "
                + "order's version), a comment every 15 s; ends when the order is closed or refunded, or after 5 minutes (reconnect). "
                + "Authorised by ?client_secret=… alone (an EventSource sends no headers) or the secret key.", access: "clientSecret"),
        .init(
            method: "GET", path: "/v1/reconciliations/{date}",
            summary: "Reconcile a day (YYYY-MM-DD, Beijing time): each provider's bill against the orders here.", access: "secret"),
        .init(
            method: "GET", path: "/v1/payments",
            summary: "Payment attempts, newest first: provider, method, status, from/to (days), q (id, out_trade_no, transaction id), "
                + "refund_required=true (taken twice or after closing, not yet given back), limit, starting_after.", access: "secret"),
        .init(
            method: "GET", path: "/v1/refunds",
            summary: "Refunds, newest first: provider, method, status, from/to (days), q (id, out_refund_no, out_trade_no), limit, "
                + "starting_after.", access: "secret"),
        .init(
            method: "GET", path: "/v1/exports/{file}",
            summary: "orders.csv, payments.csv or refunds.csv of what was created from from to to (YYYY-MM-DD, both included; UTF-8 "
                + "with a byte-order mark).", access: "secret"),
        .init(
            method: "GET", path: "/v1/webhooks",
            summary: "Webhook deliveries, newest first: state (delivered, failed, pending), from/to, order_id, limit, starting_after.",
            access: "secret"),
        .init(
            method: "POST", path: "/v1/webhooks/{id}/resend", summary: "Send a webhook again (same event id, signed anew).",
            access: "secret"),
        .init(
            method: "POST", path: "/v1/webhooks/resend",
            summary: "Send again every failed delivery queued from from to to (YYYY-MM-DD).", access: "secret"),
        .init(method: "POST", path: "/notify/wechat/v2", summary: "WeChat Pay API v2 payment notifications (XML).", access: "provider"),
        .init(
            method: "POST", path: "/notify/wechat/v2/refund", summary: "WeChat Pay API v2 refund results (encrypted req_info).",
            access: "provider"),
        .init(
            method: "POST", path: "/notify/wechat/v3",
            summary: "WeChat Pay API v3 notifications (signed JSON, AES-256-GCM resource): payments and refunds.", access: "provider"),
        .init(method: "POST", path: "/notify/alipay", summary: "Alipay async notifications (form).", access: "provider"),
    ]

    static func json(version: String) -> [String: Any] {
        var paths: [String: [String: Any]] = [:]
        for operation in operations {
            var entry: [String: Any] = [
                "summary": operation.summary, "responses": ["200": ["description": "OK"], "default": ["description": "An error object"]],
            ]
            switch operation.access {
            case "secret": entry["security"] = [["secretKey": [String]()]]
            case "either": entry["security"] = [["secretKey": [String]()], ["publishableKey": [String]()]]
            case "clientSecret": entry["security"] = [["secretKey": [String]()], ["clientSecret": [String]()]]
            default: entry["security"] = [[String: [String]]]()
            }
            for name in ["id", "date", "file"] where operation.path.contains("{\(name)}") {
                entry["parameters"] = [["name": name, "in": "path", "required": true, "schema": ["type": "string"]]]
            }
            paths[operation.path, default: [:]][operation.method.lowercased()] = entry
        }
        return [
            "openapi": "3.0.3",
            "info": [
                "title": "Cashier merchant API", "version": version,
                "description": "Amounts are {\"amount\": \"12.75\", \"amount_minor\": 1275, \"currency\": \"CNY\"}.",
            ],
            "paths": paths,
            "components": [
                "securitySchemes": [
                    "secretKey": ["type": "http", "scheme": "bearer", "description": "sk_… — your backend"],
                    "publishableKey": [
                        "type": "http", "scheme": "bearer", "description": "pk_… — the app, with the order's client_secret",
                    ],
                    "clientSecret": [
                        "type": "apiKey", "in": "query", "name": "client_secret",
                        "description": "The order's client secret alone: its event stream (and its checkout page, /pay/{id})",
                    ],
                ]
            ],
        ]
    }
}
