import ApplePay
import Cashier
import CashierHTTP
import CashierStore
import CashierWire
import Foundation

// What the OpenAPI document says about the API's types beyond their `Codable` shape: the
// examples responses are read from, and notes (descriptions, enumerations, formats, bounds).

extension OpenAPIDocument {
    static let decimalAmount = #"^-?[0-9]+(\.[0-9]+)?$"#
    /// A day as ``ReportRange`` reads it (2000 to 2100; the calendar checks the rest).
    static let day = #"^(20[0-9]{2}|2100)-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"#
    /// An absolute http(s) URL (the origin rules come after: 422).
    static let webURL = #"^https?://"#
    static let currencyCodes = Currency.all.map(\.code).sorted()

    /// Enumerations used in several places, written once under `#/components/schemas`.
    static var sharedEnumerations: [String: [String: Any]] {
        [
            "Currency": ["type": "string", "enum": currencyCodes, "description": "An ISO 4217 currency code."],
            "PaymentMethod": ["type": "string", "enum": names(PaymentMethod.self), "description": "A wallet and its flow."],
            "OrderStatus": ["type": "string", "enum": names(PaymentStatus.self), "description": "Where an order is."],
        ]
    }

    static func ref(_ name: String) -> [String: Any] { ["$ref": "#/components/schemas/\(name)"] }

    static func names<T: RawRepresentable & CaseIterable>(_ type: T.Type) -> [String] where T.RawValue == String {
        T.allCases.map(\.rawValue)
    }

    /// Not both `amount` and `amount_minor` (a `null` counts as absent, as the decoder reads it).
    static var notBothAmounts: [String: Any] {
        [
            "not": [
                "required": ["amount", "amount_minor"], "properties": ["amount": ["type": "string"], "amount_minor": ["type": "integer"]],
            ]
        ]
    }

    /// Exactly one of `fields` present and not `null`.
    static func exactlyOne(_ fields: [String: [String: Any]]) -> [String: Any] {
        let null: [String: Any] = ["type": "null"]
        return [
            "oneOf": fields.keys.sorted().map { name -> [String: Any] in
                var properties: [String: Any] = [:]
                for other in fields.keys where other != name { properties[other] = null }
                properties[name] = fields[name]
                return ["required": [name], "properties": properties]
            }
        ]
    }

    /// An https URL on one of Apple's merchant-validation hosts (``ApplePay/MerchantValidator/appleHosts``).
    static var appleValidationURL: String {
        let hosts = ApplePay.MerchantValidator.appleHosts.sorted().map { $0.replacingOccurrences(of: ".", with: "\\.") }
        return "^https://(" + hosts.joined(separator: "|") + ")(/[!-~]*)?$"
    }

    static func note(_ description: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        extra.merging(["description": description]) { kept, _ in kept }
    }
}

extension Amount: SchemaDocumented {
    static var schemaName: String { "Money" }
    static var schemaDescription: String? {
        "An amount: a decimal string and the same in minor units (fen, cents; never a float), and its ISO 4217 currency."
    }
    static var schemaNotes: [String: [String: Any]] {
        [
            "amount": OpenAPIDocument.note("In the currency's major unit, e.g. \"12.75\".", ["pattern": OpenAPIDocument.decimalAmount]),
            "amount_minor": OpenAPIDocument.note("In minor units, e.g. 1275."),
            "currency": OpenAPIDocument.note("ISO 4217 code.", OpenAPIDocument.ref("Currency")),
        ]
    }
}

extension WholeNumber: SchemaLeaf {
    /// Any JSON number that is whole and exact in a double (what ``WholeNumber`` takes).
    static var leafSchema: [String: Any] {
        ["type": "integer", "format": "int64", "minimum": -9_007_199_254_740_991, "maximum": 9_007_199_254_740_991]
    }
    static var schemaExample: WholeNumber { WholeNumber(1) }
}

extension OrderRequest.Present: SchemaLeaf {
    static var leafSchema: [String: Any] { ["type": "object"] }
    static var schemaExample: OrderRequest.Present { OrderRequest.Present() }
}

extension OrderRequest: SchemaDocumented {
    static var schemaDescription: String? { "A new order: items priced by the merchant's backend, or catalog SKUs." }
    static var schemaNotes: [String: [String: Any]] {
        [
            "items": ["minItems": 1, "maxItems": RequestBounds.items],
            "currency": OpenAPIDocument.note(
                "ISO 4217 code; required unless every item is a catalog SKU.", OpenAPIDocument.ref("Currency")),
            "description": OpenAPIDocument.note(
                "What the payer sees on the wallet's sheet and the bill: at most 128 UTF-8 bytes (WeChat Pay's limit), else 422.",
                ["maxLength": 128]),
            "metadata": OpenAPIDocument.note(
                "Your own keys and values, returned as given (and to the provider as attach / passback_params when they fit)."),
            "merchant": OpenAPIDocument.note(
                "The sub-merchant the order is for (one of the configuration's merchants, paid through the service provider); "
                    + "absent: the direct merchant, or the merchant the key acts for.", ["pattern": "^[a-z0-9_-]{1,32}$"]),
            "expires_in": OpenAPIDocument.note(
                "Seconds until the order expires (default 7200).",
                ["minimum": RequestBounds.expiresIn.lowerBound, "maximum": RequestBounds.expiresIn.upperBound]),
            "return_url": OpenAPIDocument.note(
                "Where the hosted checkout page sends the payer once paid; its origin must be in checkout.return_origins.",
                ["format": "uri", "pattern": OpenAPIDocument.webURL]),
            "applepay": OpenAPIDocument.note(
                "An Apple Pay commitment: {\"recurringPaymentRequest\": …}, {\"deferredPaymentRequest\": …} or "
                    + "{\"automaticReloadPaymentRequest\": …} (secret key only)."),
            "shipping_methods": OpenAPIDocument.note("Ways to ship it, offered on the Apple Pay sheet (secret key only)."),
            "profit_sharing": OpenAPIDocument.note(
                "Placed to be shared with receivers afterwards (POST /v1/orders/{id}/splits): WeChat Pay and Alipay keep the money "
                    + "frozen until it is split or the sharing is finished (secret key only)."),
        ]
    }
    /// A currency, unless every item is a catalog SKU (the catalog's currency prices them).
    static var schemaExtra: [String: Any] {
        [
            "if": ["properties": ["items": ["items": ["required": ["sku"]]]]],
            "else": ["required": ["currency"], "properties": ["currency": OpenAPIDocument.ref("Currency")]],
        ]
    }
}

extension OrderRequest.Item: SchemaDocumented {
    static var schemaDescription: String? {
        "A line: a label with exactly one of amount and amount_minor, or a catalog sku (priced by the server)."
    }
    static var schemaNotes: [String: [String: Any]] {
        [
            "label": OpenAPIDocument.note("What the payer sees: at most 128 UTF-8 bytes, else 422.", ["maxLength": 128]),
            "sku": OpenAPIDocument.note("A catalog SKU, priced by the server."),
            "amount": OpenAPIDocument.note(
                "Unit price as a decimal string in the order's currency (negative for a discount).",
                ["pattern": OpenAPIDocument.decimalAmount]),
            "amount_minor": OpenAPIDocument.note(
                "Unit price in minor units.",
                ["minimum": RequestBounds.itemMinorUnits.lowerBound, "maximum": RequestBounds.itemMinorUnits.upperBound]),
            "quantity": OpenAPIDocument.note(
                "Default 1.", ["minimum": RequestBounds.quantity.lowerBound, "maximum": RequestBounds.quantity.upperBound]),
            "type": OpenAPIDocument.note("`pending` for an amount not final yet (Apple Pay).", ["enum": ["final", "pending"]]),
        ]
    }
    /// What ``OrderRequest/lineItems(catalog:)`` takes: a SKU alone, or a label with one price.
    static var schemaExtra: [String: Any] {
        let null: [String: Any] = ["type": "null"]
        return [
            "oneOf": [
                ["required": ["sku"], "properties": ["sku": ["type": "string"], "amount": null, "amount_minor": null]],
                [
                    "required": ["label", "amount"],
                    "properties": ["label": ["type": "string"], "amount": ["type": "string"], "sku": null, "amount_minor": null],
                ],
                [
                    "required": ["label", "amount_minor"],
                    "properties": ["label": ["type": "string"], "amount_minor": ["type": "integer"], "sku": null, "amount": null],
                ],
            ]
        ]
    }
}

extension OrderRequest.ShippingOptionBody: SchemaDocumented {
    static var schemaName: String { "ShippingMethod" }
    static var schemaNotes: [String: [String: Any]] {
        ["amount": OpenAPIDocument.note("Its price, a decimal string.", ["pattern": OpenAPIDocument.decimalAmount])]
    }
}

extension PaymentRequestBody: SchemaDocumented {
    static var schemaName: String { "PaymentRequest" }
    static var schemaDescription: String? {
        "By method: wechat.jsapi needs openid, wechat.miniprogram js_code, alipay.wap and alipay.page return_url, "
            + "wechat.barcode and alipay.barcode auth_code (with the secret key)."
    }
    /// What each method needs beside it, one branch per group of methods (`method` decides).
    static var schemaExtra: [String: Any] {
        func branch(
            _ title: String, _ methods: [PaymentMethod], needs field: String? = nil,
            _ schema: [String: Any] = ["type": "string", "minLength": 1]
        ) -> [String: Any] {
            var properties: [String: Any] = ["method": ["type": "string", "enum": methods.map(\.rawValue)]]
            if let field { properties[field] = schema }
            return ["title": title, "required": ["method"] + (field.map { [$0] } ?? []), "properties": properties]
        }
        let needing: Set<PaymentMethod> = [.wechatJSAPI, .wechatMiniProgram, .alipayWap, .alipayPage, .wechatBarcode, .alipayBarcode]
        return [
            "oneOf": [
                branch("JSAPIPaymentRequest", [.wechatJSAPI], needs: "openid"),
                branch("MiniProgramPaymentRequest", [.wechatMiniProgram], needs: "js_code"),
                branch(
                    "RedirectPaymentRequest", [.alipayWap, .alipayPage], needs: "return_url",
                    ["type": "string", "format": "uri", "pattern": OpenAPIDocument.webURL]),
                branch(
                    "BarcodePaymentRequest", [.wechatBarcode, .alipayBarcode], needs: "auth_code",
                    ["type": "string", "pattern": "^[0-9]{16,24}$"]),
                branch("WalletPaymentRequest", PaymentMethod.allCases.filter { !needing.contains($0) }),
            ],
            "discriminator": ["propertyName": "method"],
        ]
    }
    static var schemaNotes: [String: [String: Any]] {
        [
            "method": OpenAPIDocument.note("The wallet and flow.", OpenAPIDocument.ref("PaymentMethod")),
            "client_secret": OpenAPIDocument.note("The order's client secret: required with the publishable key."),
            "client_ip": OpenAPIDocument.note(
                "The payer's IP address (WeChat Pay H5 and native); without it, the address the request came from (X-Forwarded-For from http.trusted_proxies).",
                ["anyOf": [["format": "ipv4"], ["format": "ipv6"]]]),
            "api": OpenAPIDocument.note("wechat.*: the API generation (default: the server's).", ["enum": ["v2", "v3"]]),
            "openid": OpenAPIDocument.note("wechat.jsapi: the payer's openid for the appid."),
            "js_code": OpenAPIDocument.note("wechat.miniprogram: the code from wx.login."),
            "return_url": OpenAPIDocument.note("alipay.wap / alipay.page: where Alipay sends the browser back."),
            "auth_code": OpenAPIDocument.note(
                "wechat.barcode / alipay.barcode: the payment code the till scanned from the payer's phone (WeChat Pay: 18 digits "
                    + "beginning 10–15; Alipay: 16–24 digits beginning 25–30).", ["pattern": "^[0-9]{16,24}$"]),
            "payer_wallets": OpenAPIDocument.note(
                "What the payer's device can pay with: {\"apple_pay_networks\": [\"ChinaUnionPay\", …]} (PassKit's names from "
                    + "canMakePayments(usingNetworks:)). unionpay.applepay is refused (422) when the list has no ChinaUnionPay."),
        ]
    }
}

extension RefundBody: SchemaDocumented {
    static var schemaName: String { "RefundRequest" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "amount": OpenAPIDocument.note("A decimal string; give this or amount_minor.", ["pattern": OpenAPIDocument.decimalAmount]),
            "amount_minor": OpenAPIDocument.note(
                "In minor units.",
                ["minimum": RequestBounds.refundMinorUnits.lowerBound, "maximum": RequestBounds.refundMinorUnits.upperBound]),
            "reason": OpenAPIDocument.note(
                "Shown to the payer by some providers: at most 80 UTF-8 bytes (WeChat Pay's limit), else 422.", ["maxLength": 80]),
            "payment": OpenAPIDocument.note("The payment to refund (pay_…); default the one that paid the order."),
        ]
    }
    static var schemaDescription: String? { "At most one of amount and amount_minor; neither refunds what is left." }
    static var schemaExtra: [String: Any] { OpenAPIDocument.notBothAmounts }
}

extension CaptureBody: SchemaDocumented {
    static var schemaName: String { "CaptureRequest" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "amount": OpenAPIDocument.note(
                "What to capture (the rest is released); default all.", ["pattern": OpenAPIDocument.decimalAmount]),
            "amount_minor": OpenAPIDocument.note(
                "The same in minor units.",
                ["minimum": RequestBounds.refundMinorUnits.lowerBound, "maximum": RequestBounds.refundMinorUnits.upperBound]),
            "payment": OpenAPIDocument.note("The payment (pay_…); default the one that paid the order."),
        ]
    }
    static var schemaDescription: String? { "At most one of amount and amount_minor; an empty body captures (or voids) all." }
    static var schemaExtra: [String: Any] { OpenAPIDocument.notBothAmounts }
}

extension SheetUpdateBody: SchemaDocumented {
    static var schemaName: String { "ApplePaySheetUpdate" }
    static var schemaDescription: String? { "Exactly one of shipping_method, shipping_contact and coupon_code." }
    static var schemaExtra: [String: Any] {
        OpenAPIDocument.exactlyOne([
            "shipping_method": ["type": "string", "minLength": 1], "shipping_contact": OpenAPIDocument.ref("ApplePayRedactedContact"),
            "coupon_code": ["type": "string"],
        ])
    }
}

extension SheetUpdateBody.RedactedContact: SchemaDocumented {
    static var schemaName: String { "ApplePayRedactedContact" }
    static var schemaDescription: String? {
        "Apple Pay JS's redacted shippingContact, passed as the sheet gives it: these fields are read, any other is ignored."
    }
    static var schemaExtra: [String: Any] { ["additionalProperties": true] }
}

extension SessionBody: SchemaDocumented {
    static var schemaName: String { "ApplePaySessionRequest" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "validation_url": OpenAPIDocument.note(
                "The validationURL Apple Pay JS gave the page: an https URL on one of Apple's merchant-validation hosts.",
                ["format": "uri", "pattern": OpenAPIDocument.appleValidationURL])
        ]
    }
}

extension ApplePayAuthorizeBody: SchemaDocumented {
    static var schemaName: String { "ApplePayAuthorization" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "token": OpenAPIDocument.note("The PKPayment (or its token) as JSON, as the device gave it."),
            "billing_contact": OpenAPIDocument.note("Apple Pay JS's billingContact."),
            "shipping_contact": OpenAPIDocument.note("Apple Pay JS's shippingContact."),
            "client_secret": OpenAPIDocument.note("The order's client secret: required with the publishable key."),
        ]
    }
}

extension WebhookRangeBody: SchemaDocumented {
    static var schemaName: String { "WebhookResendRequest" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "from": OpenAPIDocument.note("First day (YYYY-MM-DD), included.", ["format": "date", "pattern": OpenAPIDocument.day]),
            "to": OpenAPIDocument.note("Last day (YYYY-MM-DD), included.", ["format": "date", "pattern": OpenAPIDocument.day]),
        ]
    }
}

// MARK: Responses

extension OrderJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: OrderJSON {
        OrderJSON(
            .example, payments: [.example], refunds: [.example], includeSecret: true, base: "https://pay.example.com")
    }
    static var schemaName: String { "Order" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "object": ["const": "order"],
            "merchant": OpenAPIDocument.note("The sub-merchant the order is for; absent for the direct merchant."),
            "profit_sharing": OpenAPIDocument.note("true when the order was placed to be shared with receivers; absent otherwise."),
            "status": OpenAPIDocument.note("Where the order is.", OpenAPIDocument.ref("OrderStatus")),
            "client_secret": OpenAPIDocument.note(
                "Only to the secret key and in the creation answer: the app uses it with the publishable key."),
            "refund_required": OpenAPIDocument.note("Money arrived that must go back: see payments[].refund_required."),
            "created": OpenAPIDocument.note("Unix seconds."),
            "expires": OpenAPIDocument.note("Unix seconds."),
            "checkout_url": OpenAPIDocument.note("The hosted checkout page for this order (carries the client secret).", ["format": "uri"]),
        ]
    }
}

extension PaymentJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: PaymentJSON { PaymentJSON(.example) }
    static var schemaName: String { "Payment" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "object": ["const": "payment"],
            "method": OpenAPIDocument.ref("PaymentMethod"),
            "provider": ["enum": OpenAPIDocument.names(PaymentProvider.self)],
            "status": ["enum": OpenAPIDocument.names(PaymentAttemptStatus.self)],
            "capture": ["enum": OpenAPIDocument.names(CaptureState.self)],
            "refund_required": OpenAPIDocument.note("This payment's money must go back (a second payment, or one for a closed order)."),
        ]
    }
}

extension PaymentContact: SchemaExample, SchemaDocumented {
    static var schemaExample: PaymentContact {
        var contact = PaymentContact()
        contact.givenName = "Ming"
        contact.addressLines = ["1 Example Road"]
        return contact
    }
    static var schemaName: String { "Contact" }
}

extension RefundJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: RefundJSON { RefundJSON(.example) }
    static var schemaName: String { "Refund" }
    static var schemaNotes: [String: [String: Any]] {
        ["object": ["const": "refund"], "status": ["enum": OpenAPIDocument.names(RefundStatus.self)]]
    }
}

extension DisputeJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: DisputeJSON {
        DisputeJSON(
            id: "dp_1QexampleDispute0", processor: "stripe", paymentID: StoredPayment.example.id, amount: StoredPayment.example.amount,
            reason: "fraudulent", status: "needs_response", evidenceDueBy: 1_796_977_830)
    }
    static var schemaName: String { "Dispute" }
    static var schemaNotes: [String: [String: Any]] { ["object": ["const": "dispute"], "processor": ["enum": ["stripe", "adyen"]]] }
}

extension WebhookEventJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: WebhookEventJSON {
        WebhookEventJSON(id: OutboxMessage.example.id, type: "order.paid", created: 1_796_113_830, order: .example, payment: .example)
    }
    static var schemaName: String { "Event" }
    static var schemaDescription: String? {
        "A webhook: POSTed to your endpoint with Cashier-Signature (t=…,v1=HMAC-SHA256 of \"t.body\" with whsec_…) and Cashier-Event-Id."
    }
    static var schemaNotes: [String: [String: Any]] { ["type": ["enum": WebhookEventJSON.types]] }
}

extension WebhookEventJSON.Data: SchemaDocumented {
    static var schemaName: String { "EventData" }
    static var schemaNotes: [String: [String: Any]] { ["status": OpenAPIDocument.ref("OrderStatus")] }
}

extension OrderPage: SchemaExample, SchemaDocumented {
    static var schemaExample: OrderPage { .init(data: [.schemaExample], has_more: false) }
    static var schemaName: String { "OrderList" }
}

extension RecordPage: SchemaExample, SchemaDocumented where Item: SchemaExample {
    static var schemaExample: RecordPage<Item> { .init(data: [Item.schemaExample], has_more: false) }
    static var schemaName: String { ((Item.self as? any SchemaDocumented.Type)?.schemaName ?? "\(Item.self)") + "List" }
}

extension WebhookJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: WebhookJSON { .init(.example) }
    static var schemaName: String { "Webhook" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "object": ["const": "webhook"], "state": ["enum": ["delivered", "failed", "pending"]],
            // Every event the outbox queues: an order's, a transfer's (order_id is then the transfer's id), a split's.
            "type": ["enum": WebhookEventJSON.types + TransferEventJSON.types + SplitEventJSON.types + RecurringEventJSON.types],
        ]
    }
}

extension WebhookResendAnswer: SchemaExample, SchemaDocumented {
    static var schemaExample: WebhookResendAnswer { .init(resent: 1, data: [.schemaExample]) }
    static var schemaName: String { "WebhookResend" }
}

extension OrderEventJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: OrderEventJSON {
        .init(
            sequence: 3, kind: "transition", from: "created", to: "paid", detail: #"{"transaction_id":"4200001234202612011234567890"}"#,
            body_sha256: nil, created: 1_796_113_830)
    }
    static var schemaName: String { "OrderEvent" }
    static var schemaNotes: [String: [String: Any]] { ["detail": OpenAPIDocument.note("A JSON object, as text.")] }
}

extension OrderEventPage: SchemaExample, SchemaDocumented {
    static var schemaExample: OrderEventPage { .init(data: [.schemaExample]) }
    static var schemaName: String { "OrderEventList" }
}

extension RefundAnswer: SchemaExample, SchemaDocumented {
    static var schemaExample: RefundAnswer { .init(order: .schemaExample, refund: .schemaExample) }
    static var schemaName: String { "OrderWithRefund" }
    static var schemaDescription: String? { "The order's fields, and the refund just made beside them." }
}

extension ApplePayAuthorizationAnswer: SchemaExample, SchemaDocumented {
    static var schemaExample: ApplePayAuthorizationAnswer {
        .init(status: 0, order_status: "paid", message: "paid", payment_id: StoredPayment.example.id, errors: nil)
    }
    static var schemaName: String { "ApplePayAuthorizationResult" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "status": OpenAPIDocument.note(
                "PKPaymentAuthorizationStatus: 0 success, 1 failure. Success with order_status pending: the card processor "
                    + "accepted the payment without deciding it (message says processing); the order is paid when it decides."),
            "order_status": OpenAPIDocument.ref("OrderStatus"),
        ]
    }
}

extension ApplePaySheetError: SchemaExample, SchemaDocumented {
    static var schemaExample: ApplePaySheetError {
        ApplePaySheetError(ApplePay.SheetError(code: .shippingContactInvalid, contactField: "postalCode", message: "…"))
    }
    static var schemaName: String { "ApplePayError" }
}

extension PaymentStartJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: PaymentStartJSON {
        PaymentStartJSON(
            method: .wechatNative, paymentID: StoredPayment.example.id, outTradeNo: StoredPayment.example.outTradeNo, api: "v2",
            wallet: .wechatQRCode("weixin://wxpay/bizpayurl?pr=8Xw2yQ1"))
    }
    static var schemaName: String { "PaymentStart" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "method": OpenAPIDocument.ref("PaymentMethod"),
            "status": OpenAPIDocument.note(
                "wechat.barcode / alipay.barcode: paid, or pending while the payer confirms (HTTP 202).", ["enum": ["paid", "pending"]]),
        ]
    }
}

extension ReconciliationReport: SchemaExample, SchemaDocumented {
    static var schemaExample: ReconciliationReport {
        ReconciliationReport(
            date: "2026-12-01", bill_rows: ["wechat": 12], matched: 12, not_reconciled: ["applepay": 1],
            discrepancies: [
                .init(
                    kind: "amount_differs", provider: "wechat", out_trade_no: "C1", order_id: nil, provider_says: "paid 1.00 CNY",
                    here: "paid 2.00 CNY")
            ],
            refund_required: [.init(.example)], fees: ["wechat": "0.07 CNY"],
            fund_flow: ["wechat": .init(rows: 24, income: "12.00 CNY", expense: "0.07 CNY", fees: "0.07 CNY")],
            money_out: ["wechat": .init(transfers: 2, transferred: "10.00 CNY", shares: 3, shared: "4.50 CNY")])
    }
    static var schemaName: String { "Reconciliation" }
}

extension ReconciliationReport.MoneyOut: SchemaDocumented {
    static var schemaName: String { "MoneyOutSummary" }
    static var schemaDescription: String? {
        "One provider's money out on the day, from the books: transfers that succeeded and profit-sharing shares that arrived."
    }
}

extension ReconciliationReport.FundFlow: SchemaDocumented {
    static var schemaName: String { "FundFlowSummary" }
    static var schemaDescription: String? { "One provider's fund-flow bill for the day: its rows and totals." }
}

extension ReconciliationReport.Discrepancy: SchemaDocumented {
    static var schemaName: String { "ReconciliationDiscrepancy" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "kind": [
                "enum": [
                    "missing_here", "missing_at_provider", "amount_differs", "status_differs", "refund_differs", "fees_differ",
                    "split_missing_here", "split_missing_at_provider", "split_differs",
                ]
            ]
        ]
    }
}

extension ReconciliationReport.RefundRequired: SchemaDocumented {
    static var schemaName: String { "ReconciliationRefundRequired" }
}

extension HTTPErrorBody: SchemaExample, SchemaDocumented {
    static var schemaExample: HTTPErrorBody { HTTPErrorBody(code: "invalid_request", message: "currency is missing (e.g. \"CNY\")") }
    static var schemaName: String { "Error" }
}

extension HTTPErrorBody.Detail: SchemaDocumented {
    static var schemaName: String { "ErrorDetail" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "code": OpenAPIDocument.note("What went wrong, for code to branch on."),
            "message": OpenAPIDocument.note("What to fix, for people."),
        ]
    }
}

/// `GET /healthz`'s answer.
struct HealthJSON: Encodable, Sendable, SchemaExample, SchemaDocumented {
    let status: String
    let instance: String
    static var schemaExample: HealthJSON { HealthJSON(status: "ok", instance: "a1b2c3") }
    static var schemaName: String { "Health" }
}

extension WalletParameters.UnionPayFields: SchemaExample, SchemaDocumented {
    static var schemaExample: WalletParameters.UnionPayFields { .init(tn: "694830182746201935061", mode: "00") }
    static var schemaName: String { "UnionPayParameters" }
    static var schemaDescription: String? {
        "unionpay.applepay / unionpay.app: UnionPay's order number for UPAPayPlugin or UPPaymentControl, and the plugin's mode."
    }
    static var schemaNotes: [String: [String: Any]] {
        [
            "tn": OpenAPIDocument.note("银联受理订单号: hand it to the plugin as it is.", ["pattern": "^[0-9]{1,64}$"]),
            "mode": OpenAPIDocument.note("00 UnionPay's production, 01 its test environment.", ["enum": ["00", "01"]]),
        ]
    }
}
