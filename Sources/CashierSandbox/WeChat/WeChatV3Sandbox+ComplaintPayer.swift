import Cashier
import CashierCrypto
public import Foundation
import WeChatPay

/// The payer's side of complaints and what WeChat does by itself: a payer complains about a paid
/// v3 trade (with images), writes, complains again once it was handled, asks WeChat to step in;
/// a refund of the trade that covers what an approved complaint asked for finishes it. Each of
/// these is notified to the merchant's complaint notification URL (`COMPLAINT.CREATE`, then
/// `COMPLAINT.STATE_CHANGE` with its `action_type`), signed and encrypted as every v3 notification.
extension WeChatV3Sandbox {
    /// What a payer files (`POST /sandbox/wechat/complaints`).
    public struct PayerComplaint: Sendable {
        /// The paid trade complained about.
        public var outTradeNo: String
        /// `complaint_detail`: the payer's words.
        public var detail: String
        /// `REFUND`, `SERVICE_NOT_WORK` or `OTHERS`.
        public var problemType: String
        /// `problem_description`.
        public var problemDescription: String
        /// The phone WeChat gives the merchant (encrypted).
        public var payerPhone: String
        /// What a `REFUND` complaint asks back, in fen (default: the whole trade).
        public var applyRefundAmount: Int64?
        /// Images, each JPG, BMP or PNG up to 2 MB.
        public var images: [[UInt8]]

        /// - Parameters:
        ///   - outTradeNo: the paid trade.
        ///   - detail: the payer's words.
        ///   - problemType: `REFUND`, `SERVICE_NOT_WORK` or `OTHERS`.
        ///   - problemDescription: what kind of problem.
        ///   - payerPhone: the payer's phone.
        ///   - applyRefundAmount: for `REFUND`, in fen.
        ///   - images: the payer's images.
        public init(
            outTradeNo: String, detail: String, problemType: String = "OTHERS", problemDescription: String = "",
            payerPhone: String = "13800138000", applyRefundAmount: Int64? = nil, images: [[UInt8]] = []
        ) {
            self.outTradeNo = outTradeNo
            self.detail = detail
            self.problemType = problemType
            self.problemDescription = problemDescription
            self.payerPhone = payerPhone
            self.applyRefundAmount = applyRefundAmount
            self.images = images
        }
    }

    /// Why the payer's side refused something: an HTTP status, a code and what to fix.
    public struct PayerRefusal: Error, Sendable {
        public let status: Int
        public let code: String
        public let message: String
    }

    /// The payer complains about a paid trade. - Returns: the `complaint_id`.
    /// - Throws: ``PayerRefusal``: no such trade (404), not paid or already complained of and open (409), a field wrong (400).
    public func raiseComplaint(_ filed: PayerComplaint, at date: Date = Date()) throws -> String {
        guard let order = orders[filed.outTradeNo] else {
            throw PayerRefusal(status: 404, code: "order_not_found", message: "no v3 trade \(filed.outTradeNo) in the sandbox")
        }
        guard let transactionID = order.transactionID, order.state == "SUCCESS" || order.state == "REFUND" else {
            throw PayerRefusal(
                status: 409, code: "not_paid", message: "trade \(filed.outTradeNo) is \(order.state): a payer complains about a paid trade")
        }
        guard ["REFUND", "SERVICE_NOT_WORK", "OTHERS"].contains(filed.problemType) else {
            throw PayerRefusal(status: 400, code: "invalid_request", message: "problem_type must be REFUND, SERVICE_NOT_WORK or OTHERS")
        }
        guard !filed.detail.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, filed.detail.count <= 500 else {
            throw PayerRefusal(status: 400, code: "invalid_request", message: "complaint_detail must be 1 to 500 characters")
        }
        var asked: Int64? = nil
        if filed.problemType == "REFUND" {
            asked = filed.applyRefundAmount ?? order.total
            guard let asked, (1...order.total).contains(asked) else {
                throw PayerRefusal(
                    status: 400, code: "invalid_request",
                    message: "apply_refund_amount must be 1 to \(order.total) fen (the trade's amount)")
            }
        }
        if let open = desk.complaints(of: filed.outTradeNo).first(where: { $0.state != "PROCESSED" }) {
            throw PayerRefusal(
                status: 409, code: "complaint_open", message: "trade \(filed.outTradeNo) has an open complaint \(open.id): write in it")
        }
        let images = try store(filed.images, of: order.mchID)
        let id = WeChatComplaintDesk.complaintID(at: date)
        desk.complaints[id] = .init(
            id: id, mchID: order.mchID, complaintedMchID: order.subMchID ?? order.mchID, outTradeNo: filed.outTradeNo,
            transactionID: transactionID, amount: order.total, openID: order.openID ?? "oSandboxPayer000000000000000", time: date,
            detail: filed.detail, problemType: filed.problemType,
            problemDescription: filed.problemDescription.isEmpty ? Self.problemTitle(filed.problemType) : filed.problemDescription,
            payerPhone: filed.payerPhone, applyRefundAmount: asked, images: images)
        desk.order.append(id)
        desk.log(id, by: "用户", "USER_CREATE_COMPLAINT", filed.detail, images: images, at: date)
        announce(id, action: .createComplaint)
        return id
    }

    /// The payer writes in an open complaint (with images).
    /// - Throws: ``PayerRefusal``: no such complaint (404), handled already (409: complain again instead).
    public func payerResponse(complaintID id: String, content: String, images: [[UInt8]] = []) throws {
        let complaint = try payerComplaint(id)
        guard complaint.state != "PROCESSED" else {
            throw PayerRefusal(
                status: 409, code: "complaint_processed", message: "complaint \(id) is handled: complain again (…/continue) to reopen it")
        }
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, content.count <= 500 else {
            throw PayerRefusal(status: 400, code: "invalid_request", message: "content must be 1 to 500 characters")
        }
        let stored = try store(images, of: complaint.mchID)
        desk.complaints[id]?.incomingUserResponse = true
        desk.log(id, by: "用户", "USER_RESPONSE", content, images: stored, at: Date())
        announce(id, action: .userResponse)
    }

    /// The payer complains again about a handled complaint: open again, counted as a repeat.
    public func continueComplaint(id: String, content: String) throws {
        let complaint = try payerComplaint(id)
        guard complaint.state == "PROCESSED" else {
            throw PayerRefusal(status: 409, code: "complaint_open", message: "complaint \(id) is still open: write in it")
        }
        desk.complaints[id]?.state = "PENDING"
        desk.complaints[id]?.userComplaintTimes += 1
        desk.complaints[id]?.incomingUserResponse = true
        desk.log(id, by: "用户", "USER_CONTINUE_COMPLAINT", content.isEmpty ? "用户再次投诉" : content, at: Date())
        announce(id, action: .continueComplaint)
    }

    /// The payer asks WeChat to step in.
    public func applyForPlatformService(complaintID id: String) throws {
        let complaint = try payerComplaint(id)
        guard complaint.state != "PROCESSED", !complaint.inPlatformService else {
            throw PayerRefusal(status: 409, code: "invalid_state", message: "complaint \(id) is handled or WeChat already helps")
        }
        desk.complaints[id]?.inPlatformService = true
        desk.log(id, by: "用户", "USER_APPLY_PLATFORM_SERVICE", "用户申请平台协助", at: Date())
        announce(id, action: .userApplyPlatformService)
    }

    /// A complaint as the payer sees it, with its images' bytes by media id.
    func payerView(_ id: String) -> (complaint: WeChatComplaintDesk.Complaint, files: [String: WeChatComplaintDesk.File])? {
        guard let complaint = desk.complaints[id] else { return nil }
        let ids = Set(complaint.images + complaint.history.flatMap(\.images))
        return (complaint, desk.files.filter { ids.contains($0.key) })
    }

    /// Every complaint's id, oldest first (the payer page's list).
    func complaintIDs() -> [String] { desk.order }

    private func payerComplaint(_ id: String) throws -> WeChatComplaintDesk.Complaint {
        guard let complaint = desk.complaints[id] else {
            throw PayerRefusal(status: 404, code: "complaint_not_found", message: "no complaint \(id) in the sandbox")
        }
        return complaint
    }

    /// Keeps a payer's images (downloadable by the merchant whose trade it is). - Returns: their media ids.
    private func store(_ images: [[UInt8]], of mchID: String) throws -> [String] {
        guard images.count <= 4 else { throw PayerRefusal(status: 400, code: "invalid_request", message: "at most 4 images") }
        return try images.map { bytes in
            guard let kind = WeChatPay.V3.MediaUpload.Kind.sniff(bytes), kind != .pdf, bytes.count <= 2 * 1024 * 1024 else {
                throw PayerRefusal(status: 400, code: "invalid_request", message: "an image must be JPG, BMP or PNG of at most 2 MB")
            }
            let id = WeChatComplaintDesk.mediaID()
            desk.files[id] = .init(mchID: mchID, bytes: bytes, contentType: kind.mediaType, forComplaints: true)
            return id
        }
    }

    static func problemTitle(_ type: String) -> String {
        switch type {
        case "REFUND": "申请退款"
        case "SERVICE_NOT_WORK": "服务权益未生效"
        default: "其他"
        }
    }

    // MARK: WeChat's own steps

    /// A refund of trade `outTradeNo` succeeded: a complaint of it refunded in full says so, and
    /// an approved refund complaint whose amount is now back is handled (`REFUND_SUCCESS`); a
    /// refund without a decision is the merchant refunding (`SELLER_REFUND`).
    func noteRefund(of outTradeNo: String) {
        guard let order = orders[outTradeNo] else { return }
        for complaint in desk.complaints(of: outTradeNo) {
            let id = complaint.id
            let full = order.refunded >= order.total
            if full, !complaint.fullyRefunded {
                desk.complaints[id]?.fullyRefunded = true
                desk.log(id, by: "微信支付", "COMPLAINT_FULL_REFUNDED_SYSTEM_MESSAGE", "订单已全额退款", at: Date())
            }
            guard complaint.state != "PROCESSED" else { continue }
            if complaint.refundDecision == "APPROVE", order.refunded >= (complaint.applyRefundAmount ?? order.total) {
                desk.complaints[id]?.state = "PROCESSED"
                desk.log(id, by: "微信支付", "REFUND_SUCCESS", "退款成功", at: Date())
                announce(id, action: .refundSuccess)
            } else if complaint.refundDecision == nil {
                announce(id, action: .sellerRefund)
            }
        }
    }

    /// Notifies complaint `id`'s merchant, when it set a complaint notification URL: `COMPLAINT.CREATE`
    /// for its creation, `COMPLAINT.STATE_CHANGE` otherwise. Each step is filed under
    /// `complaint:{id}:{step}` in the delivery log.
    func announce(_ id: String, action: WeChatPay.V3.ComplaintEvent.ActionType) {
        guard let complaint = desk.complaints[id], let url = desk.notifyURLs[complaint.mchID], let merchant = merchants[complaint.mchID]
        else { return }
        let created = action == .createComplaint
        deliverEvent(
            created ? "COMPLAINT.CREATE" : "COMPLAINT.STATE_CHANGE", summary: created ? "产生新投诉" : "投诉单状态变化",
            originalType: "complaint", resource: ["complaint_id": id, "action_type": action.rawValue],
            key: "complaint:\(id):\(complaint.history.count)", url: url, merchant: merchant)
    }

    /// Where merchant `mchID` wants complaint notifications (what `complaint-notifications` set), for tests.
    public func complaintNotifyURL(of mchID: String) -> String? { desk.notifyURLs[mchID] }

    /// Every complaint of trade `outTradeNo`: its id and `complaint_state`.
    public func complaints(ofTrade outTradeNo: String) -> [(id: String, state: String)] {
        desk.complaints(of: outTradeNo).map { ($0.id, $0.state) }
    }
}
