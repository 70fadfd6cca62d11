import Cashier
import CashierCrypto
import CashierHTTP
import CashierWeb
import Foundation
import WeChatPay

/// The payer's side of WeChat Pay complaints in the sandbox, beside `/sandbox/pay`:
///
/// - `POST /sandbox/wechat/complaints` `{out_trade_no, complaint_detail, problem_type,
///   problem_description, payer_phone, apply_refund_amount, images?}` → `{"complaint_id": …}`
///   (images: base64 JPG, BMP or PNG).
/// - `POST /sandbox/wechat/complaints/{id}/user_response` `{content, images?}`: the payer writes.
/// - `POST /sandbox/wechat/complaints/{id}/continue` `{content}`: complains again once handled.
/// - `POST /sandbox/wechat/complaints/{id}/platform_service`: asks WeChat to step in.
/// - `GET /sandbox/wechat/complaints/{id}`: the complaint and its conversation as JSON.
/// - `GET /sandbox/wechat/complaints/new?out_trade_no=…` and `GET /sandbox/wechat/complaints/{id}/page`:
///   the same as pages a payer uses (forms, images attached as files).
struct WeChatComplaintPages: Sendable {
    let wechatV3: WeChatV3Sandbox

    func register(on router: inout Router) {
        router.add("POST", "/sandbox/wechat/complaints") { request, _ in await self.create(request) }
        router.add("POST", "/sandbox/wechat/complaints/{id}/user_response") { request, parameters in
            await self.act(request, parameters["id"]) { object, id in
                try await wechatV3.payerResponse(
                    complaintID: id, content: object["content"] as? String ?? "", images: try Self.images(object["images"]))
            }
        }
        router.add("POST", "/sandbox/wechat/complaints/{id}/continue") { request, parameters in
            await self.act(request, parameters["id"]) { object, id in
                try await wechatV3.continueComplaint(id: id, content: object["content"] as? String ?? "")
            }
        }
        router.add("POST", "/sandbox/wechat/complaints/{id}/platform_service") { request, parameters in
            await self.act(request, parameters["id"]) { _, id in try await wechatV3.applyForPlatformService(complaintID: id) }
        }
        router.add("GET", "/sandbox/wechat/complaints/{id}") { _, parameters in await self.view(parameters["id"]) }
        router.add("GET", "/sandbox/wechat/complaints/new") { request, _ in
            Self.newPage(outTradeNo: request.queryValue("out_trade_no") ?? "", error: nil)
        }
        router.add("POST", "/sandbox/wechat/complaints/new") { request, _ in await self.createFromPage(request) }
        router.add("GET", "/sandbox/wechat/complaints/{id}/page") { _, parameters in await self.page(parameters["id"], message: nil) }
        router.add("POST", "/sandbox/wechat/complaints/{id}/page") { request, parameters in
            await self.pageAction(request, parameters["id"])
        }
        router.add("GET", "/sandbox/wechat/complaints/{id}/images/{media}") { _, parameters in
            guard let view = await wechatV3.payerView(parameters["id"]), let file = view.files[parameters["media"]] else {
                return .error(status: 404, code: "not_found", message: "no such image of this complaint")
            }
            return HTTPServerResponse(status: 200, headers: ["Content-Type": file.contentType], body: file.bytes)
        }
    }

    // MARK: JSON

    private func create(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let object = SandboxControl.object(request), let number = object["out_trade_no"] as? String,
            let detail = object["complaint_detail"] as? String
        else {
            return SandboxControl.invalid(
                #"expected {"out_trade_no":"…","complaint_detail":"…","problem_type":"REFUND"|"SERVICE_NOT_WORK"|"OTHERS","problem_description":"…","payer_phone":"…","apply_refund_amount":100}"#
            )
        }
        do {
            let filed = WeChatV3Sandbox.PayerComplaint(
                outTradeNo: number, detail: detail, problemType: object["problem_type"] as? String ?? "OTHERS",
                problemDescription: object["problem_description"] as? String ?? "",
                payerPhone: object["payer_phone"] as? String ?? "13800138000",
                applyRefundAmount: object["apply_refund_amount"].flatMap(JSONNumber.writtenInteger),
                images: try Self.images(object["images"]))
            return .json(object: ["complaint_id": try await wechatV3.raiseComplaint(filed)])
        } catch {
            return Self.refusal(error)
        }
    }

    private func act(
        _ request: HTTPServerRequest, _ id: String, _ action: @Sendable ([String: Any], String) async throws -> Void
    ) async -> HTTPServerResponse {
        let object = request.body.isEmpty ? [:] : SandboxControl.object(request)
        guard let object else { return SandboxControl.invalid(#"expected a JSON object, e.g. {"content":"…"}"#) }
        do {
            try await action(object, id)
            return await view(id)
        } catch {
            return Self.refusal(error)
        }
    }

    private func view(_ id: String) async -> HTTPServerResponse {
        guard let (complaint, _) = await wechatV3.payerView(id) else {
            return .error(status: 404, code: "complaint_not_found", message: "no complaint \(id) in the sandbox")
        }
        return .json(object: [
            "complaint_id": complaint.id, "complaint_state": complaint.state, "out_trade_no": complaint.outTradeNo,
            "problem_type": complaint.problemType, "user_complaint_times": complaint.userComplaintTimes,
            "refund_decision": complaint.refundDecision ?? "", "complaint_full_refunded": complaint.fullyRefunded,
            "history": complaint.history.map { ["operate_type": $0.type, "operator": $0.operatorName, "operate_details": $0.details] },
        ])
    }

    /// Base64 images from a JSON body.
    static func images(_ value: Any?) throws -> [[UInt8]] {
        guard let value else { return [] }
        guard let list = value as? [String] else {
            throw WeChatV3Sandbox.PayerRefusal(status: 400, code: "invalid_request", message: "images must be a list of base64 strings")
        }
        return try list.map { text in
            guard let bytes = try? Base64.decodeBytes(text) else {
                throw WeChatV3Sandbox.PayerRefusal(status: 400, code: "invalid_request", message: "an image is not base64")
            }
            return bytes
        }
    }

    static func refusal(_ error: any Error) -> HTTPServerResponse {
        guard let refusal = error as? WeChatV3Sandbox.PayerRefusal else {
            return .error(status: 500, code: "internal", message: "the sandbox could not do that")
        }
        return .error(status: refusal.status, code: refusal.code, message: refusal.message)
    }

    // MARK: Pages

    /// The form fields and attached images of a page's form (URL-encoded or multipart).
    private static func form(_ request: HTTPServerRequest) -> (fields: [String: String], images: [[UInt8]]) {
        guard let type = request.headers["Content-Type"], type.lowercased().hasPrefix("multipart/form-data"),
            let form = try? MultipartFormData(body: request.body, contentType: type)
        else { return (request.formFields, []) }
        return (form.fields, form.parts.filter { $0.filename?.isEmpty == false && !$0.body.isEmpty }.map(\.body))
    }

    private func createFromPage(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let (fields, images) = Self.form(request)
        let number = fields["out_trade_no"] ?? ""
        do {
            let id = try await wechatV3.raiseComplaint(
                .init(
                    outTradeNo: number, detail: fields["complaint_detail"] ?? "", problemType: fields["problem_type"] ?? "OTHERS",
                    problemDescription: fields["problem_description"] ?? "", payerPhone: fields["payer_phone"] ?? "13800138000",
                    applyRefundAmount: fields["apply_refund_amount"].flatMap { Int64($0) }, images: images))
            return HTTPServerResponse(status: 303, headers: ["Location": "/sandbox/wechat/complaints/\(id)/page"], body: [])
        } catch {
            return Self.newPage(outTradeNo: number, error: (error as? WeChatV3Sandbox.PayerRefusal)?.message ?? "not filed")
        }
    }

    private func pageAction(_ request: HTTPServerRequest, _ id: String) async -> HTTPServerResponse {
        let (fields, images) = Self.form(request)
        do {
            switch fields["action"] {
            case "continue": try await wechatV3.continueComplaint(id: id, content: fields["content"] ?? "")
            case "platform": try await wechatV3.applyForPlatformService(complaintID: id)
            default: try await wechatV3.payerResponse(complaintID: id, content: fields["content"] ?? "", images: images)
            }
            return await page(id, message: "已提交 Sent")
        } catch {
            return await page(id, message: (error as? WeChatV3Sandbox.PayerRefusal)?.message ?? "not sent")
        }
    }

    private static func newPage(outTradeNo: String, error: String?) -> HTTPServerResponse {
        let types = ["REFUND": "申请退款 Refund", "SERVICE_NOT_WORK": "服务未生效 Service not working", "OTHERS": "其他 Other"]
        let options = ["REFUND", "SERVICE_NOT_WORK", "OTHERS"].map { "<option value=\"\($0)\">\(types[$0] ?? $0)</option>" }.joined()
        return HTMLPage(
            title: "投诉商家 Complain (sandbox)",
            body: """
                <main class="cashier"><h1>投诉商家 Complain about a payment</h1>\
                \(error.map { "<p class=\"error\" id=\"error\">\(HTMLText.escape($0))</p>" } ?? "")\
                <form method="post" action="/sandbox/wechat/complaints/new" enctype="multipart/form-data">\
                <p><label>商户订单号 out_trade_no<br><input name="out_trade_no" id="out_trade_no" required value="\(HTMLText.escape(outTradeNo))"></label></p>\
                <p><label>问题类型 Problem<br><select name="problem_type" id="problem_type">\(options)</select></label></p>\
                <p><label>投诉内容 What happened<br><textarea name="complaint_detail" id="complaint_detail" required maxlength="500"></textarea></label></p>\
                <p><label>申请退款金额(分) Refund asked, fen<br><input name="apply_refund_amount" id="apply_refund_amount" inputmode="numeric"></label></p>\
                <p><label>联系电话 Phone<br><input name="payer_phone" id="payer_phone" value="13800138000"></label></p>\
                <p><label>图片 Images (JPG/PNG/BMP, up to 4)<br><input type="file" name="images" id="images" multiple accept="image/jpeg,image/png,image/bmp"></label></p>\
                <button type="submit" id="complain">提交投诉 Complain</button></form></main>
                """
        ).response()
    }

    private func page(_ id: String, message: String?) async -> HTTPServerResponse {
        guard let (complaint, _) = await wechatV3.payerView(id) else {
            return .error(status: 404, code: "complaint_not_found", message: "no complaint \(id) in the sandbox")
        }
        let escapedID = HTMLText.escape(id)
        let steps = complaint.history.map { entry in
            let images = entry.images.map {
                "<img src=\"/sandbox/wechat/complaints/\(escapedID)/images/\(HTMLText.escape($0))\" alt=\"image\" width=\"120\">"
            }.joined()
            return """
                <li class="\(HTMLText.escape(entry.type))"><strong>\(HTMLText.escape(entry.operatorName))</strong> \
                <span class="muted">\(HTMLText.escape(BeijingTime.string(from: entry.time, .dateTime))) \(HTMLText.escape(entry.type))</span>\
                <p>\(HTMLText.escape(entry.details))</p>\(images)</li>
                """
        }.joined()
        let action = "/sandbox/wechat/complaints/\(escapedID)/page"
        let forms =
            complaint.state == "PROCESSED"
            ? """
            <form method="post" action="\(action)"><input type="hidden" name="action" value="continue">\
            <p><label>再次投诉 Complain again<br><textarea name="content" id="continue-content"></textarea></label></p>\
            <button type="submit" id="continue">再次投诉 Complain again</button></form>
            """
            : """
            <form method="post" action="\(action)" enctype="multipart/form-data"><input type="hidden" name="action" value="reply">\
            <p><label>留言 Write to the merchant<br><textarea name="content" id="content" required maxlength="500"></textarea></label></p>\
            <p><input type="file" name="images" id="reply-images" multiple accept="image/jpeg,image/png,image/bmp"></p>\
            <button type="submit" id="reply">发送 Send</button></form>\
            <form method="post" action="\(action)" class="inline"><input type="hidden" name="action" value="platform">\
            <button type="submit" id="platform" class="secondary">申请平台协助 Ask WeChat to help</button></form>
            """
        return HTMLPage(
            title: "投诉 \(id) (sandbox)",
            body: """
                <main class="cashier"><h1>投诉 Complaint <code id="complaint-id">\(escapedID)</code></h1>\
                \(message.map { "<p id=\"message\">\(HTMLText.escape($0))</p>" } ?? "")\
                <p>订单 <code>\(HTMLText.escape(complaint.outTradeNo))</code> · \
                状态 <strong id="state">\(HTMLText.escape(complaint.state))</strong> · \(HTMLText.escape(complaint.problemDescription))</p>\
                <ol id="history">\(steps)</ol>\(forms)</main>
                """
        ).response()
    }
}
