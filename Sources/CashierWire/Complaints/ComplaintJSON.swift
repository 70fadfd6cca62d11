/// A payer's complaint about a payment, as the provider reported it and Cashier keeps it
/// (`GET /v1/complaints/{id}`, and the `complaint.*` webhooks). WeChat Pay wants the merchant's
/// first answer by ``respond_by`` (24 hours after the complaint) and the complaint handled by
/// ``settle_by`` (72 hours); past either it steps in, and may refund the payer from the merchant's
/// funds.
///
/// ```swift
/// let event = try JSONDecoder().decode(WebhookEventJSON.self, from: body)  // after checking Cashier-Signature
/// if event.type == "complaint.created", let complaint = event.data.complaint { page(support, complaint.id) }
/// ```
public struct ComplaintJSON: Codable, Sendable, Equatable {
    /// `cmp_…`.
    public let id: String
    /// Always `complaint`.
    public let object: String
    /// The provider the complaint was made at: `wechat.v3` (WeChat Pay's complaint API is v3 only,
    /// whichever API took the payment).
    public let provider: String
    /// The provider's complaint id (`complaint_id`).
    public let provider_complaint_id: String
    /// The sub-merchant whose payment it concerns, when the key or payment is a sub-merchant's.
    public let merchant: String?
    /// The order and payment it concerns, when Cashier took that payment (matched by trade number).
    public let order_id: String?
    public let payment_id: String?
    /// The provider's trade it concerns.
    public let out_trade_no: String?
    public let transaction_id: String?
    /// `pending` (not answered yet), `processing` (answered), `processed` (done).
    public let state: String
    /// `REFUND` (the payer asks for money back), `SERVICE_NOT_WORK`, `OTHERS`.
    public let problem_type: String?
    /// The kind of problem, in the provider's words (`problem_description`).
    public let summary: String
    /// What the payer wrote (`complaint_detail`).
    public let detail: String
    /// The payer's phone (decrypted), on `GET /v1/complaints/{id}` only.
    public let payer_phone: String?
    /// The trade's amount.
    public let amount: Amount?
    /// What a `REFUND` complaint asks back.
    public let requested_refund: Amount?
    /// How often the payer complained of this (2 or more: a repeat complaint).
    public let complaint_count: Int
    /// A message from the payer waits for an answer.
    public let awaiting_reply: Bool
    /// The trade was refunded in full.
    public let fully_refunded: Bool
    /// `approved` or `rejected`, once the merchant decided on a `REFUND` complaint.
    public let refund_decision: String?
    /// The refund made when it was approved (`re_…`): an ordinary refund of the payment.
    public let refund_id: String?
    /// When the payer complained (Unix seconds; a repeat complaint: when it was made again).
    public let created: Int64
    /// The first answer is due by then (24 hours after ``created``).
    public let respond_by: Int64
    /// It must be handled by then (72 hours after ``created``).
    public let settle_by: Int64
    /// When the merchant first answered.
    public let responded: Int64?
    /// When it was handled.
    public let processed: Int64?
    /// A deadline passed with the complaint not answered or not handled.
    public let overdue: Bool
    /// The payer's images, as paths on this server (`/v1/complaints/{id}/images/{n}`) that serve them.
    public let images: [String]
    /// The conversation, oldest first (on `GET /v1/complaints/{id}` only).
    public let conversation: [ComplaintMessageJSON]?

    public init(
        id: String, provider: String, provider_complaint_id: String, merchant: String?, order_id: String?, payment_id: String?,
        out_trade_no: String?, transaction_id: String?, state: String, problem_type: String?, summary: String, detail: String,
        payer_phone: String?, amount: Amount?, requested_refund: Amount?, complaint_count: Int, awaiting_reply: Bool,
        fully_refunded: Bool, refund_decision: String?, refund_id: String?, created: Int64, respond_by: Int64, settle_by: Int64,
        responded: Int64?, processed: Int64?, overdue: Bool, images: [String], conversation: [ComplaintMessageJSON]?
    ) {
        self.id = id
        object = "complaint"
        self.provider = provider
        self.provider_complaint_id = provider_complaint_id
        self.merchant = merchant
        self.order_id = order_id
        self.payment_id = payment_id
        self.out_trade_no = out_trade_no
        self.transaction_id = transaction_id
        self.state = state
        self.problem_type = problem_type
        self.summary = summary
        self.detail = detail
        self.payer_phone = payer_phone
        self.amount = amount
        self.requested_refund = requested_refund
        self.complaint_count = complaint_count
        self.awaiting_reply = awaiting_reply
        self.fully_refunded = fully_refunded
        self.refund_decision = refund_decision
        self.refund_id = refund_id
        self.created = created
        self.respond_by = respond_by
        self.settle_by = settle_by
        self.responded = responded
        self.processed = processed
        self.overdue = overdue
        self.images = images
        self.conversation = conversation
    }
}

/// One step of a complaint's conversation.
public struct ComplaintMessageJSON: Codable, Sendable, Equatable {
    /// The provider's id for the step (`log_id`).
    public let id: String
    /// `payer`, `merchant` or `platform` (the provider).
    public let author: String
    /// What the step was, in the provider's words (`USER_RESPONSE`, `MERCHANT_RESPONSE`, …).
    public let kind: String
    /// Its words.
    public let text: String
    /// Its images, as paths on this server (`/v1/complaints/{id}/images/{n}`).
    public let images: [String]
    /// When (Unix seconds).
    public let created: Int64

    public init(id: String, author: String, kind: String, text: String, images: [String], created: Int64) {
        self.id = id
        self.author = author
        self.kind = kind
        self.text = text
        self.images = images
        self.created = created
    }
}

/// `POST /v1/complaints/{id}/images`'s answer: an image uploaded to the provider for an answer.
public struct ComplaintImageJSON: Codable, Sendable, Equatable {
    /// The provider's `media_id`: name it in `images` of `POST /v1/complaints/{id}/responses`.
    public let media_id: String
    /// The file's name.
    public let filename: String
    /// Its size in bytes.
    public let size: Int

    public init(media_id: String, filename: String, size: Int) {
        self.media_id = media_id
        self.filename = filename
        self.size = size
    }
}
