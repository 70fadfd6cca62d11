import Cashier
import CashierCrypto
import CashierHTTP
import Foundation
import WeChatPay

/// The merchant's side of consumer complaints 2.0 (消费者投诉 2.0), answering as WeChat's does:
/// list (a span of at most 30 days, 1–50 a page), detail (`payer_phone` encrypted for the
/// caller), conversation, answer (words, up to 4 images from the complaint image upload, a link
/// with its text), complete, the refund decision, image download (the file, unsigned), and the
/// complaint notification URL. Only the merchant whose trade it is (the service provider, for a
/// sub-merchant's) reads or answers a complaint. The merchant's own calls are not notified back;
/// what the payer and WeChat do is (``WeChatV3Sandbox/announce(_:action:)``).
extension WeChatV3Sandbox {
    nonisolated func registerComplaints(on router: inout Router, prefix: String) {
        let routes: [(String, String)] = [
            ("GET", "/v3/merchant-service/complaints-v2"), ("GET", "/v3/merchant-service/complaints-v2/{id}"),
            ("GET", "/v3/merchant-service/complaints-v2/{id}/negotiation-historys"),
            ("POST", "/v3/merchant-service/complaints-v2/{id}/response"), ("POST", "/v3/merchant-service/complaints-v2/{id}/complete"),
            ("POST", "/v3/merchant-service/complaints-v2/{id}/update-refund-progress"),
            ("GET", "/v3/merchant-service/complaint-notifications"), ("POST", "/v3/merchant-service/complaint-notifications"),
            ("PUT", "/v3/merchant-service/complaint-notifications"), ("DELETE", "/v3/merchant-service/complaint-notifications"),
            ("GET", "/v3/merchant-service/images/{id}"),
        ]
        for (method, pattern) in routes {
            router.add(method, prefix + pattern) { request, parameters in
                await self.complaintCall(request, route: method + " " + pattern, id: parameters.value("id"), prefix: prefix)
            }
        }
        for purpose in [WeChatPay.V3.MediaUpload.Purpose.merchantMedia, .complaintImage] {
            router.add("POST", prefix + purpose.path) { request, _ in await self.upload(request, purpose: purpose, prefix: prefix) }
        }
    }

    private func complaintCall(_ request: HTTPServerRequest, route: String, id: String?, prefix: String) -> HTTPServerResponse {
        let merchant: Merchant
        switch authenticate(request, prefix: prefix, signedBody: String(decoding: request.body, as: UTF8.self)) {
        case .success(let found): merchant = found
        case .failure(let refusal): return refusal.response
        }
        let body = SandboxControl.object(request) ?? [:]
        // media_url on the gateway the caller reached, as WeChat's point at api.mch.weixin.qq.com.
        let base = "http://\(request.headers["Host"] ?? "127.0.0.1")\(prefix)"
        switch route {
        case "GET /v3/merchant-service/complaints-v2": return list(request, merchant, base: base)
        case let route where route.hasSuffix("complaint-notifications"): return notifyURL(request.method, body, merchant)
        case "GET /v3/merchant-service/images/{id}": return image(id ?? "", merchant)
        default: break
        }
        guard let id, let complaint = desk.complaints[id], complaint.mchID == merchant.mchID else {
            return error(404, "RESOURCE_NOT_EXISTS", "投诉单不存在")
        }
        switch route {
        case "GET /v3/merchant-service/complaints-v2/{id}": return signed(200, json(complaint, for: merchant, base: base, detail: true))
        case "GET /v3/merchant-service/complaints-v2/{id}/negotiation-historys": return history(request, complaint, base: base)
        case "POST /v3/merchant-service/complaints-v2/{id}/response": return respond(complaint, body, merchant)
        case "POST /v3/merchant-service/complaints-v2/{id}/complete": return complete(complaint, body)
        default: return refundProgress(complaint, body, merchant)
        }
    }

    // MARK: Reading

    private func list(_ request: HTTPServerRequest, _ merchant: Merchant, base: String) -> HTTPServerResponse {
        let day = BeijingTime.formatter("yyyy-MM-dd")
        guard let beginText = request.queryValue("begin_date"), let endText = request.queryValue("end_date"),
            let begin = day.date(from: beginText), let end = day.date(from: endText), beginText.count == 10, endText.count == 10
        else { return error(400, "PARAM_ERROR", "begin_date和end_date必填，格式为YYYY-MM-DD") }
        guard end >= begin else { return error(400, "PARAM_ERROR", "end_date不能早于begin_date") }
        guard end.timeIntervalSince(begin) <= 30 * 86_400 + 3600 else { return error(400, "PARAM_ERROR", "查询时间跨度不能超过30天") }
        let limit = request.queryValue("limit").map { Int($0) } ?? 10
        let offset = request.queryValue("offset").map { Int($0) } ?? 0
        guard let limit, (1...50).contains(limit) else { return error(400, "PARAM_ERROR", "limit取值范围为[1,50]") }
        guard let offset, offset >= 0 else { return error(400, "PARAM_ERROR", "offset不能小于0") }
        let complainted = request.queryValue("complainted_mchid")
        let found = desk.order.compactMap { desk.complaints[$0] }.filter { complaint in
            let on = BeijingTime.string(from: complaint.time, .day)
            return complaint.mchID == merchant.mchID && (complainted == nil || complainted == complaint.complaintedMchID)
                && on >= beginText && on <= endText
        }
        let page = found.dropFirst(offset).prefix(limit).map { json($0, for: merchant, base: base, detail: false) }
        return signed(200, ["data": Array(page), "limit": limit, "offset": offset, "total_count": found.count])
    }

    private func history(_ request: HTTPServerRequest, _ complaint: WeChatComplaintDesk.Complaint, base: String) -> HTTPServerResponse {
        let limit = request.queryValue("limit").map { Int($0) } ?? 100
        let offset = request.queryValue("offset").map { Int($0) } ?? 0
        guard let limit, (1...300).contains(limit) else { return error(400, "PARAM_ERROR", "limit取值范围为[1,300]") }
        guard let offset, offset >= 0 else { return error(400, "PARAM_ERROR", "offset不能小于0") }
        let entries = complaint.history.dropFirst(offset).prefix(limit).map { entry -> [String: Any] in
            var object: [String: Any] = [
                "log_id": entry.logID, "operator": entry.operatorName, "operate_time": BeijingTime.string(from: entry.time, .rfc3339),
                "operate_type": entry.type, "operate_details": entry.details,
                "image_list": entry.images.map { Self.mediaURL($0, base: base) },
            ]
            if !entry.images.isEmpty {
                object["complaint_media_list"] = [
                    "media_type": entry.operatorName == "用户" ? "USER_COMPLAINT_IMAGE" : "OPERATION_IMAGE",
                    "media_url": entry.images.map { Self.mediaURL($0, base: base) },
                ]
            }
            return object
        }
        return signed(200, ["data": Array(entries), "limit": limit, "offset": offset, "total_count": complaint.history.count])
    }

    /// A complaint as the list (`detail` false) or the detail shows it.
    func json(_ complaint: WeChatComplaintDesk.Complaint, for merchant: Merchant, base: String, detail: Bool) -> [String: Any] {
        var object: [String: Any] = [
            "complaint_id": complaint.id, "complaint_time": BeijingTime.string(from: complaint.time, .rfc3339),
            "complaint_detail": complaint.detail, "complaint_state": complaint.state, "complainted_mchid": complaint.complaintedMchID,
            "complaint_order_info": [
                ["transaction_id": complaint.transactionID, "out_trade_no": complaint.outTradeNo, "amount": complaint.amount]
            ],
            "complaint_full_refunded": complaint.fullyRefunded, "incoming_user_response": complaint.incomingUserResponse,
            "problem_description": complaint.problemDescription, "user_complaint_times": complaint.userComplaintTimes,
            "problem_type": complaint.problemType, "user_tag_list": [String](), "service_order_info": [[String: Any]](),
            "in_platform_service": complaint.inPlatformService, "need_immediate_service": false,
            "complaint_media_list": complaint.images.isEmpty
                ? [[String: Any]]()
                : [["media_type": "USER_COMPLAINT_IMAGE", "media_url": complaint.images.map { Self.mediaURL($0, base: base) }]],
        ]
        if let amount = complaint.applyRefundAmount { object["apply_refund_amount"] = amount }
        // Encrypted for the caller, as WeChat encrypts sensitive fields (RSA-OAEP, SHA-1).
        if let phone = try? merchant.publicKey.encrypt(Array(complaint.payerPhone.utf8), padding: .insecureOAEPSHA1) {
            object["payer_phone"] = Base64.encode(phone)
        }
        if detail { object["payer_openid"] = complaint.openID }
        return object
    }

    static func mediaURL(_ id: String, base: String) -> String { base + "/v3/merchant-service/images/" + id }

    private func image(_ id: String, _ merchant: Merchant) -> HTTPServerResponse {
        guard let file = desk.files[id], file.mchID == merchant.mchID, file.forComplaints else {
            return error(404, "RESOURCE_NOT_EXISTS", "图片不存在")
        }
        // The file itself, unsigned, as WeChat serves it.
        return HTTPServerResponse(status: 200, headers: ["Content-Type": file.contentType], body: file.bytes)
    }

    // MARK: Answering

    private func respond(_ complaint: WeChatComplaintDesk.Complaint, _ body: [String: Any], _ merchant: Merchant) -> HTTPServerResponse {
        guard body["complainted_mchid"] as? String == complaint.complaintedMchID else {
            return error(400, "PARAM_ERROR", "complainted_mchid与投诉单的被诉商户号不一致")
        }
        let limit = complaint.complaintedMchID == complaint.mchID ? 200 : 500
        guard let content = body["response_content"] as? String, !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty,
            content.count <= limit
        else { return error(400, "PARAM_ERROR", "response_content必填，且不能超过\(limit)个字符") }
        let images = body["response_images"] as? [String] ?? []
        if let refused = mediaProblem(images, merchant, field: "response_images") { return refused }
        let url = body["jump_url"] as? String
        let text = body["jump_url_text"] as? String
        guard (url == nil) == (text == nil) else { return error(400, "PARAM_ERROR", "jump_url与jump_url_text须同时填写") }
        if let url, !url.lowercased().hasPrefix("https://") { return error(400, "PARAM_ERROR", "jump_url须为https链接") }
        if let mini = body["mini_program_jump_info"] {
            guard let mini = mini as? [String: Any], ["appid", "path", "text"].allSatisfy({ (mini[$0] as? String)?.isEmpty == false })
            else { return error(400, "PARAM_ERROR", "mini_program_jump_info须包含appid、path和text") }
        }
        let id = complaint.id
        if desk.complaints[id]?.state == "PENDING" { desk.complaints[id]?.state = "PROCESSING" }
        desk.complaints[id]?.incomingUserResponse = false
        desk.log(id, by: "商户", "MERCHANT_RESPONSE", content + (text.map { " [\($0)](\(url ?? ""))" } ?? ""), images: images, at: Date())
        return signed(204, nil)
    }

    /// Media ids an answer may carry: at most 4, each the caller's from the complaint image upload.
    private func mediaProblem(_ images: [String], _ merchant: Merchant, field: String) -> HTTPServerResponse? {
        guard images.count <= 4 else { return error(400, "PARAM_ERROR", "\(field)最多4张图片") }
        for image in images {
            guard let file = desk.files[image], file.mchID == merchant.mchID else {
                return error(400, "PARAM_ERROR", "\(field)中的图片不存在：\(image.prefix(64))")
            }
            guard file.forComplaints else {
                return error(
                    400, "PARAM_ERROR",
                    "\(field)须为商户上传反馈图片接口(/v3/merchant-service/images/upload)返回的media_id，而非/v3/merchant/media/upload的")
            }
        }
        return nil
    }

    private func complete(_ complaint: WeChatComplaintDesk.Complaint, _ body: [String: Any]) -> HTTPServerResponse {
        guard body["complainted_mchid"] as? String == complaint.complaintedMchID else {
            return error(400, "PARAM_ERROR", "complainted_mchid与投诉单的被诉商户号不一致")
        }
        // Done already (refunded, refused, or completed before): nothing changes, as a repeat.
        if complaint.state != "PROCESSED" {
            desk.complaints[complaint.id]?.state = "PROCESSED"
            desk.complaints[complaint.id]?.incomingUserResponse = false
            desk.log(complaint.id, by: "商户", "MERCHANT_CONFIRM_COMPLETE", "商户已处理完成", at: Date())
        }
        return signed(204, nil)
    }

    private func refundProgress(_ complaint: WeChatComplaintDesk.Complaint, _ body: [String: Any], _ merchant: Merchant)
        -> HTTPServerResponse
    {
        guard complaint.problemType == "REFUND" else { return error(400, "INVALID_REQUEST", "该投诉单不是申请退款单据") }
        guard let action = body["action"] as? String, action == "APPROVE" || action == "REJECT" else {
            return error(400, "PARAM_ERROR", "action须为APPROVE或REJECT")
        }
        if let decided = complaint.refundDecision {
            // The same decision again (a retry) changes nothing; another is refused.
            return decided == action ? signed(204, nil) : error(400, "INVALID_REQUEST", "退款审批结果已提交，不能修改")
        }
        if let day = body["launch_refund_day"], JSONNumber.writtenInteger(day).map({ $0 < 0 }) ?? true {
            return error(400, "PARAM_ERROR", "launch_refund_day须为非负整数")
        }
        let id = complaint.id
        if action == "APPROVE" {
            desk.complaints[id]?.refundDecision = action
            let days = body["launch_refund_day"].flatMap(JSONNumber.writtenInteger) ?? 0
            desk.log(id, by: "商户", "MERCHANT_APPROVE_REFUND", "商户同意退款，预计\(days)个工作日内发起退款", at: Date())
            if desk.complaints[id]?.state == "PENDING" { desk.complaints[id]?.state = "PROCESSING" }
            noteRefund(of: complaint.outTradeNo)  // refunded already: done now
            return signed(204, nil)
        }
        guard let reason = body["reject_reason"] as? String, !reason.trimmingCharacters(in: .whitespaces).isEmpty else {
            return error(400, "PARAM_ERROR", "拒绝退款须填写reject_reason")
        }
        let images = body["reject_media_list"] as? [String] ?? []
        if let refused = mediaProblem(images, merchant, field: "reject_media_list") { return refused }
        desk.complaints[id]?.refundDecision = action
        desk.complaints[id]?.state = "PROCESSED"
        desk.log(id, by: "商户", "MERCHANT_REFUSE_RERUND", "商户拒绝退款：" + reason, images: images, at: Date())
        return signed(204, nil)
    }

    // MARK: Notification URL and uploads

    private func notifyURL(_ method: String, _ body: [String: Any], _ merchant: Merchant) -> HTTPServerResponse {
        let current = desk.notifyURLs[merchant.mchID]
        switch method {
        case "GET":
            guard let current else { return error(404, "RESOURCE_NOT_EXISTS", "商户未设置投诉通知回调地址") }
            return signed(200, ["mchid": merchant.mchID, "url": current])
        case "DELETE":
            guard current != nil else { return error(404, "RESOURCE_NOT_EXISTS", "商户未设置投诉通知回调地址") }
            desk.notifyURLs[merchant.mchID] = nil
            return signed(204, nil)
        default:
            guard let url = body["url"] as? String, let parsed = URLComponents(string: url), parsed.query == nil,
                parsed.scheme == "https" || (parsed.scheme == "http" && ["127.0.0.1", "localhost", "::1"].contains(parsed.host ?? ""))
            else { return error(400, "PARAM_ERROR", "url须为https地址且不能携带参数 (the sandbox also takes http on loopback)") }
            if method == "POST", current != nil { return error(400, "INVALID_REQUEST", "回调地址已存在，请调用更新接口") }
            if method == "PUT", current == nil { return error(404, "RESOURCE_NOT_EXISTS", "商户未设置投诉通知回调地址") }
            desk.notifyURLs[merchant.mchID] = url
            return signed(200, ["mchid": merchant.mchID, "url": url])
        }
    }

    private func upload(_ request: HTTPServerRequest, purpose: WeChatPay.V3.MediaUpload.Purpose, prefix: String) -> HTTPServerResponse {
        let received: WeChatPay.V3.ReceivedUpload
        do {
            received = try WeChatPay.V3.ReceivedUpload(body: request.body, contentType: request.headers["Content-Type"])
        } catch let problem as PaymentError {
            return error(400, "PARAM_ERROR", "multipart/form-data格式错误：" + problem.message)
        } catch {
            return self.error(400, "PARAM_ERROR", "multipart/form-data格式错误")
        }
        // WeChat signs the meta JSON only, never the multipart body.
        let merchant: Merchant
        switch authenticate(request, prefix: prefix, signedBody: received.meta) {
        case .success(let found): merchant = found
        case .failure(let refusal): return refusal.response
        }
        let upload: WeChatPay.V3.MediaUpload
        do {
            upload = try received.upload(for: purpose)
        } catch let problem as PaymentError where problem.code == .signatureMismatch {
            return error(400, "PARAM_ERROR", "文件的sha256与meta中的sha256不一致")
        } catch let problem as PaymentError {
            return error(400, "PARAM_ERROR", problem.message)
        } catch {
            return self.error(400, "PARAM_ERROR", "文件不符合要求")
        }
        let id = WeChatComplaintDesk.mediaID()
        desk.files[id] = .init(
            mchID: merchant.mchID, bytes: upload.bytes, contentType: upload.kind.mediaType, forComplaints: purpose == .complaintImage)
        return signed(200, ["media_id": id])
    }
}
