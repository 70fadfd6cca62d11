public import Cashier
public import CashierWire
public import Foundation

/// A payer's complaint as stored: what the provider last said of it (``ComplaintSnapshot``), the
/// payment it concerns (found by trade number when Cashier took it), its deadlines, and what the
/// merchant decided here. The provider is the source of its state; a sync records what changed.
public struct StoredComplaint: Sendable, Equatable {
    /// Where a complaint is, as WeChat Pay's `complaint_state` says.
    public enum State: String, Sendable, CaseIterable {
        /// Not answered yet (`PENDING`).
        case pending
        /// Answered, not done (`PROCESSING`).
        case processing
        /// Done (`PROCESSED`): completed, refunded, refused or withdrawn.
        case processed
    }

    /// `cmp_…`.
    public let id: String
    /// What the provider said last.
    public let snapshot: ComplaintSnapshot
    /// The sub-merchant whose payment it concerns (the order's).
    public let merchant: String?
    public let orderID: String?
    public let paymentID: String?
    /// `approved` or `rejected`, once decided here.
    public let refundDecision: String?
    /// The refund made when it was approved.
    public let refundID: String?
    /// When a missed deadline was announced (`complaint.overdue`): the first answer's, and the handling's.
    public let respondOverdueAt: Date?
    public let settleOverdueAt: Date?
    /// Bumped by each change.
    public let version: Int64
    public let createdAt: Date
    public let updatedAt: Date

    /// The state.
    public var state: State { snapshot.state }

    /// A deadline passed at `now`: not answered by ``ComplaintSnapshot/respondBy``, or not
    /// handled by ``ComplaintSnapshot/settleBy``.
    /// - Parameter now: the time to judge at.
    public func isOverdue(at now: Date) -> Bool {
        (state == .pending && now > snapshot.respondBy) || (state != .processed && now > snapshot.settleBy)
    }

    /// The next deadline of an open complaint (the answer's while unanswered, then the handling's); `nil` once handled.
    public var nextDeadline: Date? {
        switch state {
        case .pending: snapshot.respondBy
        case .processing: snapshot.settleBy
        case .processed: nil
        }
    }

    /// Every image of the complaint and its conversation (provider URLs), each once, in order:
    /// what `/v1/complaints/{id}/images/{n}` numbers from 0.
    public var imageURLs: [String] {
        var seen = Set<String>()
        return (snapshot.images + snapshot.conversation.flatMap(\.imageURLs)).filter { seen.insert($0).inserted }
    }

    /// The complaint as the API shows it.
    /// - Parameters:
    ///   - now: the time the answer's `overdue` is judged at.
    ///   - full: with the payer's phone and the conversation (`GET /v1/complaints/{id}`); without
    ///     them in lists and webhooks.
    public func json(now: Date, full: Bool) -> ComplaintJSON {
        let images = imageURLs
        func path(_ url: String) -> String { "/v1/complaints/\(id)/images/\(images.firstIndex(of: url) ?? 0)" }
        let snapshot = snapshot
        return ComplaintJSON(
            id: id, provider: snapshot.provider, provider_complaint_id: snapshot.providerComplaintID, merchant: merchant,
            order_id: orderID, payment_id: paymentID, out_trade_no: snapshot.outTradeNo, transaction_id: snapshot.transactionID,
            state: state.rawValue, problem_type: snapshot.problemType, summary: snapshot.summary, detail: snapshot.detail,
            payer_phone: full ? snapshot.payerPhone : nil, amount: snapshot.amount.map(Amount.init),
            requested_refund: snapshot.requestedRefund.map(Amount.init), complaint_count: snapshot.complaintCount,
            awaiting_reply: snapshot.awaitingReply, fully_refunded: snapshot.fullyRefunded, refund_decision: refundDecision,
            refund_id: refundID, created: Int64(snapshot.complainedAt.timeIntervalSince1970),
            respond_by: Int64(snapshot.respondBy.timeIntervalSince1970), settle_by: Int64(snapshot.settleBy.timeIntervalSince1970),
            responded: snapshot.respondedAt.map { Int64($0.timeIntervalSince1970) },
            processed: snapshot.processedAt.map { Int64($0.timeIntervalSince1970) }, overdue: isOverdue(at: now),
            images: snapshot.images.map(path),
            conversation: full
                ? snapshot.conversation.map {
                    ComplaintMessageJSON(
                        id: $0.id, author: $0.author, kind: $0.kind, text: $0.text, images: $0.imageURLs.map(path),
                        created: Int64($0.createdAt.timeIntervalSince1970))
                } : nil)
    }
}

/// What a provider says of a complaint now (its detail and its conversation, read together).
public struct ComplaintSnapshot: Sendable, Equatable, Codable {
    /// One step of the conversation.
    public struct Message: Sendable, Equatable, Codable {
        /// The provider's id for the step.
        public let id: String
        /// `payer`, `merchant` or `platform`.
        public let author: String
        /// The provider's word for the step (`USER_RESPONSE`, …).
        public let kind: String
        public let text: String
        /// Provider URLs.
        public let imageURLs: [String]
        public let createdAt: Date

        public init(id: String, author: String, kind: String, text: String, imageURLs: [String], createdAt: Date) {
            self.id = id
            self.author = author
            self.kind = kind
            self.text = text
            self.imageURLs = imageURLs
            self.createdAt = createdAt
        }
    }

    /// `wechat.v3`.
    public let provider: String
    public let providerComplaintID: String
    /// The merchant complained about at the provider (`complainted_mchid`).
    public let providerMerchantID: String
    public let outTradeNo: String?
    public let transactionID: String?
    public let state: StoredComplaint.State
    public let problemType: String?
    public let summary: String
    public let detail: String
    public let payerPhone: String?
    public let amount: Money?
    public let requestedRefund: Money?
    public let complaintCount: Int
    public let awaitingReply: Bool
    public let fullyRefunded: Bool
    /// When the payer complained (or complained again).
    public let complainedAt: Date
    /// When the first answer is due, and the handling.
    public let respondBy: Date
    public let settleBy: Date
    /// The merchant's first answer since ``complainedAt``.
    public let respondedAt: Date?
    /// When it was handled (the last step of a processed complaint).
    public let processedAt: Date?
    /// The payer's images (provider URLs).
    public let images: [String]
    public let conversation: [Message]

    public init(
        provider: String, providerComplaintID: String, providerMerchantID: String, outTradeNo: String?, transactionID: String?,
        state: StoredComplaint.State, problemType: String?, summary: String, detail: String, payerPhone: String?, amount: Money?,
        requestedRefund: Money?, complaintCount: Int, awaitingReply: Bool, fullyRefunded: Bool, complainedAt: Date, respondBy: Date,
        settleBy: Date, respondedAt: Date?, processedAt: Date?, images: [String], conversation: [Message]
    ) {
        self.provider = provider
        self.providerComplaintID = providerComplaintID
        self.providerMerchantID = providerMerchantID
        self.outTradeNo = outTradeNo
        self.transactionID = transactionID
        self.state = state
        self.problemType = problemType
        self.summary = summary
        self.detail = detail
        self.payerPhone = payerPhone
        self.amount = amount
        self.requestedRefund = requestedRefund
        self.complaintCount = complaintCount
        self.awaitingReply = awaitingReply
        self.fullyRefunded = fullyRefunded
        self.complainedAt = complainedAt
        self.respondBy = respondBy
        self.settleBy = settleBy
        self.respondedAt = respondedAt
        self.processedAt = processedAt
        self.images = images
        self.conversation = conversation
    }
}

extension StoredComplaint.State: Codable {}

/// What recording a provider's word on a complaint did.
public enum ComplaintRecorded: Sendable, Equatable {
    /// New here (`complaint.created` queued when it concerns one of Cashier's orders).
    case created(StoredComplaint)
    /// Something changed (`complaint.updated` queued likewise).
    case updated(StoredComplaint)
    /// Nothing new.
    case unchanged(StoredComplaint)

    /// The complaint as it is now.
    public var complaint: StoredComplaint {
        switch self {
        case .created(let complaint), .updated(let complaint), .unchanged(let complaint): complaint
        }
    }
}
