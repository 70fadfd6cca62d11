import Cashier
import CashierStore
import CashierWire
import Foundation

// The `/v1/complaints` operations, their types' examples and notes, and the complaint notify path.

extension OpenAPIDocument {
    static var complaintOperations: [Operation] {
        let secret = Access.secret
        return [
            Operation(
                method: "GET", path: "/v1/complaints", id: "listComplaints", tag: "complaints",
                summary: "Payers' complaints (WeChat Pay's 消费者投诉): open ones first, the nearest deadline first; handled ones after.",
                access: secret,
                parameters: [
                    .query(
                        "state", ["type": "string", "enum": ["pending", "processing", "processed", "open"]],
                        "Only in this state (open: pending or processing)."),
                    .query(
                        "limit",
                        ["type": "integer", "minimum": RequestBounds.listLimit.lowerBound, "maximum": RequestBounds.listLimit.upperBound],
                        "How many to list (default 20)."),
                    .query("offset", ["type": "integer", "minimum": 0, "maximum": 100_000], "How many to skip (default 0)."),
                ], responses: [ok(RecordPage<ComplaintJSON>.self)]),
            Operation(
                method: "GET", path: "/v1/complaints/{id}", id: "getComplaint", tag: "complaints",
                summary: "A complaint with its conversation and the payer's phone.", access: secret, responses: [ok(ComplaintJSON.self)]),
            Operation(
                method: "GET", path: "/v1/complaints/{id}/images/{index}", id: "getComplaintImage", tag: "complaints",
                summary:
                    "Image `index` of the complaint (its `images` and its conversation's, numbered from 0), fetched from the provider.",
                access: secret,
                responses: [.init(status: "200", description: "The image (JPEG, PNG or BMP)", content: .text(contentType: "image/*"))],
                callsProvider: true),
            Operation(
                method: "POST", path: "/v1/complaints/{id}/images", id: "uploadComplaintImage", tag: "complaints",
                summary: "Upload an image for an answer (JPG, BMP or PNG of at most 2 MB, base64): its media_id goes in `images`.",
                access: secret,
                body: .json(ComplaintImageBody.self, example: ["filename": "receipt.png", "data": "iVBORw0KGgoAAAANSUhEUg=="]),
                responses: [ok(ComplaintImageJSON.self, "Uploaded", status: "201")], callsProvider: true),
            Operation(
                method: "POST", path: "/v1/complaints/{id}/responses", id: "respondToComplaint", tag: "complaints",
                summary: "Answer the payer (at most 200 characters, up to 4 images, a link with its text); the first answer moves "
                    + "the complaint from pending to processing.", access: secret,
                body: .json(
                    ComplaintReplyBody.self,
                    example: [
                        "text": "已为您退款，请查收", "images": ["MEDIA_ID"], "link_url": "https://shop.example.com/orders/8812",
                        "link_text": "查看订单",
                    ]), responses: [ok(ComplaintJSON.self)], callsProvider: true, conflicts: true),
            Operation(
                method: "POST", path: "/v1/complaints/{id}/complete", id: "completeComplaint", tag: "complaints",
                summary: "Tell the provider the complaint is handled (the payer is asked to rate it; a payer who complains again "
                    + "counts as a repeat complaint).", access: secret, responses: [ok(ComplaintJSON.self)], callsProvider: true,
                conflicts: true),
            Operation(
                method: "POST", path: "/v1/complaints/{id}/refund", id: "decideComplaintRefund", tag: "complaints",
                summary: "Decide on the refund a REFUND complaint asks for. approve refunds first — the ordinary refund of the "
                    + "payment, reserved, never more than it took (409 refund_too_large otherwise), once however often asked — "
                    + "then tells the provider; reject tells it why.", access: secret,
                body: .json(ComplaintRefundBody.self, example: ["decision": "approve"]), responses: [ok(ComplaintJSON.self)],
                callsProvider: true, conflicts: true),
        ]
    }

    /// WeChat Pay's complaint notifications (not under `/m/{merchant}`: a service provider's come to one URL of its own).
    static var complaintNotificationOperation: Operation {
        let fail = Content.anyObject("{\"code\":\"FAIL\",\"message\":…}")
        var operation = Operation(
            method: "POST", path: "/notify/wechat/v3/complaints", id: "notifyWeChatV3Complaints", tag: "notifications",
            summary: "WeChat Pay complaint notifications (COMPLAINT.CREATE, COMPLAINT.STATE_CHANGE; signed JSON, AES-256-GCM "
                + "resource). Verified before anything is read; the complaint is then read from WeChat Pay and recorded. Set as "
                + "the complaint notify URL by the server at start with wechat_v3.complaint_notifications.",
            access: .provider, body: .provider(contentType: "application/json", description: "As WeChat Pay sends it."),
            responses: [
                Response(status: "204", description: "Recorded, or a repeat", content: .empty),
                Response(status: "400", description: "No body: not a notification; nothing was read", content: .json(HTTPErrorBody.self)),
                Response(status: "401", description: "The signature does not verify", content: fail),
                Response(
                    status: "404", description: "WeChat Pay API v3 is not configured on this server", content: .json(HTTPErrorBody.self)),
                Response(
                    status: "500", description: "Not recorded yet (WeChat Pay did not answer the read): it sends again", content: fail),
            ])
        operation.parameters = [
            .requiredHeader("Wechatpay-Signature", "WeChat Pay's signature over the timestamp, nonce and body."),
            .requiredHeader("Wechatpay-Timestamp", "Unix seconds: refused more than five minutes from this server's clock."),
            .requiredHeader("Wechatpay-Nonce", "The nonce the signature covers."),
            .requiredHeader("Wechatpay-Serial", "The serial of the platform certificate (or public key) that signed it."),
        ]
        return operation
    }
}

extension ComplaintJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: ComplaintJSON {
        ComplaintJSON(
            id: "cmp_4Jt8sQ2mX9vLr0aZbC1dE2fG", provider: "wechat.v3", provider_complaint_id: "200220261201000000000123456",
            merchant: nil, order_id: StoredOrder.example.id, payment_id: StoredPayment.example.id,
            out_trade_no: StoredPayment.example.outTradeNo, transaction_id: "4200000000000000000000000001", state: "processing",
            problem_type: "REFUND", summary: "申请退款", detail: "咖啡是冷的", payer_phone: "13800138000",
            amount: Amount(StoredPayment.example.amount), requested_refund: Amount(Money(minorUnits: 1275, currency: .cny)),
            complaint_count: 1, awaiting_reply: false, fully_refunded: false, refund_decision: "approved", refund_id: "re_example",
            created: 1_796_113_830, respond_by: 1_796_200_230, settle_by: 1_796_373_030, responded: 1_796_117_430, processed: nil,
            overdue: false, images: ["/v1/complaints/cmp_4Jt8sQ2mX9vLr0aZbC1dE2fG/images/0"],
            conversation: [
                ComplaintMessageJSON(
                    id: "1000000001", author: "payer", kind: "USER_CREATE_COMPLAINT", text: "咖啡是冷的",
                    images: ["/v1/complaints/cmp_4Jt8sQ2mX9vLr0aZbC1dE2fG/images/0"], created: 1_796_113_830)
            ])
    }
    static var schemaName: String { "Complaint" }
    static var schemaNotes: [String: [String: Any]] {
        [
            "object": ["const": "complaint"], "provider": ["enum": ["wechat.v3"]],
            "state": ["enum": ["pending", "processing", "processed"]], "refund_decision": ["enum": ["approved", "rejected"]],
            "respond_by": OpenAPIDocument.note("Unix seconds: the first answer is due (24 hours after created)."),
            "settle_by": OpenAPIDocument.note("Unix seconds: it must be handled (72 hours after created)."),
            "created": OpenAPIDocument.note("Unix seconds: when the payer complained (or complained again)."),
        ]
    }
}

extension ComplaintMessageJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: ComplaintMessageJSON { ComplaintJSON.schemaExample.conversation![0] }
    static var schemaName: String { "ComplaintMessage" }
    static var schemaNotes: [String: [String: Any]] { ["author": ["enum": ["payer", "merchant", "platform"]]] }
}

extension ComplaintImageJSON: SchemaExample, SchemaDocumented {
    static var schemaExample: ComplaintImageJSON { ComplaintImageJSON(media_id: "MEDIA_ID", filename: "receipt.png", size: 48_213) }
    static var schemaName: String { "ComplaintImage" }
}

extension ComplaintReplyBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        [
            "text": ["minLength": 1, "maxLength": ComplaintService.replyLimit],
            "images": ["maxItems": ComplaintService.imageLimit, "items": ["type": "string", "minLength": 1, "maxLength": 512]],
            "link_url": ["pattern": "^https://"],
        ]
    }
}

extension ComplaintImageBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        [
            "filename": ["pattern": "(?i)\\.(jpe?g|png|bmp)$", "maxLength": 128],
            // Standard base64 of at most 2 MB: ceil(2 MiB / 3) × 4 characters.
            "data": [
                "contentEncoding": "base64", "minLength": 4, "maxLength": 2_796_204,
                "pattern": "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$",
            ],
        ]
    }
}

extension ComplaintRefundBody: SchemaDocumented {
    static var schemaNotes: [String: [String: Any]] {
        [
            "decision": ["enum": ["approve", "reject"]], "amount": ["pattern": OpenAPIDocument.decimalAmount],
            "reason": ["maxLength": ComplaintService.replyLimit],
            "images": ["maxItems": ComplaintService.imageLimit, "items": ["type": "string", "minLength": 1, "maxLength": 512]],
        ]
    }
    static var schemaExtra: [String: Any] { OpenAPIDocument.notBothAmounts }
}
