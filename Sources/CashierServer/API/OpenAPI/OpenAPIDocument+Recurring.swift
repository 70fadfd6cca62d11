import Cashier
import CashierStore
import CashierWire
import Foundation

// The `/v1/agreements` and `/v1/subscriptions` operations, their types' examples and notes, and
// the agreement notify paths.

extension OpenAPIDocument {
    static var recurringOperations: [Operation] {
        let secret = Access.secret
        let list: [Parameter] = [
            .query(
                "limit", ["type": "integer", "minimum": RequestBounds.listLimit.lowerBound, "maximum": RequestBounds.listLimit.upperBound],
                "How many to list (default 20)."),
            .query("offset", ["type": "integer", "minimum": 0, "maximum": 100_000], "How many to skip (default 0)."),
        ]
        let end = Body.json(EndBody.self, optional: true, example: ["reason": "用户申请退订"])
        func action(_ name: String, _ summary: String) -> Operation {
            Operation(
                method: "POST", path: "/v1/subscriptions/{id}/\(name)", id: name + "Subscription", tag: "recurring", summary: summary,
                access: secret, body: end, responses: [ok(SubscriptionJSON.self)], conflicts: true)
        }
        return [
            Operation(
                method: "POST", path: "/v1/agreements", id: "createAgreement", tag: "recurring",
                summary: "Reserve an agreement for the payer to sign in their wallet (WeChat Pay 委托代扣, Alipay 周期扣款, or an "
                    + "Apple Pay card stored on a first payment) and answer what the app opens to sign it (launch). It is active only "
                    + "once the provider says so (its notification, or the query GET makes while it is pending). With an "
                    + "Idempotency-Key, every retry is the same agreement.", access: secret,
                body: .json(
                    AgreementBody.self,
                    example: [
                        "method": "alipay.app", "description": "月度会员", "period": ["unit": "month", "count": 1], "single_limit": 3000,
                        "currency": "CNY",
                    ]), responses: [ok(AgreementJSON.self, "Reserved, pending, with its launch", status: "201")], idempotent: true,
                callsProvider: true, conflicts: true),
            Operation(
                method: "GET", path: "/v1/agreements", id: "listAgreements", tag: "recurring", summary: "Agreements, newest first.",
                access: secret, parameters: list, responses: [ok(RecordPage<AgreementJSON>.self)]),
            Operation(
                method: "GET", path: "/v1/agreements/{id}", id: "getAgreement", tag: "recurring",
                summary: "An agreement; a pending one is asked about at the provider first.", access: secret,
                responses: [ok(AgreementJSON.self)], callsProvider: true),
            Operation(
                method: "POST", path: "/v1/agreements/{id}/terminate", id: "terminateAgreement", tag: "recurring",
                summary: "End an agreement at the provider and here; its subscriptions are canceled and nothing is charged under it again.",
                access: secret, body: end, responses: [ok(AgreementJSON.self)], callsProvider: true, conflicts: true),
            Operation(
                method: "POST", path: "/v1/agreements/{id}/authorize", id: "authorizeAgreement", tag: "recurring",
                summary: "Apple Pay: the token of the sheet the agreement's launch showed. Its subscription's first period is charged "
                    + "now (customer-initiated) and the card is stored at the processor for the later periods (merchant-initiated).",
                access: secret, body: .json(AgreementAuthorizeBody.self, example: ["token": ["version": "EC_v1", "data": "…"]]),
                responses: [ok(SubscriptionJSON.self)], callsProvider: true, conflicts: true),
            Operation(
                method: "POST", path: "/v1/subscriptions", id: "createSubscription", tag: "recurring",
                summary: "Charge an amount under an agreement once every interval from anchor. Each period is an invoice charged as an "
                    + "ordinary order, once however many instances run the job; a failed charge is retried on the dunning schedule, then "
                    + "the subscription is canceled.", access: secret,
                body: .json(
                    SubscriptionBody.self,
                    example: ["agreement": "agr_3Xv9Lp4Rt1Yw6Kd3Sa8Hz7Qm", "amount": 2500, "interval": ["unit": "month", "count": 1]]),
                responses: [ok(SubscriptionJSON.self, "Created", status: "201")], conflicts: true),
            Operation(
                method: "GET", path: "/v1/subscriptions", id: "listSubscriptions", tag: "recurring",
                summary: "Subscriptions, newest first.",
                access: secret, parameters: [.query("agreement", ["type": "string"], "Only this agreement's.")] + list,
                responses: [ok(RecordPage<SubscriptionJSON>.self)]),
            Operation(
                method: "GET", path: "/v1/subscriptions/{id}", id: "getSubscription", tag: "recurring",
                summary: "A subscription with its invoices.", access: secret, responses: [ok(SubscriptionJSON.self)]),
            action("pause", "Pause: no period is opened until it is resumed."),
            action("resume", "Resume a paused subscription; periods that began while it was paused are not charged."),
            action("cancel", "Cancel: its open invoice is voided and nothing more is charged."),
            Operation(
                method: "POST", path: "/v1/subscriptions/{id}/retry", id: "retrySubscription", tag: "recurring",
                summary: "Charge the open invoice now rather than at its next attempt (409 invalid_state when none is open).",
                access: secret, responses: [ok(SubscriptionJSON.self)], callsProvider: true, conflicts: true),
        ]
    }

    /// Text without control characters (C0, DEL, C1), as a JSON Schema pattern.
    static let noControlCharacters = "^[^\\u0000-\\u001F\\u007F-\\u009F]*$"

    /// The providers' agreement notifications.
    static var agreementNotificationOperations: [Operation] {
        let unread = [
            Response(status: "400", description: "No body: not a notification; nothing was read", content: .json(HTTPErrorBody.self)),
            Response(status: "404", description: "The provider is not configured on this server", content: .json(HTTPErrorBody.self)),
        ]
        let (xml, answers) = (wechatV2Answers + unread, alipayAnswers + unread)
        return [
            Operation(
                method: "POST", path: RecurringService.wechatContractPath, id: "notifyWeChatContracts", tag: "notifications",
                summary: "WeChat Pay 委托代扣 contract notifications (signed XML, change_type ADD or DELETE): verified against the "
                    + "merchant, then the agreement moves to active or terminated, once.", access: .provider,
                body: .provider(contentType: "application/xml", description: "As WeChat Pay sends it."), responses: xml),
            Operation(
                method: "POST", path: RecurringService.alipayAgreementPath, id: "notifyAlipayAgreements", tag: "notifications",
                summary: "Alipay dut_user_sign / dut_user_unsign (RSA2-signed form): verified against the app, then the agreement "
                    + "moves to active or terminated, once.", access: .provider,
                body: .provider(
                    contentType: "application/x-www-form-urlencoded", description: "As Alipay sends it.",
                    fields: ["notify_type", "app_id", "agreement_no", "external_agreement_no", "status", "sign_type", "sign"]),
                responses: answers),
        ]
    }
}

extension AgreementJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: AgreementJSON {
        AgreementJSON(
            id: "agr_3Xv9Lp4Rt1Yw6Kd3Sa8Hz7Qm", provider: "alipay", method: "alipay.app", status: "pending",
            external_no: "A5d41402abc4b2a76b9719d911017c59", provider_agreement_id: "20215314000000000001", plan_id: nil,
            description: "月度会员", period: .init(unit: "month", count: 1), single_limit: Amount(Money(minorUnits: 3000, currency: .cny)),
            provider_state: "TEMP", end_reason: nil,
            launch: AgreementLaunchJSON(kind: "alipay_sign_string", sign_string: "app_id=2021000000000000&biz_content=…&sign=…"),
            merchant: nil, created: 1_796_113_830, activated: nil, ended: nil)
    }
    static var schemaName: String { "Agreement" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "object": ["const": "agreement"], "provider": ["enum": ["wechat.v2", "alipay", "applepay"]],
            "status": ["enum": StoredAgreement.Status.allCases.map(\.rawValue)],
            "launch": OpenAPIDocument.note("Only in the answer to POST /v1/agreements, while pending."),
            "created": OpenAPIDocument.note("Unix seconds."),
        ]
    }
}

extension AgreementJSON.Period: SchemaDocumented {
    static var schemaName: String { "Period" }
    static var schemaNotes: [String: [String: Any]] {
        ["unit": ["enum": StoredAgreement.PeriodUnit.allCases.map(\.rawValue)], "count": ["minimum": 1, "maximum": 366]]
    }
}

extension AgreementLaunchJSON: SchemaDocumented {
    static var schemaName: String { "AgreementLaunch" }
    static var schemaNotes: [String: [String: Any]] {
        ["kind": ["enum": ["url", "wechat_pre_entrust", "alipay_sign_string", "applepay"]]]
    }
}

extension SubscriptionJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: SubscriptionJSON {
        SubscriptionJSON(
            id: "sub_7Qm2Xv9Lp4Rt1Yw6Kd3Sa8Hz", agreement: "agr_3Xv9Lp4Rt1Yw6Kd3Sa8Hz7Qm", status: "active",
            amount: Amount(Money(minorUnits: 2500, currency: .cny)), description: "月度会员", interval: .init(unit: "month", count: 1),
            anchor: 1_796_113_830, current_period: 1, next_charge: 1_798_792_230, max_attempts: 4, cancel_reason: nil, merchant: nil,
            created: 1_796_113_830, canceled: nil, invoices: [.schemaExample])
    }
    static var schemaName: String { "Subscription" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "object": ["const": "subscription"], "status": ["enum": StoredSubscription.Status.allCases.map(\.rawValue)],
            "invoices": OpenAPIDocument.note("Newest first; only when one subscription is read."),
        ]
    }
}

extension InvoiceJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: InvoiceJSON {
        InvoiceJSON(
            id: "inv_1Yw6Kd3Sa8Hz7Qm2Xv9Lp4Rt", subscription: "sub_7Qm2Xv9Lp4Rt1Yw6Kd3Sa8Hz", period: 1,
            order: "ord_2Yw6Kd3Sa8Hz7Qm2Xv9Lp4Rt", amount: Amount(Money(minorUnits: 2500, currency: .cny)), status: "paid", attempts: 1,
            next_attempt: nil, last_error: nil, period_start: 1_796_113_830, created: 1_796_113_830, finished: 1_796_113_835)
    }
    static var schemaName: String { "Invoice" }
    static var schemaNotes: [String: [String: Any]] {
        ["object": ["const": "invoice"], "status": ["enum": StoredInvoice.Status.allCases.map(\.rawValue)]]
    }
}

extension RecurringEventJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: RecurringEventJSON {
        RecurringEventJSON(
            id: "evt_6c5d4e3f2a1b0c9d8e5f2b0c1d9e8a7b", type: "invoice.paid", created: 1_796_113_835,
            data: .init(agreement: .schemaExample, subscription: .schemaExample, invoice: .schemaExample))
    }
    static var schemaName: String { "RecurringEvent" }
    static var schemaDescription: String? {
        "A webhook about an agreement, a subscription or an invoice, signed and retried as every webhook; data holds the one it is about."
    }
    static var schemaNotes: [String: [String: Any]] { ["type": ["enum": RecurringEventJSON.types]] }
}

extension RecurringEventJSON.Data: SchemaDocumented {
    static var schemaName: String { "RecurringEventData" }
}

extension AgreementBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        [
            "method": ["enum": ["wechat.app", "wechat.jsapi", "wechat.h5", "alipay.app", "alipay.page", "alipay.wap", "applepay"]],
            "description": ["minLength": 1, "maxLength": 32, "pattern": OpenAPIDocument.noControlCharacters],
            "single_limit": ["minimum": 1, "maximum": 100_000_000],
            "first_charge_date": ["format": "date", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"],
            "currency": ["pattern": "^[A-Z]{3}$"], "plan_id": ["pattern": "^[0-9]{1,28}$"],
        ]
    }
}

extension AgreementBody.Period: SchemaDocumented {
    static var schemaName: String { "PeriodBody" }
    static var schemaNotes: [String: [String: Any]] {
        ["unit": ["enum": StoredAgreement.PeriodUnit.allCases.map(\.rawValue)], "count": ["minimum": 1, "maximum": 366]]
    }
}

extension SubscriptionBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        [
            "amount": ["minimum": 1], "max_attempts": ["minimum": 1, "maximum": 10], "currency": ["pattern": "^[A-Z]{3}$"],
            "description": ["minLength": 1, "maxLength": 128, "pattern": OpenAPIDocument.noControlCharacters],
        ]
    }
}

extension AgreementAuthorizeBody: SchemaDocumented {}

extension EndBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] { ["reason": ["maxLength": 64, "pattern": OpenAPIDocument.noControlCharacters]] }
}
