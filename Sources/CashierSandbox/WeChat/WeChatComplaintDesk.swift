import Cashier
import CashierCrypto
import Foundation

/// What the v3 sandbox keeps of consumer complaints (消费者投诉 2.0): each complaint with its
/// conversation, the files merchants uploaded and payers attached, and where each merchant wants
/// its complaint notifications. Held by ``WeChatV3Sandbox``; the rules live in its extensions.
struct WeChatComplaintDesk: Sendable {
    /// One complaint, against one paid v3 trade.
    struct Complaint: Sendable {
        let id: String
        /// The merchant whose trade it is (the service provider, for a partner trade): whose key
        /// reads it and whose notification URL hears of it.
        let mchID: String
        /// `complainted_mchid`: the sub-merchant for a partner trade, else ``mchID``.
        let complaintedMchID: String
        let outTradeNo: String
        let transactionID: String
        /// The trade's amount, in fen.
        let amount: Int64
        let openID: String
        let time: Date
        let detail: String
        /// `REFUND`, `SERVICE_NOT_WORK` or `OTHERS`.
        let problemType: String
        let problemDescription: String
        let payerPhone: String
        /// What a `REFUND` complaint asks back, in fen.
        let applyRefundAmount: Int64?
        /// `PENDING`, `PROCESSING` or `PROCESSED`.
        var state = "PENDING"
        var userComplaintTimes = 1
        var incomingUserResponse = false
        var inPlatformService = false
        var fullyRefunded = false
        /// `APPROVE` or `REJECT`, once the merchant decided on the refund asked for.
        var refundDecision: String?
        /// The payer's images (media ids).
        var images: [String] = []
        var history: [Entry] = []
    }

    /// One step of a conversation.
    struct Entry: Sendable {
        let logID: String
        /// `用户`, `商户`, `微信支付`.
        let operatorName: String
        let time: Date
        /// `USER_CREATE_COMPLAINT`, `MERCHANT_RESPONSE`, …
        let type: String
        let details: String
        /// Media ids.
        let images: [String]
    }

    /// A file kept: a merchant's upload, or a payer's image.
    struct File: Sendable {
        /// Who may download it: the merchant that uploaded it, or whose complaint it belongs to.
        let mchID: String
        let bytes: [UInt8]
        let contentType: String
        /// Uploaded through `/v3/merchant-service/images/upload` (the only ids an answer takes), or a payer's.
        let forComplaints: Bool
    }

    var complaints: [String: Complaint] = [:]
    var files: [String: File] = [:]
    /// Complaint notification URLs, by the merchant that set them.
    var notifyURLs: [String: String] = [:]
    /// Complaint ids in the order they were made.
    var order: [String] = []

    /// A new complaint id, as WeChat numbers them: `2002` (or so), the day, and digits.
    static func complaintID(at date: Date) -> String {
        "2002" + BeijingTime.string(from: date, .compact).prefix(8) + SecureRandom.string(count: 15, alphabet: "0123456789")
    }

    /// A new media id: URL-safe, so a `media_url` needs no escaping.
    static func mediaID() -> String {
        SecureRandom.string(count: 64, alphabet: "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_")
    }

    /// A new log id.
    static func logID() -> String { SecureRandom.string(count: 20, alphabet: "0123456789") }

    /// Adds a step to complaint `id`'s conversation.
    mutating func log(_ id: String, by operatorName: String, _ type: String, _ details: String, images: [String] = [], at date: Date) {
        complaints[id]?.history.append(
            Entry(logID: Self.logID(), operatorName: operatorName, time: date, type: type, details: details, images: images))
    }

    /// The complaints of trade `outTradeNo`.
    func complaints(of outTradeNo: String) -> [Complaint] {
        order.compactMap { complaints[$0] }.filter { $0.outTradeNo == outTradeNo }
    }
}
