import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// The OpenAPI 3.1 description of the merchant API, served at `/openapi.json` and checked in as
/// `docs/openapi.json`. Request and response schemas are read from the Swift types the handlers
/// decode and encode (``JSONSchemaBuilder``); this list says which operation takes and answers
/// which, who may call it, and its parameters. Tests check that it names exactly the routes the
/// server answers and that the checked-in copy is what the server serves.
enum OpenAPIDocument {
    /// Who may call an operation.
    enum Access {
        /// The secret key (`sk_…`): the merchant's backend.
        case secret
        /// The secret key, or the publishable key (`pk_…`) with the order's client secret.
        case either
        /// The secret key, or the order's client secret alone (`?client_secret=`).
        case clientSecret
        /// A payment provider: the body's signature is the credential.
        case provider
        case none
    }

    /// What a request carries.
    enum Body {
        /// JSON read as `type`; `optional` when an empty body is fine; an example to show.
        case json(any Decodable.Type, optional: Bool = false, example: [String: Any]? = nil)
        /// A provider's notification: its own format; `fields`, what every one of them carries (form
        /// fields, JSON members; an XML document is text).
        case provider(contentType: String, description: String, fields: [String] = [])
    }

    /// What a response carries.
    enum Content {
        case json(any SchemaExample.Type)
        /// Any JSON object (Apple's merchant session, the sheet update).
        case anyObject(String)
        case text(contentType: String)
        /// Server-Sent Events whose `data` is `type` as JSON.
        case eventStream(event: String, data: any SchemaExample.Type)
        case empty
    }

    struct Response {
        let status: String
        let description: String
        let content: Content
        var links: [String: [String: Any]] = [:]
        var headers: [String: String] = [:]
    }

    struct Parameter {
        let name: String
        let location: String
        let schema: [String: Any]
        let description: String
        var required = false

        static func query(_ name: String, _ schema: [String: Any], _ description: String) -> Parameter {
            Parameter(name: name, location: "query", schema: schema, description: description)
        }

        /// A header the request must carry (a provider's signature).
        static func requiredHeader(_ name: String, _ description: String, pattern: String? = nil) -> Parameter {
            var schema: [String: Any] = ["type": "string", "minLength": 1]
            if let pattern { schema["pattern"] = pattern }
            return Parameter(name: name, location: "header", schema: schema, description: description, required: true)
        }
    }

    struct Operation {
        let method: String
        let path: String
        let id: String
        let tag: String
        let summary: String
        let access: Access
        var body: Body?
        var parameters: [Parameter] = []
        var responses: [Response]
        /// Honours `Idempotency-Key`.
        var idempotent = false
        /// May ask a provider, which may not answer (502, 503).
        var callsProvider = false
        /// Refused when the order is not in a state for it (409).
        var conflicts = false
    }

    // MARK: Parameters

    static var listParameters: [Parameter] {
        [
            .query(
                "limit", ["type": "integer", "minimum": RequestBounds.listLimit.lowerBound, "maximum": RequestBounds.listLimit.upperBound],
                "How many to list (default 20)."),
            .query(
                "starting_after", ["type": "string"],
                "The last id of the previous page: the page after it. An id that names no record of the list is refused (404), "
                    + "not answered with an empty page."),
        ]
    }

    static var dayRange: [Parameter] {
        [
            .query(
                "from", ["type": "string", "format": "date", "pattern": day],
                "First day (YYYY-MM-DD, the merchant's time zone), included; alone, that day on. A to before it is refused (422)."),
            .query("to", ["type": "string", "format": "date", "pattern": day], "Last day (YYYY-MM-DD), included; alone, up to that day."),
        ]
    }

    static func recordFilters(statuses: [String], search: String) -> [Parameter] {
        [
            .query("provider", ["type": "string", "enum": names(PaymentProvider.self)], "Only this provider's."),
            .query("method", ref("PaymentMethod"), "Only this method's."),
            .query("status", ["type": "string", "enum": statuses], "Only in this status."),
            .query("q", ["type": "string"], search),
        ] + dayRange + listParameters
    }

    static var orderClientSecret: Parameter {
        .query(
            "client_secret", ["type": "string"], "The order's client secret: required with the publishable key (or alone, for the stream).")
    }

    // MARK: Operations

    static func ok(_ type: any SchemaExample.Type, _ description: String = "OK", status: String = "200") -> Response {
        Response(status: status, description: description, content: .json(type))
    }

    static var orderLinks: [String: [String: Any]] {
        [
            "GetOrder": ["operationId": "getOrder", "parameters": ["id": "$response.body#/id"]],
            "StartPayment": [
                "operationId": "startPayment", "parameters": ["id": "$response.body#/id"],
                "requestBody": ["method": "wechat.native", "client_secret": "$response.body#/client_secret"],
            ],
            "RefundOrder": ["operationId": "refundOrder", "parameters": ["id": "$response.body#/id"]],
            "CloseOrder": ["operationId": "closeOrder", "parameters": ["id": "$response.body#/id"]],
            "CapturePayment": ["operationId": "capturePayment", "parameters": ["id": "$response.body#/id"]],
            "VoidPayment": ["operationId": "voidPayment", "parameters": ["id": "$response.body#/id"]],
            "ListOrderEvents": ["operationId": "listOrderEvents", "parameters": ["id": "$response.body#/id"]],
        ]
    }

    /// The query parameters each `/v1/` operation takes, and no other (the server refuses the rest),
    /// read once from ``operations``.
    static let queryParameters: [(method: String, path: String, names: Set<String>)] = operations.filter { $0.path.hasPrefix("/v1/") }
        .map { operation in
            (operation.method, operation.path, Set(operation.parameters.filter { $0.location == "query" }.map(\.name)))
        }

    static var operations: [Operation] {
        [
            Operation(
                method: "GET", path: "/healthz", id: "health", tag: "server", summary: "Liveness, and which instance answered.",
                access: .none, responses: [ok(HealthJSON.self)]),
            Operation(
                method: "GET", path: "/metrics", id: "metrics", tag: "server",
                summary: "Counters in the Prometheus text format: with the bearer token metrics.token, or on metrics.listen "
                    + "(not served here without one of them; open in sandbox mode).", access: .none,
                responses: [
                    .init(status: "200", description: "Prometheus text", content: .text(contentType: "text/plain")),
                    .init(status: "401", description: "metrics.token is configured and was not sent", content: .json(HTTPErrorBody.self)),
                    .init(
                        status: "404", description: "Neither metrics.token nor metrics.listen is configured",
                        content: .json(HTTPErrorBody.self)
                    ),
                ]),
            Operation(
                method: "GET", path: "/openapi.json", id: "openapi", tag: "server", summary: "This document.", access: .none,
                responses: [.init(status: "200", description: "OpenAPI 3.1", content: .anyObject("The OpenAPI document."))]),
            Operation(
                method: "POST", path: "/v1/orders", id: "createOrder", tag: "orders",
                summary:
                    "Create an order from priced items (secret key), or from catalog SKUs (publishable key, when a catalog is configured).",
                access: .either,
                body: .json(
                    OrderRequest.self,
                    example: [
                        "items": [["label": "Latte", "amount": "12.75", "quantity": 2]], "currency": "CNY", "description": "2 lattes",
                        "metadata": ["cart": "8812"],
                    ]),
                responses: [
                    Response(status: "201", description: "Created", content: .json(OrderJSON.self), links: orderLinks)
                ], idempotent: true),
            Operation(
                method: "GET", path: "/v1/orders", id: "listOrders", tag: "orders", summary: "Orders, newest first.", access: .secret,
                parameters: [
                    .query("status", ref("OrderStatus"), "Only orders in this status."),
                    .query("out_trade_no", ["type": "string"], "The order (or one of its payments) with this trade number."),
                ] + listParameters, responses: [ok(OrderPage.self)]),
            Operation(
                method: "GET", path: "/v1/orders/{id}", id: "getOrder", tag: "orders",
                summary: "An order with its payments and refunds; a payment pending too long is first queried at its provider.",
                access: .either, parameters: [orderClientSecret], responses: [ok(OrderJSON.self)], callsProvider: true),
            Operation(
                method: "POST", path: "/v1/orders/{id}/payments", id: "startPayment", tag: "payments",
                summary:
                    "Start a payment: the parameters the app hands its wallet. Closes the order's earlier open attempts. An order "
                    + "takes \(OrderStoreLimits.attemptsPerOrder) attempts (an open one of the same method is reused); past that, "
                    + "409 invalid_state: create a new order.",
                access: .either, body: .json(PaymentRequestBody.self, example: ["method": "wechat.native"]),
                responses: [
                    Response(
                        status: "200", description: "Started", content: .json(PaymentStartJSON.self),
                        links: [
                            "GetOrder": ["operationId": "getOrder", "parameters": ["id": "$request.path.id"]],
                            "PayInSandbox": ["operationId": "sandboxPayOrder", "parameters": ["id": "$request.path.id"]],
                        ]),
                    Response(
                        status: "202",
                        description:
                            "wechat.barcode / alipay.barcode: the payer is still confirming on the phone (status pending); the server "
                            + "keeps asking and reverses the payment if it is not confirmed in time — read the order for the outcome",
                        content: .json(PaymentStartJSON.self),
                        links: ["GetOrder": ["operationId": "getOrder", "parameters": ["id": "$request.path.id"]]]),
                    Response(
                        status: "402",
                        description:
                            "wechat.barcode / alipay.barcode: the payment failed (the provider refused the code, the payer lacked the "
                            + "balance, or it was not confirmed in time and was reversed); code payment_failed",
                        content: .json(HTTPErrorBody.self)),
                ], callsProvider: true, conflicts: true),
            Operation(
                method: "POST", path: "/v1/orders/{id}/payments/applepay/authorize", id: "authorizeApplePay", tag: "applepay",
                summary:
                    "Verify an Apple Pay token (decrypt it when the server holds the processing key) and authorise it at the processor.",
                access: .either, body: .json(ApplePayAuthorizeBody.self), responses: [ok(ApplePayAuthorizationAnswer.self)],
                callsProvider: true, conflicts: true),
            Operation(
                method: "POST", path: "/v1/orders/{id}/payments/applepay/update", id: "updateApplePaySheet", tag: "applepay",
                summary:
                    "The sheet's shipping method, contact or coupon: the server reprices the unpaid order and answers the sheet's update. "
                    + "An order may be repriced \(OrderStoreLimits.sheetChangesPerOrder) times; past that, 409 invalid_state: "
                    + "create a new order.",
                access: .either, body: .json(SheetUpdateBody.self),
                responses: [
                    .init(
                        status: "200", description: "newTotal, newLineItems (newShippingMethods, errors)",
                        content: .anyObject("Apple Pay's update."))
                ],
                conflicts: true),
            Operation(
                method: "POST", path: "/v1/applepay/sessions", id: "createApplePaySession", tag: "applepay",
                summary: "Apple Pay on the web: a merchant session from Apple for validation_url (Apple's hosts only).", access: .either,
                body: .json(SessionBody.self),
                responses: [
                    .init(
                        status: "200", description: "Apple's merchant session, as it came", content: .anyObject("Apple's merchant session.")
                    )
                ],
                callsProvider: true),
            Operation(
                method: "GET", path: "/.well-known/apple-developer-merchantid-domain-association", id: "appleDomainAssociation",
                tag: "applepay", summary: "The domain-association file Apple gave the merchant.", access: .none,
                responses: [
                    .init(status: "200", description: "The file", content: .text(contentType: "text/plain")),
                    .init(status: "404", description: "None is configured", content: .json(HTTPErrorBody.self)),
                ]),
            Operation(
                method: "POST", path: "/v1/orders/{id}/capture", id: "capturePayment", tag: "payments",
                summary: "Capture an Apple Pay authorisation made with capture manual: all, or part (the rest is released).",
                access: .secret, body: .json(CaptureBody.self, optional: true), responses: [ok(OrderJSON.self)],
                idempotent: true, callsProvider: true, conflicts: true),
            Operation(
                method: "POST", path: "/v1/orders/{id}/void", id: "voidPayment", tag: "payments",
                summary: "Void an uncaptured Apple Pay authorisation (recorded as a full refund).", access: .secret,
                body: .json(CaptureBody.self, optional: true), responses: [ok(OrderJSON.self)], idempotent: true,
                callsProvider: true, conflicts: true),
            Operation(
                method: "POST", path: "/v1/orders/{id}/refunds", id: "refundOrder", tag: "refunds",
                summary: "Refund part or all of a payment: reserved first, never more than it took.", access: .secret,
                body: .json(RefundBody.self, example: ["amount": "5.50", "reason": "one latte was cold"]),
                responses: [
                    ok(RefundAnswer.self, "Refunded"),
                    ok(RefundAnswer.self, "Accepted: the provider is still working on it", status: "202"),
                ], idempotent: true, callsProvider: true, conflicts: true),
            Operation(
                method: "POST", path: "/v1/orders/{id}/close", id: "closeOrder", tag: "orders",
                summary: "Close an unpaid order at its provider and here.", access: .secret, responses: [ok(OrderJSON.self)],
                callsProvider: true, conflicts: true),
            Operation(
                method: "GET", path: "/v1/orders/{id}/events", id: "listOrderEvents", tag: "orders",
                summary: "The order's append-only event log, oldest first.", access: .secret, responses: [ok(OrderEventPage.self)]),
            Operation(
                method: "GET", path: "/v1/orders/{id}/stream", id: "streamOrder", tag: "orders",
                summary: "The order as Server-Sent Events: an `order` event (data: the order) at once and at every change, id = the "
                    + "order's version; a comment every 15 s; ends when the order is closed or refunded, or after 5 minutes.",
                access: .clientSecret, parameters: [orderClientSecret],
                responses: [
                    .init(status: "200", description: "The event stream", content: .eventStream(event: "order", data: OrderJSON.self)),
                    .init(
                        status: "204", description: "A reconnect (Last-Event-ID) to an order that will not change again", content: .empty),
                ]),
            Operation(
                method: "GET", path: "/v1/reconciliations/{date}", id: "getReconciliation", tag: "books",
                summary: "Reconcile a day (YYYY-MM-DD, Beijing time): each provider's bill against the payments here.", access: .secret,
                responses: [ok(ReconciliationReport.self)], callsProvider: true),
            Operation(
                method: "GET", path: "/v1/payments", id: "listPayments", tag: "books", summary: "Payment attempts, newest first.",
                access: .secret,
                parameters: recordFilters(statuses: names(PaymentAttemptStatus.self), search: "An id, out_trade_no or transaction id.") + [
                    .query("refund_required", ["type": "boolean"], "Only payments whose money must go back.")
                ], responses: [ok(RecordPage<PaymentJSON>.self)]),
            Operation(
                method: "GET", path: "/v1/refunds", id: "listRefunds", tag: "books", summary: "Refunds, newest first.", access: .secret,
                parameters: recordFilters(statuses: names(RefundStatus.self), search: "An id, out_refund_no or out_trade_no."),
                responses: [ok(RecordPage<RefundJSON>.self)]),
            Operation(
                method: "GET", path: "/v1/exports/{file}", id: "exportRecords", tag: "books",
                summary: "What was created from `from` to `to`, as CSV (UTF-8 with a byte-order mark).", access: .secret,
                parameters: dayRange,
                responses: [.init(status: "200", description: "CSV", content: .text(contentType: "text/csv"))]),
            Operation(
                method: "GET", path: "/v1/webhooks", id: "listWebhooks", tag: "webhooks", summary: "Webhook deliveries, newest first.",
                access: .secret,
                parameters: [
                    .query("state", ["type": "string", "enum": ["delivered", "failed", "pending"]], "Only deliveries in this state."),
                    .query("order_id", ["type": "string"], "Only this order's."),
                ] + dayRange + listParameters, responses: [ok(RecordPage<WebhookJSON>.self)]),
            Operation(
                method: "POST", path: "/v1/webhooks/{id}/resend", id: "resendWebhook", tag: "webhooks",
                summary: "Send a webhook again (the same event id, signed anew).", access: .secret,
                responses: [ok(WebhookJSON.self)], conflicts: true),
            Operation(
                method: "POST", path: "/v1/webhooks/resend", id: "resendFailedWebhooks", tag: "webhooks",
                summary: "Send again every failed delivery queued from `from` to `to`.", access: .secret,
                body: .json(WebhookRangeBody.self, example: ["from": "2026-12-01", "to": "2026-12-01"]),
                responses: [ok(WebhookResendAnswer.self)], conflicts: true),
        ] + complaintOperations + transferOperations + splitOperations + recurringOperations + notificationOperations + [
            complaintNotificationOperation, transferNotificationOperation, splitNotificationOperation,
        ] + agreementNotificationOperations
    }

    /// WeChat Pay v2's answers to a notification: its XML SUCCESS or FAIL.
    static var wechatV2Answers: [Response] {
        [
            Response(
                status: "200", description: "SUCCESS (recorded, or a repeat) or FAIL (refused or not recorded yet: WeChat Pay sends again)",
                content: .text(contentType: "application/xml")),
            Response(
                status: "401", description: "FAIL: the signature, or the merchant it names, does not verify; nothing was read",
                content: .text(contentType: "application/xml")),
        ]
    }

    /// Alipay's answers to a notification: `success` or `failure`.
    static var alipayAnswers: [Response] {
        [
            Response(
                status: "200", description: "`success` (recorded, or a repeat) or `failure` (Alipay sends again)",
                content: .text(contentType: "text/plain")),
            Response(
                status: "401", description: "`failure`: the signature, or the merchant it names, does not verify; nothing was read",
                content: .text(contentType: "text/plain")),
        ]
    }

    /// The providers' callbacks, answered in each provider's own protocol: WeChat Pay v2 and
    /// Alipay answer 200 with a refusal in the body (FAIL, `failure`), which makes them send again.
    static var notificationOperations: [Operation] {
        let xml = "application/xml"
        let v2 = wechatV2Answers
        let v3 = [
            Response(status: "204", description: "Recorded, or a repeat", content: .empty),
            Response(
                status: "400", description: "Refused: another merchant, order or amount",
                content: .anyObject("{\"code\":\"FAIL\",\"message\":…}")),
            Response(status: "401", description: "The signature does not verify", content: .anyObject("{\"code\":\"FAIL\",\"message\":…}")),
            Response(
                status: "500", description: "Not recorded yet: WeChat Pay sends again",
                content: .anyObject("{\"code\":\"FAIL\",\"message\":…}")),
        ]
        let alipay = alipayAnswers
        // Every notify path: a request with no body is no notification (400), and a provider, or a
        // sub-merchant, not configured here has no path (404).
        let noBody = Response(
            status: "400", description: "No body: not a notification; nothing was read", content: .json(HTTPErrorBody.self))
        func notConfigured(_ what: String) -> Response {
            Response(status: "404", description: "\(what) not configured on this server", content: .json(HTTPErrorBody.self))
        }
        let adyen = Operation(
            method: "POST", path: "/notify/adyen", id: "notifyAdyen", tag: "notifications",
            summary: "Adyen standard webhooks (every item HMAC-signed): refunds' outcomes, captures' failures and recaptures, "
                + "chargebacks and expired authorisations. Verified before anything is read; "
                + "configured by applepay.adyen.hmac_key_env or _file.",
            access: .provider,
            body: .provider(contentType: "application/json", description: "As Adyen sends it.", fields: ["live", "notificationItems"]),
            responses: [
                Response(status: "200", description: "`[accepted]`: recorded, or a repeat", content: .text(contentType: "text/plain")),
                noBody,
                Response(
                    status: "401", description: "`[refused] …`: an item's signature does not verify; nothing was read",
                    content: .text(contentType: "text/plain")),
                notConfigured("Adyen webhooks are"),
                Response(
                    status: "500", description: "`[retry] …`: not recorded yet; Adyen sends again",
                    content: .text(contentType: "text/plain")),
            ])
        var stripe = Operation(
            method: "POST", path: "/notify/stripe", id: "notifyStripe", tag: "notifications",
            summary: "Stripe webhook events (Stripe-Signature): refunds' outcomes, disputes and lapsed authorisations. "
                + "Verified before anything is read, "
                + "refused when older than five minutes; configured by applepay.stripe.webhook_secret_env or _file.",
            access: .provider,
            body: .provider(contentType: "application/json", description: "As Stripe sends it.", fields: ["id", "object", "type", "data"]),
            responses: [
                Response(
                    status: "200", description: "`{\"received\":true}`: recorded, or a repeat", content: .anyObject("{\"received\":true}")),
                Response(
                    status: "400",
                    description: "`invalid_signature`: no body, a Stripe-Signature that is not `t=…,v1=…`, or a signed body "
                        + "that is no Stripe event; nothing was recorded",
                    content: .json(HTTPErrorBody.self)),
                Response(
                    status: "401", description: "`invalid_signature`: the signature does not verify or is too old; nothing was read",
                    content: .json(HTTPErrorBody.self)),
                notConfigured("Stripe webhooks are"),
                Response(status: "500", description: "Not recorded yet; Stripe sends again", content: .json(HTTPErrorBody.self)),
            ])
        stripe.parameters = [
            .requiredHeader(
                "Stripe-Signature", "`t=…,v1=…`: Stripe's signature over the body (v0 too in test mode).",
                pattern: "^t=[0-9]{1,18}(,v[01]=[0-9a-f]{64})*,v1=[0-9a-f]{64}(,v[01]=[0-9a-f]{64})*$")
        ]
        let v3Headers: [Parameter] = [
            .requiredHeader("Wechatpay-Signature", "WeChat Pay's signature over the timestamp, nonce and body."),
            .requiredHeader("Wechatpay-Timestamp", "Unix seconds: refused more than five minutes from this server's clock."),
            .requiredHeader("Wechatpay-Nonce", "The nonce the signature covers."),
            .requiredHeader("Wechatpay-Serial", "The serial of the platform certificate (or public key) that signed it."),
        ]
        let unionpay = Operation(
            method: "POST", path: "/notify/unionpay", id: "notifyUnionPay", tag: "notifications",
            summary: "UnionPay back notifications (5.1.0, signed with the certificate they carry, which must chain to "
                + "unionpay.root_cert_file and middle_cert_file). Verified before anything is read; merId, currency and amount checked.",
            access: .provider,
            body: .provider(
                contentType: "application/x-www-form-urlencoded", description: "As UnionPay sends it (the raw body is verified).",
                fields: ["merId", "orderId", "txnType", "signMethod", "signature"]),
            responses: [
                Response(status: "200", description: "`ok`: recorded, or a repeat", content: .text(contentType: "text/plain")),
                Response(
                    status: "400", description: "No body; or `refused`: it names another merchant, order, amount or currency",
                    content: .json(HTTPErrorBody.self)),
                Response(
                    status: "401", description: "`invalid_signature`: the signature or its certificate does not verify; nothing was read",
                    content: .json(HTTPErrorBody.self)),
                notConfigured("UnionPay is"),
                Response(status: "503", description: "`retry`: not recorded yet; UnionPay sends again", content: .json(HTTPErrorBody.self)),
            ])
        return [adyen, stripe, unionpay]
            + [
                (
                    "/notify/wechat/v2", "notifyWeChatV2", xml, "WeChat Pay API v2 payment notifications (signed XML).", v2, [Parameter](),
                    [String]()
                ),
                (
                    "/notify/wechat/v2/refund", "notifyWeChatV2Refund", xml, "WeChat Pay API v2 refund results (encrypted req_info).", v2,
                    [], []
                ),
                (
                    "/notify/wechat/v3", "notifyWeChatV3", "application/json",
                    "WeChat Pay API v3 notifications (signed JSON, AES-256-GCM resource).", v3, v3Headers,
                    ["id", "create_time", "event_type", "resource_type", "resource"]
                ),
                (
                    "/notify/alipay", "notifyAlipay", "application/x-www-form-urlencoded",
                    "Alipay asynchronous notifications (RSA2-signed form).", alipay, [], ["notify_id", "sign_type", "sign"]
                ),
            ].flatMap { path, id, contentType, summary, responses, headers, fields in
                // Each sub-merchant's come to a path of its own, through the service provider.
                let merchantPath = path.hasSuffix("/refund") ? String(path.dropLast(7)) + "/m/{merchant}/refund" : path + "/m/{merchant}"
                var direct = Operation(
                    method: "POST", path: path, id: id, tag: "notifications", summary: summary + " Verified before anything is read.",
                    access: .provider, body: .provider(contentType: contentType, description: "As the provider sends it.", fields: fields),
                    responses: responses
                        + [noBody, notConfigured("The provider is")].filter { added in
                            !responses.contains { $0.status == added.status }
                        })
                direct.parameters = headers
                var merchant = Operation(
                    method: "POST", path: merchantPath, id: id + "ForMerchant", tag: "notifications",
                    summary: summary + " For a sub-merchant, through the service provider: one naming another merchant is refused.",
                    access: .provider, body: .provider(contentType: contentType, description: "As the provider sends it.", fields: fields),
                    responses: responses
                        + [noBody, notConfigured("The provider, or this sub-merchant, is")].filter { added in
                            !responses.contains { $0.status == added.status }
                        })
                merchant.parameters = headers
                return [direct, merchant]
            }
    }

    /// What `cashier serve --sandbox` adds: paying an order in the sandbox, as a payer would.
    static var sandboxOperations: [Operation] {
        [
            Operation(
                method: "POST", path: "/v1/test_helpers/orders/{id}/pay", id: "sandboxPayOrder", tag: "sandbox",
                summary: "Sandbox only: the payer pays the order's open WeChat Pay or Alipay attempt; answers once the provider's "
                    + "notification has been recorded.", access: .secret,
                responses: [
                    Response(
                        status: "200", description: "Paid", content: .json(OrderJSON.self),
                        links: ["RefundOrder": ["operationId": "refundOrder", "parameters": ["id": "$response.body#/id"]]])
                ], conflicts: true)
        ]
    }
}
