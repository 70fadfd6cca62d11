import Cashier
import CashierStore
import CashierWire
import Foundation

// The profit-sharing operations (`/v1/orders/{id}/splits…`, `/v1/receivers…`), their types'
// examples and notes, and Alipay's application gateway.

extension OpenAPIDocument {
    static var splitOperations: [Operation] {
        let secret = Access.secret
        let page: [Parameter] = [
            .query(
                "limit", ["type": "integer", "minimum": RequestBounds.listLimit.lowerBound, "maximum": RequestBounds.listLimit.upperBound],
                "How many to list (default 20)."),
            .query("offset", ["type": "integer", "minimum": 0, "maximum": 100_000], "How many to skip (default 0)."),
        ]
        return [
            Operation(
                method: "POST", path: "/v1/orders/{id}/splits", id: "createSplit", tag: "splits",
                summary: "Share a paid order with receivers (WeChat Pay 分账, Alipay 分账). The order must have been created with "
                    + "profit_sharing: true. Reserved against its payment before the provider is asked, with refunds, so that "
                    + "shares and refunds together never exceed what was paid (409 split_too_large); with an Idempotency-Key "
                    + "every retry, on any instance, is the same request. Usually answered processing; the provider finishes it.",
                access: secret,
                body: .json(
                    SplitBody.self,
                    example: [
                        "receivers": [["receiver": "rcv_7Qm2Xv9Lp4Rt1Yw6Kd3Sa8Hz", "amount": 300, "description": "店铺分成"]],
                        "description": "订单分账",
                    ]), responses: [ok(SplitJSON.self, "Sent: usually processing", status: "201")], idempotent: true,
                callsProvider: true, conflicts: true),
            Operation(
                method: "GET", path: "/v1/orders/{id}/splits", id: "listSplits", tag: "splits",
                summary: "An order's splits and returns, and what is left to share.", access: secret, responses: [ok(SplitsPage.self)]),
            Operation(
                method: "POST", path: "/v1/orders/{id}/splits/finish", id: "finishSplits", tag: "splits",
                summary: "End an order's sharing: what is left unfreezes to the merchant, and nothing more can be shared.",
                access: secret, body: .json(SplitFinishBody.self, example: ["description": "解冻全部剩余资金"]),
                responses: [ok(SplitJSON.self, "Sent", status: "201")], idempotent: true, callsProvider: true, conflicts: true),
            Operation(
                method: "GET", path: "/v1/splits/{id}", id: "getSplit", tag: "splits", summary: "A split.",
                access: secret, responses: [ok(SplitJSON.self)]),
            Operation(
                method: "POST", path: "/v1/splits/{id}/returns", id: "createSplitReturn", tag: "splits",
                summary: "Take money back from one receiver of a finished split (WeChat Pay 分账回退; a MERCHANT_ID receiver's "
                    + "share, at most what it brought them less earlier returns). Once back it may be refunded. Alipay takes "
                    + "shares back through refunds, not here (409 unsupported).",
                access: secret,
                body: .json(
                    SplitReturnBody.self,
                    example: ["receiver": "rcv_7Qm2Xv9Lp4Rt1Yw6Kd3Sa8Hz", "amount": 100, "description": "用户退款"]),
                responses: [ok(SplitReturnJSON.self, "Sent", status: "201")], idempotent: true, callsProvider: true, conflicts: true),
            Operation(
                method: "POST", path: "/v1/receivers", id: "addReceiver", tag: "splits",
                summary: "Add someone orders may be shared with, at the provider (their name is sent encrypted, never kept). "
                    + "Adding the same one again answers 200 with it.",
                access: secret,
                body: .json(
                    ReceiverBody.self,
                    example: [
                        "provider": "wechat", "type": "MERCHANT_ID", "account": "1900000109", "name": "深圳市某某餐饮有限公司",
                        "relation_type": "STORE",
                    ]), responses: [ok(ReceiverJSON.self, "Added", status: "201"), ok(ReceiverJSON.self, "Already added")],
                callsProvider: true, conflicts: true),
            Operation(
                method: "GET", path: "/v1/receivers", id: "listReceivers", tag: "splits", summary: "Receivers, newest first.",
                access: secret, parameters: page, responses: [ok(RecordPage<ReceiverJSON>.self)]),
            Operation(
                method: "GET", path: "/v1/receivers/{id}", id: "getReceiver", tag: "splits", summary: "A receiver.", access: secret,
                responses: [ok(ReceiverJSON.self)]),
            Operation(
                method: "POST", path: "/v1/receivers/{id}/remove", id: "removeReceiver", tag: "splits",
                summary: "Delete a receiver at the provider: splits can no longer name it.", access: secret,
                responses: [ok(ReceiverJSON.self)], callsProvider: true, conflicts: true),
        ]
    }

    /// Alipay's application gateway: its message service's split results.
    static var splitNotificationOperation: Operation {
        Operation(
            method: "POST", path: "/notify/alipay/gateway", id: "notifyAlipayGateway", tag: "notifications",
            summary: "Alipay's application gateway (应用网关): message-service calls (RSA2-signed form with msg_method and "
                + "biz_content). alipay.trade.order.settle.notify moves the split it names, once; verified before anything is read.",
            access: .provider,
            body: .provider(
                contentType: "application/x-www-form-urlencoded", description: "As Alipay sends it.",
                fields: ["msg_method", "app_id", "biz_content", "sign_type", "sign"]),
            responses: [
                Response(
                    status: "200", description: "`success` (recorded, or a repeat) or `fail` (Alipay sends again)",
                    content: .text(contentType: "text/plain")),
                Response(
                    status: "401", description: "The signature, or the app it names, does not verify; nothing was read",
                    content: .text(contentType: "text/plain")),
                Response(status: "400", description: "No body: not a notification; nothing was read", content: .json(HTTPErrorBody.self)),
                Response(status: "404", description: "Alipay is not configured on this server", content: .json(HTTPErrorBody.self)),
            ])
    }
}

extension SplitJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: SplitJSON {
        let amount = Amount(Money(minorUnits: 300, currency: .cny))
        return SplitJSON(
            id: "spl_4Kd8Sa9Hq2Lm7Xv1Pz6Rt3Yw", order_id: "ord_2Yw6Kd3Sa8Hz7Qm2Xv9Lp4Rt", payment_id: "pay_8Hz7Qm2Xv9Lp4Rt1Yw6Kd3Sa",
            provider: "wechat", out_order_no: "S5d41402abc4b2a76b9719d911017c59", provider_order_id: "3008450740201411110007820472",
            status: "finished", provider_state: "FINISHED", amount: amount, finish: false, description: "订单分账",
            receivers: [
                .init(
                    type: "MERCHANT_ID", account: "1900000109", amount: amount, description: "店铺分成", result: "succeeded",
                    failure_reason: nil, returned: Amount(Money(minorUnits: 0, currency: .cny)))
            ], failure_reason: nil, created: 1_796_113_830, updated: 1_796_113_890, finished: 1_796_113_890)
    }
    static var schemaName: String { "Split" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "provider": ["enum": ["wechat", "alipay"]], "status": ["enum": StoredSplit.Status.allCases.map(\.rawValue)],
            "finish": OpenAPIDocument.note("true when this request ended the order's sharing."),
            "created": OpenAPIDocument.note("Unix seconds."),
        ]
    }
}

extension SplitJSON.Share: SchemaDocumented {
    static var schemaName: String { "SplitShare" }
    static var schemaNotes: [String: [String: Any]] { ["result": ["enum": StoredSplit.Share.Result.allCases.map(\.rawValue)]] }
}

extension SplitReturnJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: SplitReturnJSON {
        SplitReturnJSON(
            id: "sret_1Yw6Kd3Sa8Hz7Qm2Xv9Lp4Rt", split_id: "spl_4Kd8Sa9Hq2Lm7Xv1Pz6Rt3Yw", order_id: "ord_2Yw6Kd3Sa8Hz7Qm2Xv9Lp4Rt",
            out_return_no: "B7b52009b64fd0a2a49e6d8a939753077", account: "1900000109",
            amount: Amount(Money(minorUnits: 100, currency: .cny)),
            description: "用户退款", status: "succeeded", provider_state: "SUCCESS", failure_reason: nil, created: 1_796_114_000,
            updated: 1_796_114_060)
    }
    static var schemaName: String { "SplitReturn" }
    static var schemaNotes: [String: [String: Any]] { ["status": ["enum": StoredSplitReturn.Status.allCases.map(\.rawValue)]] }
}

extension SplitsPage: SchemaExample, SchemaDocumented {
    static var schemaExample: SplitsPage {
        let cny = { (minor: Int64) in Amount(Money(minorUnits: minor, currency: .cny)) }
        return SplitsPage(
            order_id: "ord_2Yw6Kd3Sa8Hz7Qm2Xv9Lp4Rt", paid: cny(1000), refunded: cny(0), shared: cny(300), shareable: cny(700),
            finished: false, data: [.schemaExample], returns: [.schemaExample])
    }
    static var schemaName: String { "Splits" }
}

extension ReceiverJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: ReceiverJSON {
        ReceiverJSON(
            id: "rcv_7Qm2Xv9Lp4Rt1Yw6Kd3Sa8Hz", provider: "wechat", type: "MERCHANT_ID", account: "1900000109", relation_type: "STORE",
            custom_relation: nil, status: "active", created: 1_796_113_000)
    }
    static var schemaName: String { "Receiver" }
    static var schemaNotes: [String: [String: Any]] {
        ["provider": ["enum": ["wechat", "alipay"]], "status": ["enum": StoredReceiver.Status.allCases.map(\.rawValue)]]
    }
}

extension SplitBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        ["receivers": ["minItems": 1, "maxItems": SplitService.sharesPerRequest], "description": ["minLength": 1, "maxLength": 80]]
    }
}

extension SplitBody.Share: SchemaDocumented {
    static var schemaName: String { "SplitShareRequest" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "amount": ["minimum": 1], "description": ["minLength": 1, "maxLength": 80], "receiver": ["minLength": 1],
            "type": ["enum": ["MERCHANT_ID", "PERSONAL_OPENID", "PERSONAL_SUB_OPENID", "userId", "loginName", "openId"]],
            "account": ["minLength": 1, "maxLength": 64],
        ]
    }
}

extension SplitFinishBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] { ["description": ["minLength": 1, "maxLength": 80]] }
}

extension SplitReturnBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        ["amount": ["minimum": 1], "description": ["minLength": 1, "maxLength": 80], "receiver": ["minLength": 1]]
    }
}

extension ReceiverBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        [
            "provider": ["enum": ["wechat", "alipay"]],
            "type": ["enum": ["MERCHANT_ID", "PERSONAL_OPENID", "PERSONAL_SUB_OPENID", "userId", "loginName", "openId"]],
            "account": ["minLength": 1, "maxLength": 64], "name": ["maxLength": 64],
            "relation_type": ["enum": SplitService.relationTypes.sorted()], "custom_relation": ["minLength": 1, "maxLength": 10],
        ]
    }
}

extension SplitEventJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: SplitEventJSON {
        SplitEventJSON(
            id: "evt_7c2b0c1d9e8a7b6c5d4e3f2a1b0c9d8e", type: "split.finished", created: 1_796_113_890,
            data: .init(split: .schemaExample))
    }
    static var schemaName: String { "SplitEvent" }
    static var schemaDescription: String? {
        "A webhook about a split, signed and retried as every webhook (Cashier-Signature, Cashier-Event-Id), queued under its order."
    }
    static var schemaNotes: [String: [String: Any]] { ["type": ["enum": SplitEventJSON.types]] }
}

extension SplitEventJSON.Data: SchemaDocumented {
    static var schemaName: String { "SplitEventData" }
}
