import Cashier
import CashierStore
import CashierWire
import Foundation

// The `/v1/transfers` operations, their types' examples and notes, and the transfer notify path.

extension OpenAPIDocument {
    static var transferOperations: [Operation] {
        let secret = Access.secret
        return [
            Operation(
                method: "POST", path: "/v1/transfers", id: "createTransfer", tag: "transfers",
                summary: "Transfer money out of the merchant's WeChat Pay account to a person (商家转账). Reserved under its "
                    + "out_bill_no before WeChat Pay is asked: with an Idempotency-Key, every retry, on any instance, is the same "
                    + "bill. The payee confirms it in WeChat with package_info (wx.requestMerchantTransfer); user_name is required "
                    + "from 2000 yuan (200000 fen) and sent encrypted.", access: secret,
                body: .json(
                    TransferBody.self,
                    example: [
                        "provider": "wechat", "amount": 500, "currency": "CNY", "openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o",
                        "remark": "新会员开通有礼", "scene": "1000",
                        "report_infos": [
                            ["info_type": "活动名称", "info_content": "新会员有礼"], ["info_type": "奖励说明", "info_content": "注册会员抽奖一等奖"],
                        ],
                    ]), responses: [ok(TransferJSON.self, "Sent: usually waiting_for_payee", status: "201")], idempotent: true,
                callsProvider: true, conflicts: true),
            Operation(
                method: "GET", path: "/v1/transfers", id: "listTransfers", tag: "transfers", summary: "Transfers, newest first.",
                access: secret,
                parameters: [
                    .query(
                        "limit",
                        ["type": "integer", "minimum": RequestBounds.listLimit.lowerBound, "maximum": RequestBounds.listLimit.upperBound],
                        "How many to list (default 20)."),
                    .query("offset", ["type": "integer", "minimum": 0, "maximum": 100_000], "How many to skip (default 0)."),
                ], responses: [ok(RecordPage<TransferJSON>.self)]),
            Operation(
                method: "GET", path: "/v1/transfers/{id}", id: "getTransfer", tag: "transfers", summary: "A transfer.", access: secret,
                responses: [ok(TransferJSON.self)]),
            Operation(
                method: "POST", path: "/v1/transfers/{id}/cancel", id: "cancelTransfer", tag: "transfers",
                summary: "Cancel a transfer its payee has not confirmed yet (409 invalid_state once they did, or it ended).",
                access: secret, responses: [ok(TransferJSON.self)], callsProvider: true, conflicts: true),
        ]
    }

    /// WeChat Pay's transfer notifications (the direct merchant's: transfers are paid from its own account).
    static var transferNotificationOperation: Operation {
        let fail = Content.anyObject("{\"code\":\"FAIL\",\"message\":…}")
        var operation = Operation(
            method: "POST", path: "/notify/wechat/v3/transfers", id: "notifyWeChatV3Transfers", tag: "notifications",
            summary: "WeChat Pay transfer notifications (MCHTRANSFER.BILL.FINISHED; signed JSON, AES-256-GCM resource), sent to "
                + "the notify_url each transfer names. Verified before anything is read, then checked against the transfer's "
                + "merchant and amount; the transfer then moves to succeeded, failed or cancelled, once.",
            access: .provider, body: .provider(contentType: "application/json", description: "As WeChat Pay sends it."),
            responses: [
                Response(status: "204", description: "Recorded, or a repeat", content: .empty),
                Response(status: "400", description: "No body: not a notification; nothing was read", content: .json(HTTPErrorBody.self)),
                Response(status: "401", description: "The signature does not verify", content: fail),
                Response(
                    status: "404", description: "WeChat Pay API v3 is not configured on this server", content: .json(HTTPErrorBody.self)),
                Response(status: "500", description: "Not recorded yet (the store failed): WeChat Pay sends it again", content: fail),
            ])
        operation.parameters = complaintNotificationOperation.parameters
        return operation
    }
}

extension TransferJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: TransferJSON {
        TransferJSON(
            id: "tr_9Hq2Lm4Xv7Pz1Rt6Yw3Kd8Sa", provider: "wechat", out_bill_no: "T5d41402abc4b2a76b9719d911017c592",
            provider_bill_no: "1330000071100999991182020050700019480001", status: "waiting_for_payee", provider_state: "WAIT_USER_CONFIRM",
            amount: Amount(Money(minorUnits: 500, currency: .cny)), openid: "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", remark: "新会员开通有礼",
            scene: "1000", user_name_given: false, package_info: "affffddafdfafddffda==", mch_id: "1230000109",
            app_id: "wxd678efh567hg6787", failure_reason: nil, created: 1_796_113_830, updated: 1_796_113_830, finished: nil)
    }
    static var schemaName: String { "Transfer" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "provider": ["enum": ["wechat", "alipay"]],
            "status": ["enum": StoredTransfer.Status.allCases.map(\.rawValue)],
            "package_info": OpenAPIDocument.note(
                "While waiting_for_payee: hand it, with mch_id and app_id, to wx.requestMerchantTransfer."),
            "created": OpenAPIDocument.note("Unix seconds."),
        ]
    }
}

extension TransferBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        [
            "provider": ["enum": ["wechat", "alipay"]], "currency": ["enum": ["CNY"]],
            "amount": ["minimum": TransferService.amounts.lowerBound, "maximum": TransferService.amounts.upperBound],
            "openid": ["minLength": 1, "maxLength": 128], "remark": ["minLength": 1, "maxLength": 32],
            "scene": ["minLength": 1, "maxLength": 16], "user_name": ["maxLength": 32], "perception": ["maxLength": 32],
            "report_infos": ["minItems": 1],
        ]
    }
}

extension TransferBody.ReportInfo: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        ["info_type": ["minLength": 1, "maxLength": 32], "info_content": ["minLength": 1, "maxLength": 64]]
    }
}

extension TransferEventJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: TransferEventJSON {
        TransferEventJSON(
            id: "evt_5f2b0c1d9e8a7b6c5d4e3f2a1b0c9d8e", type: "transfer.succeeded", created: 1_796_113_890,
            data: .init(transfer: .schemaExample))
    }
    static var schemaName: String { "TransferEvent" }
    static var schemaDescription: String? {
        "A webhook about a transfer, signed and retried as every webhook (Cashier-Signature, Cashier-Event-Id); mch_id is null in it."
    }
    static var schemaNotes: [String: [String: Any]] { ["type": ["enum": TransferEventJSON.types]] }
}

extension TransferEventJSON.Data: SchemaDocumented {
    static var schemaName: String { "TransferEventData" }
}
