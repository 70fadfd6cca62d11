import Cashier
import CashierCrypto
import CashierHTTP
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierSandbox

/// The complaint notify path refuses what is not WeChat Pay's word about this merchant's
/// complaint — a forged or tampered signature, a replay, another APIv3 key, another event type,
/// another merchant's complaint, no body — and records nothing for it; a genuine one read again
/// records its change; a storm of one notification's copies records the complaint once.
@Suite struct ComplaintNotificationTests {
    /// A v3 notification as WeChat Pay makes one: `resource` encrypted under `apiV3Key`, the body signed by `key`.
    static func notification(
        _ resource: [String: Any], event: String = "COMPLAINT.STATE_CHANGE", apiV3Key: String, key: RSAPrivateKey, serial: String,
        at date: Date = Date()
    ) throws -> (body: [UInt8], headers: HTTPHeaders) {
        let nonce = SecureRandom.alphanumeric(count: 12)
        let box = try AESGCMKey(Array(apiV3Key.utf8)).seal(
            try JSONSerialization.data(withJSONObject: resource), iv: Array(nonce.utf8), authenticating: Array("complaint".utf8))
        let envelope: [String: Any] = [
            "id": UUID().uuidString, "create_time": BeijingTime.string(from: date, .rfc3339), "event_type": event,
            "resource_type": "encrypt-resource", "summary": "投诉单状态变化",
            "resource": [
                "algorithm": "AEAD_AES_256_GCM", "ciphertext": Base64.encode(box.combined), "nonce": nonce, "associated_data": "complaint",
                "original_type": "complaint",
            ],
        ]
        let body = Array(try JSONSerialization.data(withJSONObject: envelope))
        let timestamp = String(Int(date.timeIntervalSince1970))
        let signatureNonce = SecureRandom.alphanumeric(count: 32)
        let signature = try key.signature(
            for: Array("\(timestamp)\n\(signatureNonce)\n".utf8) + body + [0x0A], scheme: .insecurePKCS1v1_5SHA256)
        return (
            body,
            [
                "Content-Type": "application/json", "Wechatpay-Timestamp": timestamp, "Wechatpay-Nonce": signatureNonce,
                "Wechatpay-Signature": Base64.encode(signature), "Wechatpay-Serial": serial,
                "Wechatpay-Signature-Type": "WECHATPAY2-SHA256-RSA2048",
            ]
        )
    }

    static func post(_ fixture: ServerFixture, _ message: (body: [UInt8], headers: HTTPHeaders)) async throws -> Int {
        try await ServerFixture.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + "/notify/wechat/v3/complaints")!,
                headers: message.headers, body: Data(message.body), timeout: ServerFixture.patience)
        ).status
    }

    @Test(.timeLimit(.minutes(3))) func onlyWeChatsWordAboutThisMerchantsComplaintIsRecorded() async throws {
        let receiver = try ServerFixture.receiver(failures: 0)
        let fixture = try await ServerFixture(webhook: .init(url: receiver.url, secret: "whsec_complaints"))
        let order = try await ComplaintDashboardTests.paid(fixture, "9.00")
        let providerID = try await fixture.sandbox.wechatV3.raiseComplaint(.init(outTradeNo: order.number, detail: "杯子漏了"))
        #expect(
            try await eventually { try await fixture.store.complaint(provider: "wechat.v3", providerComplaintID: providerID) != nil })
        let platform = try RSAPrivateKey(pemRepresentation: WeChatSandboxTestIdentity.privateKeyPEM)
        let serial = fixture.sandbox.wechatV3.platformCertificate.serialNumberHex
        let apiV3Key = try #require(fixture.mode.configuration.wechatV3?.merchant.apiV3Key)
        let resource: [String: Any] = ["complaint_id": providerID, "action_type": "USER_RESPONSE"]
        func version() async throws -> Int64? {
            try await fixture.store.complaint(provider: "wechat.v3", providerComplaintID: providerID)?.version
        }
        let before = try await version()

        var tampered = try Self.notification(resource, apiV3Key: apiV3Key, key: platform, serial: serial)
        tampered.body[tampered.body.count / 2] ^= 0x01
        let otherKey = try Self.notification(resource, apiV3Key: String(repeating: "k", count: 32), key: platform, serial: serial)
        let forged = try Self.notification(resource, apiV3Key: apiV3Key, key: TestKeys.rsa(3), serial: serial)
        let replayed = try Self.notification(resource, apiV3Key: apiV3Key, key: platform, serial: serial, at: Date() - 600)
        let unknownSerial = try Self.notification(resource, apiV3Key: apiV3Key, key: platform, serial: "0123456789ABCDEF")
        let payment = try Self.notification(
            ["out_trade_no": order.number], event: "TRANSACTION.SUCCESS", apiV3Key: apiV3Key, key: platform, serial: serial)
        for (name, message) in [
            ("tampered", tampered), ("another APIv3 key", otherKey), ("forged", forged), ("replayed", replayed),
            ("unknown serial", unknownSerial), ("not a complaint", payment),
        ] {
            #expect(try await Self.post(fixture, message) == 401, "\(name)")
        }
        #expect(try await Self.post(fixture, ([], ["Content-Type": "application/json"])) == 400)
        // Genuine, about a complaint WeChat does not have for this merchant: refused, nothing recorded.
        let stranger = try Self.notification(
            ["complaint_id": "200220261201999999999999999", "action_type": "CREATE_COMPLAINT"], event: "COMPLAINT.CREATE",
            apiV3Key: apiV3Key, key: platform, serial: serial)
        #expect(try await Self.post(fixture, stranger) == 400)
        #expect(try await fixture.store.complaint(provider: "wechat.v3", providerComplaintID: "200220261201999999999999999") == nil)
        #expect(try await version() == before)

        // The payer writes; WeChat's own notification, then a storm of its copies: one change, one webhook each.
        try await fixture.sandbox.wechatV3.payerResponse(complaintID: providerID, content: "还在吗")
        #expect(try await eventually { try await version() != before })
        let key = "complaint:\(providerID):2"
        let storm = try #require(
            await fixture.sandbox.delivery.replay(
                key: key, copies: 20, to: [fixture.server.baseURL.appendingPathComponent("notify/wechat/v3/complaints")]))
        #expect(storm.acknowledged == 20)
        let complaint = try #require(try await fixture.store.complaint(provider: "wechat.v3", providerComplaintID: providerID))
        #expect(complaint.snapshot.awaitingReply && complaint.version == (before ?? 0) + 1)
        let outbox = try await fixture.store.outbox(orderID: order.id)
        #expect(outbox.filter { $0.type == "complaint.created" }.count == 1)
        #expect(outbox.filter { $0.type == "complaint.updated" }.count == 1)
        // A genuine one of ours, made here: read again, nothing new.
        let genuine = try Self.notification(resource, apiV3Key: apiV3Key, key: platform, serial: serial)
        #expect(try await Self.post(fixture, genuine) == 204)
        #expect(try await version() == complaint.version)
        await fixture.stop()
        await receiver.server.stop()
    }
}
