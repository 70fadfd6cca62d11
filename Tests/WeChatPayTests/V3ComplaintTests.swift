import Cashier
import CashierCrypto
import Foundation
import Synchronization
import Testing

@testable import WeChatPay

/// Complaints (消费者投诉 2.0) and media upload: known answers made with wechatpayv3 2.0.4 itself
/// (`Vectors/v3_complaints.json`, by `scripts/test/make_complaint_vectors.py`), the documented
/// complaint and conversation documents, and the checks the library makes before sending.
@Suite struct V3ComplaintTests {
    struct Vectors: Decodable {
        struct Upload: Decodable {
            let filename, file_base64, sha256, meta, timestamp, nonce, message, signature, content_type, body_base64: String
        }
        struct Phone: Decodable { let plaintext, ciphertext: String }
        struct Document: Decodable { let json: JSONValue }
        let private_key_pkcs8_pem: String
        let upload: Upload
        let payer_phone: Phone
        let complaint_detail: Document
        let negotiation_history: Document
        let notification_resource: Document
    }

    /// Any JSON, re-encoded for the decoders under test.
    enum JSONValue: Decodable {
        case value(Any)
        init(from decoder: any Decoder) throws {
            self = .value(try JSONDecoder.anyValue(from: decoder))
        }
        func data(replacing key: String? = nil, with replacement: String? = nil) throws -> Data {
            guard case .value(var object) = self else { return Data() }
            if let key, var dictionary = object as? [String: Any] {
                dictionary[key] = replacement
                object = dictionary
            }
            return try JSONSerialization.data(withJSONObject: object)
        }
    }

    static func vectors() throws -> Vectors { try Fixture.decode(Vectors.self, "v3_complaints.json") }
    static func key() throws -> RSAPrivateKey { try RSAPrivateKey(pemRepresentation: vectors().private_key_pkcs8_pem) }

    // MARK: Media upload

    @Test func wechatpayv3sBoundarylessUploadIsReadAndItsMetaSignatureVerifies() throws {
        let upload = try Self.vectors().upload
        #expect(upload.content_type == "multipart/form-data")  // no boundary parameter: the body's first line names it
        let received = try WeChatPay.V3.ReceivedUpload(body: try Base64.decodeBytes(upload.body_base64), contentType: upload.content_type)
        #expect(received.meta == upload.meta)
        #expect(received.filename == upload.filename)
        #expect(received.file == (try Base64.decodeBytes(upload.file_base64)))
        #expect(received.fileContentType == "image/png")
        let file = try received.upload(for: .complaintImage)
        #expect(file.sha256 == upload.sha256 && file.kind == .png)
        // The signed message covers meta, not the body; PKCS#1 v1.5 is deterministic, so ours is the peer's.
        let message = WeChatPay.V3.RequestSigner.message(
            method: "POST", canonicalURL: "/v3/merchant-service/images/upload", timestamp: Int(upload.timestamp)!, nonce: upload.nonce,
            body: received.meta)
        #expect(message == upload.message)
        #expect(Base64.encode(try Self.key().signature(for: message, scheme: .insecurePKCS1v1_5SHA256)) == upload.signature)
        #expect(!upload.message.contains("Content-Disposition"))
    }

    @Test func ourUploadMetaIsTheSDKsAndTheRequestSignsOnlyIt() async throws {
        let upload = try Self.vectors().upload
        let file = try WeChatPay.V3.MediaUpload(
            filename: upload.filename, bytes: try Base64.decodeBytes(upload.file_base64), purpose: .complaintImage)
        #expect(file.meta == upload.meta)
        let transport = Recording(answer: HTTPResponse(status: 400, body: Data(#"{"code":"PARAM_ERROR","message":"x"}"#.utf8)))
        let client = try Self.client(transport)
        let error = await #expect(throws: PaymentError.self) { try await client.uploadComplaintImage(file) }
        #expect(error?.providerCode == "PARAM_ERROR")
        let sent = try #require(transport.requests.first)
        #expect(sent.url.path == "/v3/merchant-service/images/upload")
        let type = try #require(sent.headers["Content-Type"])
        #expect(type.hasPrefix("multipart/form-data; boundary="))
        let received = try WeChatPay.V3.ReceivedUpload(body: Array(sent.body), contentType: type)
        #expect(received.meta == file.meta)
        #expect(Self.verifies(sent, signedBody: file.meta))
        #expect(!Self.verifies(sent, signedBody: String(decoding: sent.body, as: UTF8.self)))
    }

    @Test(arguments: [
        ("receipt.jpg", "png", WeChatPay.V3.MediaUpload.Purpose.complaintImage, "content"),
        ("receipt", "png", .complaintImage, "extension"),
        ("receipt.gif", "png", .complaintImage, "extension"),
        ("statement.pdf", "pdf", .complaintImage, "extension"),
        ("a\"b.png", "png", .complaintImage, "quotes"),
        ("empty.png", "empty", .complaintImage, "empty"),
        ("big.png", "png2MB+1", .complaintImage, "bytes"),
        ("big.png", "png5MB+1", .merchantMedia, "bytes"),
        ("big.pdf", "pdf7.5MB+1", .merchantMedia, "bytes"),
    ])
    func filesWeChatRefusesAreRefusedBeforeSending(name: String, content: String, purpose: WeChatPay.V3.MediaUpload.Purpose, why: String)
        throws
    {
        let error = #expect(throws: PaymentError.self) {
            try WeChatPay.V3.MediaUpload(filename: name, bytes: Self.file(content), purpose: purpose)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains(why) == true, "\(error?.message ?? "")")
    }

    @Test func theLimitsAreWeChatsOwn() throws {
        _ = try WeChatPay.V3.MediaUpload(filename: "ok.png", bytes: Self.file("png2MB"), purpose: .complaintImage)
        _ = try WeChatPay.V3.MediaUpload(filename: "ok.PNG", bytes: Self.file("png5MB"), purpose: .merchantMedia)
        _ = try WeChatPay.V3.MediaUpload(filename: "ok.pdf", bytes: Self.file("pdf7.5MB"), purpose: .merchantMedia)
        _ = try WeChatPay.V3.MediaUpload(filename: "ok.jpeg", bytes: [0xFF, 0xD8, 0xFF, 0xE0], purpose: .complaintImage)
        _ = try WeChatPay.V3.MediaUpload(filename: "ok.bmp", bytes: Array("BM".utf8) + [0, 0], purpose: .complaintImage)
    }

    @Test func aReceivedUploadWhoseFileIsNotTheOneMetaNamesIsRefused() throws {
        let upload = try Self.vectors().upload
        var form = MultipartFormData()
        form.append(name: "meta", body: Array(upload.meta.utf8))
        form.append(name: "file", filename: "receipt.png", contentType: "image/png", body: try Base64.decodeBytes(upload.file_base64) + [0])
        let received = try WeChatPay.V3.ReceivedUpload(body: form.encoded(), contentType: form.contentType)
        let error = #expect(throws: PaymentError.self) { try received.upload(for: .complaintImage) }
        #expect(error?.code == .signatureMismatch)
    }

    @Test(arguments: ["no meta", "no file", "no boundary", "wrong boundary", "meta not JSON", "LF only"])
    func malformedUploadsAreRefused(_ case: String) throws {
        let upload = try Self.vectors().upload
        var form = MultipartFormData(boundary: "b0undary")
        if `case` != "no meta" { form.append(name: "meta", body: Array((`case` == "meta not JSON" ? "{oops" : upload.meta).utf8)) }
        if `case` != "no file" { form.append(name: "file", filename: "receipt.png", body: try Base64.decodeBytes(upload.file_base64)) }
        var body = form.encoded()
        var type = form.contentType
        switch `case` {
        case "no boundary": (body, type) = (Array("meta=1".utf8), "multipart/form-data")
        case "wrong boundary": type = "multipart/form-data; boundary=other"
        case "LF only": body = Array(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n").utf8)
        default: break
        }
        let error = #expect(throws: PaymentError.self) { try WeChatPay.V3.ReceivedUpload(body: body, contentType: type) }
        #expect(error?.code == .malformedMessage)
    }

    @Test func multipartRoundTripsAndTakesAQuotedBoundary() throws {
        var form = MultipartFormData(boundary: "x-y")
        form.append(name: "a", body: Array("1".utf8))
        form.append(name: "f", filename: "f.bin", contentType: "application/octet-stream", body: [0, 13, 10, 45, 45, 120])
        let read = try MultipartFormData(body: form.encoded(), contentType: "multipart/form-data; boundary=\"x-y\"; charset=utf-8")
        #expect(read == form)
        #expect(read.fields == ["a": "1"])
        let sniffed = try MultipartFormData(body: form.encoded(), contentType: "Multipart/Form-Data")
        #expect(sniffed.parts == form.parts)
    }

    // MARK: Documents

    @Test func theDocumentedComplaintDecodesAndItsPhoneDecrypts() throws {
        let vectors = try Self.vectors()
        let complaint = try WeChatPay.V3.Complaint.decode(
            try vectors.complaint_detail.json.data(replacing: "payer_phone", with: vectors.payer_phone.ciphertext))
        #expect(complaint.id == "200201820200101080076610000")
        #expect(complaint.state == .pending && complaint.problemType == .refund && complaint.applyRefundAmount == 10)
        #expect(
            complaint.orders == [.init(transactionID: "4200000000000000000000000000", outTradeNo: "20190906154617947762231", amount: 3)])
        #expect(complaint.media.first?.mediaURLs.count == 1)
        #expect(complaint.incomingUserResponse && !complaint.fullyRefunded && complaint.userTags == ["TRUSTED"])
        let at = try #require(complaint.complainedAt)
        #expect(at.timeIntervalSince1970 == 1_432_099_775.12)
        #expect(WeChatPay.V3.Complaint.responseDeadline(after: at).timeIntervalSince(at) == 86_400)
        #expect(WeChatPay.V3.Complaint.settlementDeadline(after: at).timeIntervalSince(at) == 3 * 86_400)
        #expect(try complaint.decryptedPayerPhone(with: Self.key()) == vectors.payer_phone.plaintext)
        let error = #expect(throws: PaymentError.self) {
            try complaint.decryptedPayerPhone(with: RSAPrivateKey(generatingKeySizeInBits: 2048))
        }
        #expect(error?.code == .decryptionFailure)
    }

    @Test func theConversationTakesMediaAsAnObjectOrAList() throws {
        let page = try JSONDecoder().decode(
            WeChatPay.V3.ComplaintNegotiationPage.self, from: try Self.vectors().negotiation_history.json.data())
        #expect(page.entries.count == 2 && page.totalCount == 2)
        #expect(page.entries[0].operateType == .userCreateComplaint)
        #expect(page.entries[0].allImageURLs.map { $0.suffix(1) } == ["a", "b"])
        #expect(page.entries[1].operateType == .merchantResponse && page.entries[1].media.first?.mediaType == "OPERATION_IMAGE")
    }

    @Test func complaintNotificationsAreReadOnlyAsSuch() throws {
        let resource = try Self.vectors().notification_resource.json.data()
        func notification(_ type: String, _ plaintext: Data) -> WeChatPay.V3.Notification {
            WeChatPay.V3.Notification(
                id: "EV-1", eventType: type, resourceType: "encrypt-resource", summary: nil, createTime: nil, originalType: "complaint",
                plaintext: Array(plaintext))
        }
        let event = try WeChatPay.V3.ComplaintEvent(notification("COMPLAINT.CREATE", resource))
        #expect(event.complaintID == "200201820200101080076610000" && event.actionType == .createComplaint)
        let later = try WeChatPay.V3.ComplaintEvent(
            notification("COMPLAINT.STATE_CHANGE", Data(#"{"complaint_id":"2","action_type":"SOMETHING_NEW"}"#.utf8)))
        #expect(later.actionType.rawValue == "SOMETHING_NEW")
        #expect(WeChatPay.V3.ComplaintEvent.ActionType.documented.count == 13)
        for (type, body) in [("TRANSACTION.SUCCESS", resource), ("COMPLAINT.CREATE", Data(#"{"action_type":"X"}"#.utf8))] {
            #expect(throws: PaymentError.self) { try WeChatPay.V3.ComplaintEvent(notification(type, body)) }
        }
    }

    // MARK: Checks before sending

    @Test func answersWeChatWouldRefuseAreRefusedBeforeSending() throws {
        typealias Response = WeChatPay.V3.ComplaintResponse
        let refused: [Response] = [
            Response(content: "  "), Response(content: String(repeating: "退", count: 201)),
            Response(content: "ok", images: ["1", "2", "3", "4", "5"]), Response(content: "ok", images: [""]),
            Response(content: "ok", link: .init(url: "http://shop.example.com", text: "看")),
            Response(content: "ok", link: .init(url: "https://shop.example.com", text: " ")),
            Response(content: "ok", miniProgram: .init(appID: "wx1", path: "", text: "t")),
        ]
        for response in refused {
            #expect(throws: PaymentError.self) { try response.body(mchID: "1900000109") }
        }
        let body = try Response(
            content: String(repeating: "退", count: 200), images: ["m1", "m2", "m3", "m4"],
            link: .init(url: "https://shop.example.com/o/1", text: "查看订单")
        ).body(mchID: "1900000109")
        #expect(body["complainted_mchid"] as? String == "1900000109" && (body["response_images"] as? [String])?.count == 4)
        #expect(body["jump_url"] as? String == "https://shop.example.com/o/1" && body["jump_url_text"] as? String == "查看订单")
        _ = try Response(content: String(repeating: "a", count: 500)).body(mchID: "1", partner: true)
        #expect(throws: PaymentError.self) { try WeChatPay.V3.RefundDecision.reject(reason: "").body() }
        #expect(throws: PaymentError.self) { try WeChatPay.V3.RefundDecision.approve(launchRefundDay: -1).body() }
        #expect(throws: PaymentError.self) {
            try WeChatPay.V3.RefundDecision.reject(reason: "no", images: ["1", "2", "3", "4", "5"]).body()
        }
        #expect(try WeChatPay.V3.RefundDecision.approve(launchRefundDay: 0).body()["launch_refund_day"] as? Int == 0)
        #expect(try WeChatPay.V3.RefundDecision.reject(reason: "已发货").body()["action"] as? String == "REJECT")
    }

    @Test func listsAndPathsWeChatWouldRefuseAreNotSent() async throws {
        let transport = Recording(answer: HTTPResponse(status: 500))
        let client = try Self.client(transport)
        for (begin, end, limit) in [
            ("2026-12-01", "2026-12-01", 0), ("2026-12-01", "2026-12-01", 51), ("2026-11-01", "2026-12-02", 10),
            ("2026-12-02", "2026-12-01", 10), ("2026-12-1", "2026-12-01", 10), ("2026-13-01", "2026-13-02", 10),
        ] {
            let error = await #expect(throws: PaymentError.self) { try await client.complaints(from: begin, to: end, limit: limit) }
            #expect(error?.code == .invalidRequest, "\(begin) \(end) \(limit)")
        }
        await #expect(throws: PaymentError.self) { try await client.complaint(id: "../../v3/certificates") }
        await #expect(throws: PaymentError.self) { try await client.negotiationHistory(complaintID: "1", limit: 301) }
        await #expect(throws: PaymentError.self) {
            try await client.complaintImage(at: "https://evil.example.com/v3/merchant-service/images/1")
        }
        await #expect(throws: PaymentError.self) { try await client.createComplaintNotifyURL("https://shop.example.com/notify?x=1") }
        #expect(transport.requests.isEmpty)
        // A 30-day span is the most WeChat lists: sent, with complainted_mchid.
        _ = try? await client.complaints(from: "2026-11-01", to: "2026-12-01", limit: 50, offset: 50)
        #expect(
            transport.requests.first?.url.absoluteString
                == "https://api.mch.weixin.qq.com/v3/merchant-service/complaints-v2?limit=50&offset=50&begin_date=2026-11-01"
                + "&end_date=2026-12-01&complainted_mchid=1900000109")
    }

    // MARK: Helpers

    /// A transport that records each request and answers `answer`.
    final class Recording: HTTPTransport {
        let answer: HTTPResponse
        let sent = Mutex<[HTTPRequest]>([])
        init(answer: HTTPResponse) { self.answer = answer }
        var requests: [HTTPRequest] { sent.withLock { $0 } }
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            sent.withLock { $0.append(request) }
            return answer
        }
    }

    static func client(_ transport: any HTTPTransport) throws -> WeChatPay.V3.Client {
        let merchant = try WeChatPay.V3.Merchant(
            mchID: "1900000109", certificateSerial: "444F4864EA9B34415B5C0CC7FB3C6C0B1A2F3E4D", privateKey: key(),
            apiV3Key: "a7cde1ZJB1kG2e7VfTs3jQzaWizur8Gb")
        return WeChatPay.V3.Client(merchant: merchant, keys: WeChatPay.V3.PlatformKeys(), transport: transport)
    }

    /// Whether `request`'s Authorization is the merchant's signature over its method, path and `signedBody`.
    static func verifies(_ request: HTTPRequest, signedBody: String) -> Bool {
        guard let fields = request.headers["Authorization"].flatMap(WeChatPay.V3.RequestSigner.parse(authorization:)),
            let timestamp = fields["timestamp"].flatMap(Int.init), let nonce = fields["nonce_str"],
            let signature = fields["signature"].flatMap({ try? Base64.decode($0) }), let key = try? key()
        else { return false }
        let message = WeChatPay.V3.RequestSigner.message(
            method: request.method, canonicalURL: request.url.path, timestamp: timestamp, nonce: nonce, body: signedBody)
        return key.publicKey.isValidSignature(signature, for: Array(message.utf8), scheme: .insecurePKCS1v1_5SHA256)
    }

    /// A file of a kind and size: `png`, `pdf`, `empty`, or a kind and a size (`png2MB+1`).
    static func file(_ spec: String) -> [UInt8] {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let pdf = Array("%PDF-1.7\n".utf8)
        let head = spec.hasPrefix("pdf") ? pdf : spec == "empty" ? [] : png
        let sizes: [String: Int] = [
            "2MB": 2 * 1024 * 1024, "2MB+1": 2 * 1024 * 1024 + 1, "5MB": 5 * 1024 * 1024, "5MB+1": 5 * 1024 * 1024 + 1,
            "7.5MB": 7_864_320, "7.5MB+1": 7_864_321,
        ]
        let size = sizes[String(spec.dropFirst(3))] ?? head.count
        return head + [UInt8](repeating: 0, count: max(0, size - head.count))
    }
}

extension JSONDecoder {
    /// Any JSON value, as `JSONSerialization` would give it.
    static func anyValue(from decoder: any Decoder) throws -> Any {
        if var array = try? decoder.unkeyedContainer() {
            var values: [Any] = []
            while !array.isAtEnd { values.append(try anyValue(from: try array.superDecoder())) }
            return values
        }
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            var values: [String: Any] = [:]
            for key in object.allKeys { values[key.stringValue] = try anyValue(from: try object.superDecoder(forKey: key)) }
            return values
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { return NSNull() }
        if let bool = try? single.decode(Bool.self) { return bool }
        if let int = try? single.decode(Int64.self) { return int }
        if let double = try? single.decode(Double.self) { return double }
        return try single.decode(String.self)
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
