import Cashier
import CashierStore
import Foundation
import WeChatPay

/// WeChat Pay's consumer complaints 2.0 through the v3 APIs: for the direct merchant, or for a
/// sub-merchant through the service provider (`complainted_mchid` is then the sub-merchant's).
extension WeChatV3Adapter: ComplaintHandling {
    var complaintMerchantID: String { client.complaintedMchID }
    var pollsComplaints: Bool { configuration.pollsComplaints }

    func complaintSnapshot(_ id: String) async throws -> ComplaintSnapshot {
        let client = client
        let complaint = try await client.complaint(id: id)
        var conversation: [WeChatPay.V3.ComplaintNegotiation] = []
        // Every step, 300 a page (a complaint rarely has more than a few dozen).
        while conversation.count < 3000 {
            let page = try await client.negotiationHistory(complaintID: id, limit: 300, offset: conversation.count)
            conversation += page.entries
            if page.entries.count < 300 || conversation.count >= (page.totalCount ?? Int.max) { break }
        }
        return try Self.snapshot(
            complaint, conversation, payerPhone: try? complaint.decryptedPayerPhone(with: configuration.merchant.privateKey))
    }

    /// The snapshot of a complaint and its conversation: its deadlines counted from when the payer
    /// complained, or complained again (a repeat complaint starts WeChat's clocks anew).
    static func snapshot(
        _ complaint: WeChatPay.V3.Complaint, _ conversation: [WeChatPay.V3.ComplaintNegotiation], payerPhone: String?
    ) throws -> ComplaintSnapshot {
        guard let complainedAt = complaint.complainedAt else {
            throw PaymentError(
                .malformedMessage, provider: .wechatV3, "complaint_time \(complaint.complaintTime.prefix(40)) is not RFC 3339")
        }
        let messages = conversation.map { step in
            ComplaintSnapshot.Message(
                id: step.logID, author: Self.author(step.operateType), kind: step.operateType.rawValue, text: step.details,
                imageURLs: step.allImageURLs, createdAt: WeChatPay.V3.Complaint.date(step.operateTime) ?? complainedAt)
        }
        let again = messages.last { $0.kind == WeChatPay.V3.ComplaintNegotiation.OperateType.userContinueComplaint.rawValue }
        let start = max(complainedAt, again?.createdAt ?? complainedAt)
        let state: StoredComplaint.State =
            switch complaint.state {
            case .processed: .processed
            case .processing: .processing
            default: .pending
            }
        let order = complaint.orders.first
        return ComplaintSnapshot(
            provider: PaymentProvider.wechatV3.rawValue, providerComplaintID: complaint.id,
            providerMerchantID: complaint.complaintedMchID ?? "", outTradeNo: order?.outTradeNo, transactionID: order?.transactionID,
            state: state, problemType: complaint.problemType?.rawValue, summary: complaint.problemDescription, detail: complaint.detail,
            payerPhone: payerPhone, amount: order.map { Money(minorUnits: $0.amount, currency: .cny) },
            requestedRefund: complaint.applyRefundAmount.map { Money(minorUnits: $0, currency: .cny) },
            complaintCount: complaint.userComplaintTimes, awaitingReply: complaint.incomingUserResponse,
            fullyRefunded: complaint.fullyRefunded, complainedAt: start,
            respondBy: WeChatPay.V3.Complaint.responseDeadline(after: start),
            settleBy: WeChatPay.V3.Complaint.settlementDeadline(after: start),
            respondedAt: messages.first { $0.author == "merchant" && $0.createdAt >= start }?.createdAt,
            processedAt: state == .processed ? messages.last?.createdAt ?? start : nil,
            images: complaint.media.flatMap(\.mediaURLs), conversation: messages)
    }

    /// Who a step's author is: the payer, the merchant, or WeChat.
    static func author(_ type: WeChatPay.V3.ComplaintNegotiation.OperateType) -> String {
        if type.rawValue.hasPrefix("USER_") { return "payer" }
        if type.rawValue.hasPrefix("MERCHANT_") { return "merchant" }
        return "platform"
    }

    func recentComplaints(from: Date, to: Date) async throws -> [(id: String, fingerprint: String)] {
        let client = client
        let (begin, end) = (BeijingTime.string(from: from, .day), BeijingTime.string(from: to, .day))
        var found: [(id: String, fingerprint: String)] = []
        while found.count < 5000 {
            let page = try await client.complaints(from: begin, to: end, limit: 50, offset: found.count)
            found += page.complaints.map {
                ($0.id, Self.fingerprint($0.state.rawValue, $0.incomingUserResponse, $0.userComplaintTimes, $0.fullyRefunded))
            }
            if page.complaints.count < 50 { break }
        }
        return found
    }

    func fingerprint(_ snapshot: ComplaintSnapshot) -> String {
        let state = snapshot.state == .processed ? "PROCESSED" : snapshot.state == .processing ? "PROCESSING" : "PENDING"
        return Self.fingerprint(state, snapshot.awaitingReply, snapshot.complaintCount, snapshot.fullyRefunded)
    }

    static func fingerprint(_ state: String, _ awaiting: Bool, _ times: Int, _ refunded: Bool) -> String {
        "\(state)|\(awaiting)|\(times)|\(refunded)"
    }

    func respond(toComplaint id: String, text: String, images: [String], link: (url: String, text: String)?) async throws {
        try await client.respond(
            toComplaint: id, .init(content: text, images: images, link: link.map { .init(url: $0.url, text: $0.text) }))
    }

    func completeComplaint(_ id: String) async throws {
        try await client.completeComplaint(id: id)
    }

    func decideComplaintRefund(_ id: String, approve: Bool, reason: String?, images: [String]) async throws {
        try await client.updateRefundProgress(
            complaintID: id, approve ? .approve(launchRefundDay: 0) : .reject(reason: reason ?? "", images: images))
    }

    func uploadComplaintImage(filename: String, bytes: [UInt8]) async throws -> String {
        try await client.uploadComplaintImage(try WeChatPay.V3.MediaUpload(filename: filename, bytes: bytes, purpose: .complaintImage))
    }

    func complaintImage(at url: String) async throws -> (bytes: [UInt8], contentType: String?) {
        let (bytes, type) = try await client.complaintImage(at: url)
        return (Array(bytes), type)
    }

    func registerComplaintNotifyURL(_ url: String) async throws -> Bool {
        let client = client
        switch try await client.complaintNotifyURL() {
        case nil:
            _ = try await client.createComplaintNotifyURL(url)
            return true
        case let current? where current.url != url:
            _ = try await client.updateComplaintNotifyURL(url)
            return true
        default:
            return false
        }
    }
}

extension WeChatV3Adapter {
    /// A complaint notification (`COMPLAINT.CREATE`, `COMPLAINT.STATE_CHANGE`), verified as every
    /// v3 notification — the signature over the raw body first (a serial not held yet downloads
    /// the certificates, at most once a minute), then the resource decrypted with the APIv3 key —
    /// and read as the complaint it names.
    func complaintEvents(_ message: InboundMessage) async throws -> [ProviderEvent] {
        let notification = try await openNotification(message)
        let event = try WeChatPay.V3.ComplaintEvent(notification)
        return [
            .complaint(
                ComplaintReport(
                    provider: .wechatV3, complaintID: event.complaintID, action: event.actionType.rawValue,
                    notificationID: event.notificationID, merchantID: complaintMerchantID))
        ]
    }
}

/// The notify path of WeChat Pay's complaint notifications (``ComplaintService/notifyPath``):
/// verified by the direct merchant's v3 adapter, answered as every v3 notification.
struct WeChatComplaintNotifications: NotificationSource {
    let adapter: WeChatV3Adapter

    func verify(_ message: InboundMessage) async throws -> [ProviderEvent] { try await adapter.complaintEvents(message) }
    func reply(_ outcome: NotificationOutcome) -> NotificationReply { adapter.reply(outcome) }
    func metricName(refund: Bool) -> String { "wechat_v3_complaint" }
}
