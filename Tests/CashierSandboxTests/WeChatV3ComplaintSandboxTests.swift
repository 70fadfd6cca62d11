import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

/// Our v3 client's complaint calls against the sandbox's complaints (消费者投诉 2.0): the payer
/// complains about a paid trade, the merchant hears of it by a signed, encrypted notification,
/// reads it (the phone decrypted), answers with an image uploaded over meta-only signatures,
/// approves the refund asked for, and the refund finishes it; and what WeChat refuses, refused.
@Suite struct WeChatV3ComplaintSandboxTests {
    typealias Keys = WeChatV3SandboxTests

    /// A merchant endpoint that opens complaint notifications with the client's platform keys.
    final class Endpoint: Sendable {
        final class Sink: Sendable {
            let events = Mutex<[WeChatPay.V3.ComplaintEvent]>([])
        }
        let sink: Sink
        let server: HTTPServer

        init(keys: WeChatPay.V3.PlatformKeys, apiV3Key: String = Keys.apiV3Key) throws {
            let sink = Sink()
            server = HTTPServer(configuration: .init()) { request in
                do {
                    let notification = try WeChatPay.V3.Notification.open(
                        body: request.body, headers: WeChatPay.V3.SignatureHeaders(headers: request.headers), keys: keys, apiV3Key: apiV3Key
                    )
                    let event = try WeChatPay.V3.ComplaintEvent(notification)
                    sink.events.withLock { $0.append(event) }
                    return HTTPServerResponse(status: 204)
                } catch {
                    return .error(status: 401, code: "FAIL", message: "\(error)")
                }
            }
            self.sink = sink
            try server.start()
        }

        var url: String { "http://127.0.0.1:\(server.port)/notify/wechat/v3/complaints" }

        func actions(of id: String) -> [String] { sink.events.withLock { $0.filter { $0.complaintID == id }.map(\.actionType.rawValue) } }
    }

    /// A paid v3 trade of `total` fen at the sandbox: its number.
    static func paidTrade(_ client: WeChatPay.V3.Client, _ sandbox: SandboxServer, total: Int64 = 2599) async throws -> String {
        let number = TradeNumber.generate()
        _ = try await client.prepay(
            .native, appID: "wxd678efh567hg6787", description: "latte", outTradeNo: number, total: Money(minorUnits: total, currency: .cny),
            notifyURL: "http://127.0.0.1:9/n")
        #expect(await sandbox.wechatV3.pay(outTradeNo: number, outcome: .success) == "SUCCESS")
        return number
    }

    static func complain(_ sandbox: SandboxServer, _ body: [String: Any]) async throws -> (status: Int, object: [String: Any]) {
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: sandbox.baseURL.appendingPathComponent("sandbox/wechat/complaints"),
                headers: ["Content-Type": "application/json"], body: try JSONSerialization.data(withJSONObject: body)))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
    }

    static let png = try! Base64.decodeBytes(
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

    @Test(.timeLimit(.minutes(2))) func aComplaintIsNotifiedAnsweredWithAnImageRefundedAndHandled() async throws {
        let sandbox = try Keys.sandbox()
        let keys = WeChatPay.V3.PlatformKeys()
        let client = WeChatPay.V3.Client(merchant: Keys.merchant, keys: keys, baseURL: sandbox.wechatV3URL)
        let endpoint = try Endpoint(keys: keys)
        #expect(try await client.complaintNotifyURL() == nil)
        let set = try await client.createComplaintNotifyURL(endpoint.url)
        #expect(set.mchID == Keys.merchant.mchID && set.url == endpoint.url)
        let again = await #expect(throws: PaymentError.self) { try await client.createComplaintNotifyURL(endpoint.url) }
        #expect(again?.providerCode == "INVALID_REQUEST")
        #expect(try await client.complaintNotifyURL()?.url == endpoint.url)

        let number = try await Self.paidTrade(client, sandbox)
        let raised = try await Self.complain(
            sandbox,
            [
                "out_trade_no": number, "complaint_detail": "咖啡是冷的", "problem_type": "REFUND", "problem_description": "申请退款",
                "payer_phone": "13912345678", "apply_refund_amount": 1000, "images": [Base64.encode(Self.png)],
            ])
        let id = try #require(raised.object["complaint_id"] as? String, "\(raised)")
        #expect(try await eventually { endpoint.actions(of: id) == ["CREATE_COMPLAINT"] })

        let complaint = try await client.complaint(id: id)
        #expect(complaint.state == .pending && complaint.problemType == .refund && complaint.applyRefundAmount == 1000)
        #expect(complaint.orders.first?.outTradeNo == number && complaint.orders.first?.amount == 2599)
        #expect(try complaint.decryptedPayerPhone(with: Keys.merchantKey) == "13912345678")
        #expect(complaint.payerPhone != "13912345678")
        let today = BeijingTime.string(from: Date(), .day)
        let listed = try await client.complaints(from: today, to: today, limit: 50)
        #expect(listed.complaints.map(\.id).contains(id) && listed.totalCount ?? 0 >= 1)
        // The payer's image, downloaded as the file it is (unsigned).
        let payerImage = try #require(complaint.media.first?.mediaURLs.first)
        let (bytes, type) = try await client.complaintImage(at: payerImage)
        #expect(Array(bytes) == Self.png && type == "image/png")

        // An image from the merchant media upload is not an answer's: the complaint image upload's is.
        let media = try await client.uploadMedia(try .init(filename: "a.png", bytes: Self.png, purpose: .merchantMedia))
        let wrongKind = await #expect(throws: PaymentError.self) {
            try await client.respond(toComplaint: id, .init(content: "已处理", images: [media]))
        }
        #expect(wrongKind?.providerCode == "PARAM_ERROR")
        let image = try await client.uploadComplaintImage(try .init(filename: "receipt.png", bytes: Self.png, purpose: .complaintImage))
        try await client.respond(
            toComplaint: id, .init(content: "抱歉，已为您退款", images: [image], link: .init(url: "https://shop.example.com/o/1", text: "查看订单")))
        #expect(try await client.complaint(id: id).state == .processing)

        try await client.updateRefundProgress(complaintID: id, .approve(launchRefundDay: 0))
        try await client.updateRefundProgress(complaintID: id, .approve(launchRefundDay: 0))  // a retry changes nothing
        let changed = await #expect(throws: PaymentError.self) {
            try await client.updateRefundProgress(complaintID: id, .reject(reason: "不退"))
        }
        #expect(changed?.providerCode == "INVALID_REQUEST")
        _ = try await client.refund(
            outTradeNo: number, outRefundNo: "R" + number, total: Money(minorUnits: 2599, currency: .cny),
            refund: Money(minorUnits: 1000, currency: .cny))
        #expect(try await client.complaint(id: id).state == .processed)
        #expect(try await eventually { endpoint.actions(of: id) == ["CREATE_COMPLAINT", "REFUND_SUCCESS"] })
        try await client.completeComplaint(id: id)  // handled already: a repeat

        let history = try await client.negotiationHistory(complaintID: id).entries
        #expect(
            history.map(\.operateType.rawValue) == [
                "USER_CREATE_COMPLAINT", "MERCHANT_RESPONSE", "MERCHANT_APPROVE_REFUND", "REFUND_SUCCESS",
            ])
        #expect(history[0].allImageURLs.count == 1 && history[1].allImageURLs.count == 1)
        let answered = try await client.complaintImage(at: history[1].allImageURLs[0])
        #expect(Array(answered.bytes) == Self.png)

        try await client.deleteComplaintNotifyURL()
        #expect(try await client.complaintNotifyURL() == nil)
        await endpoint.server.stop()
        await sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2))) func thePayersSideMovesTheComplaintAndEachStepIsNotified() async throws {
        let sandbox = try Keys.sandbox()
        let keys = WeChatPay.V3.PlatformKeys()
        let client = WeChatPay.V3.Client(merchant: Keys.merchant, keys: keys, baseURL: sandbox.wechatV3URL)
        let endpoint = try Endpoint(keys: keys)
        _ = try await client.createComplaintNotifyURL(endpoint.url)
        let number = try await Self.paidTrade(client, sandbox)
        #expect(try await Self.complain(sandbox, ["out_trade_no": "NOPE", "complaint_detail": "x"]).status == 404)
        #expect(try await Self.complain(sandbox, ["out_trade_no": number, "complaint_detail": "x", "problem_type": "BAD"]).status == 400)
        #expect(
            try await Self.complain(
                sandbox, ["out_trade_no": number, "complaint_detail": "x", "problem_type": "REFUND", "apply_refund_amount": 2600]
            ).status == 400)
        let id = try #require(
            try await Self.complain(sandbox, ["out_trade_no": number, "complaint_detail": "没到账", "problem_type": "OTHERS"]).object[
                "complaint_id"] as? String)
        #expect(try await Self.complain(sandbox, ["out_trade_no": number, "complaint_detail": "again"]).status == 409)
        try await sandbox.wechatV3.payerResponse(complaintID: id, content: "请尽快处理", images: [Self.png])
        #expect(try await client.complaint(id: id).incomingUserResponse)
        let notRefund = await #expect(throws: PaymentError.self) {
            try await client.updateRefundProgress(complaintID: id, .approve())
        }
        #expect(notRefund?.providerCode == "INVALID_REQUEST")
        try await client.respond(toComplaint: id, .init(content: "已补发"))
        try await client.completeComplaint(id: id)
        #expect(try await client.complaint(id: id).state == .processed)
        try await sandbox.wechatV3.continueComplaint(id: id, content: "还是没收到")
        let reopened = try await client.complaint(id: id)
        #expect(reopened.state == .pending && reopened.userComplaintTimes == 2)
        try await sandbox.wechatV3.applyForPlatformService(complaintID: id)
        #expect(
            try await eventually {
                endpoint.actions(of: id) == ["CREATE_COMPLAINT", "USER_RESPONSE", "CONTINUE_COMPLAINT", "USER_APPLY_PLATFORM_SERVICE"]
            })
        await endpoint.server.stop()
        await sandbox.stop()
    }

    @Test func anotherMerchantsKeyAndForgedUploadsAreRefused() async throws {
        let otherKey = TestKeys.rsa(1)
        let other = try WeChatPay.V3.Merchant(
            mchID: "1230000999", certificateSerial: "AA1C72E2A8931B72A2E13AF8DEE92471EB397115", privateKey: otherKey,
            apiV3Key: Keys.apiV3Key)
        let sandbox = SandboxServer(
            wechatMerchants: [],
            wechatV3Merchants: [
                Keys.sandboxMerchant,
                .init(
                    mchID: other.mchID, certificateSerial: other.certificateSerial, publicKey: otherKey.publicKey, apiV3Key: Keys.apiV3Key),
            ], timeScale: 0.001)
        try sandbox.start()
        let client = WeChatPay.V3.Client(merchant: Keys.merchant, keys: WeChatPay.V3.PlatformKeys(), baseURL: sandbox.wechatV3URL)
        let stranger = WeChatPay.V3.Client(merchant: other, keys: WeChatPay.V3.PlatformKeys(), baseURL: sandbox.wechatV3URL)
        let number = try await Self.paidTrade(client, sandbox)
        let id = try #require(
            try await Self.complain(sandbox, ["out_trade_no": number, "complaint_detail": "x"]).object["complaint_id"] as? String)
        let notTheirs = await #expect(throws: PaymentError.self) { try await stranger.complaint(id: id) }
        #expect(notTheirs?.providerCode == "RESOURCE_NOT_EXISTS")
        await #expect(throws: PaymentError.self) { try await stranger.respond(toComplaint: id, .init(content: "hi")) }
        let today = BeijingTime.string(from: Date(), .day)
        #expect(try await stranger.complaints(from: today, to: today).complaints.isEmpty)

        // An upload signed over the whole multipart body (the mistake SDKs make) does not verify; over meta it does.
        let upload = try WeChatPay.V3.MediaUpload(filename: "r.png", bytes: Self.png, purpose: .complaintImage)
        let form = upload.form()
        for (signed, expected) in [(String(decoding: form.encoded(), as: UTF8.self), 401), (upload.meta, 200)] {
            let authorization = try WeChatPay.V3.RequestSigner.authorization(
                method: "POST", canonicalURL: "/v3/merchant-service/images/upload", body: signed, merchant: Keys.merchant)
            // The boundary only in the body, as wechatpayv3 sends it.
            let response = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "POST", url: URL(string: sandbox.wechatV3URL.absoluteString + "/v3/merchant-service/images/upload")!,
                    headers: ["Authorization": authorization, "Content-Type": "multipart/form-data"], body: Data(form.encoded())))
            #expect(response.status == expected, "\(String(decoding: response.body, as: UTF8.self))")
        }
        // A file that is not the one meta names.
        var tampered = MultipartFormData()
        tampered.append(name: "meta", contentType: "application/json", body: Array(upload.meta.utf8))
        tampered.append(name: "file", filename: "r.png", contentType: "image/png", body: Self.png + [0])
        let authorization = try WeChatPay.V3.RequestSigner.authorization(
            method: "POST", canonicalURL: "/v3/merchant-service/images/upload", body: upload.meta, merchant: Keys.merchant)
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: URL(string: sandbox.wechatV3URL.absoluteString + "/v3/merchant-service/images/upload")!,
                headers: ["Authorization": authorization, "Content-Type": tampered.contentType], body: Data(tampered.encoded())))
        #expect(response.status == 400 && String(decoding: response.body, as: UTF8.self).contains("sha256"))
        await sandbox.stop()
    }
}
