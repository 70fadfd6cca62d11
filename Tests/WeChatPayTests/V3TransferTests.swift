import Cashier
import CashierCrypto
import Foundation
import Testing

@testable import WeChatPay

/// Merchant transfers (商家转账): the documented `MCHTRANSFER.BILL.FINISHED` resource and query
/// answer read as they are, a notification signed and encrypted with the `v3_notify.json`
/// platform key opened only when it verifies, and the checks a transfer request makes before
/// anything is sent (the payee's name required from 2,000 yuan, encrypted with RSA-OAEP).
@Suite struct V3TransferTests {
    /// The resource of WeChat's documented example notification (pay.weixin.qq.com/doc/v3/merchant/4012712115).
    static let documentedResource = """
        {"out_bill_no":"plfk2020042013","transfer_bill_no":"1330000071100999991182020050700019480001","state":"SUCCESS",\
        "mch_id":"1900001109","transfer_amount":2000,"openid":"o-MYE42l80oelYMDE34nYD456Xoy","fail_reason":"PAYEE_ACCOUNT_ABNORMAL",\
        "create_time":"2015-05-20T13:29:35.120+08:00","update_time":"2015-05-20T13:29:35.120+08:00"}
        """

    static let signedAt = Date(timeIntervalSince1970: 1_795_000_000)

    /// A `MCHTRANSFER.BILL.FINISHED` notification of `resource`, encrypted under `apiV3Key` and
    /// signed with the vector platform key: its body and headers.
    static func notification(_ resource: String, apiV3Key: String, eventType: String = WeChatPay.V3.TransferBillEvent.eventType) throws
        -> (body: [UInt8], headers: WeChatPay.V3.SignatureHeaders, keys: WeChatPay.V3.PlatformKeys)
    {
        let notify = try V3NotificationTests.vectors().wechatpay_go_notify
        let platformKey = try RSAPrivateKey(pemRepresentation: notify.platform_private_key_pkcs8_pem)
        let nonce = "transferNonc"
        let box = try AESGCMKey(Array(apiV3Key.utf8)).seal(
            Array(resource.utf8), iv: Array(nonce.utf8), authenticating: Array("mch_payment".utf8))
        let envelope: [String: Any] = [
            "id": "EV-2018022511223320873", "create_time": "2015-05-20T13:29:35+08:00", "resource_type": "encrypt-resource",
            "event_type": eventType, "summary": "商家转账单据终态通知",
            "resource": [
                "original_type": "mch_payment", "algorithm": "AEAD_AES_256_GCM", "ciphertext": Base64.encode(box.combined),
                "associated_data": "mch_payment", "nonce": nonce,
            ],
        ]
        let body = String(decoding: try JSONSerialization.data(withJSONObject: envelope, options: [.sortedKeys]), as: UTF8.self)
        let timestamp = "1795000000"
        let signature = try platformKey.signature(for: Array("\(timestamp)\nn0nce\n\(body)\n".utf8), scheme: .insecurePKCS1v1_5SHA256)
        let keys = WeChatPay.V3.PlatformKeys()
        keys.add(publicKey: platformKey.publicKey, id: "PUB_KEY_ID_0114232134912410000000000000")
        let headers = WeChatPay.V3.SignatureHeaders(
            timestamp: timestamp, nonce: "n0nce", signature: Base64.encode(signature), serial: "PUB_KEY_ID_0114232134912410000000000000")
        return (Array(body.utf8), headers, keys)
    }

    static let apiV3Key = "0123456789abcdefABCDEF0123456789"

    @Test func theDocumentedNotificationOpensAsAFinishedBill() throws {
        let (body, headers, keys) = try Self.notification(Self.documentedResource, apiV3Key: Self.apiV3Key)
        let notification = try WeChatPay.V3.Notification.open(
            body: body, headers: headers, keys: keys, apiV3Key: Self.apiV3Key, now: Self.signedAt)
        let event = try WeChatPay.V3.TransferBillEvent(notification)
        #expect(event.notificationID == "EV-2018022511223320873")
        #expect(event.bill.outBillNo == "plfk2020042013" && event.bill.transferBillNo == "1330000071100999991182020050700019480001")
        #expect(event.bill.state == .success && event.bill.state.isFinal)
        #expect(event.bill.mchID == "1900001109" && event.bill.amount == 2000 && event.bill.openID == "o-MYE42l80oelYMDE34nYD456Xoy")
        #expect(event.bill.failReason == "PAYEE_ACCOUNT_ABNORMAL")
    }

    @Test func aTamperedForgedOrMisdirectedNotificationIsRefused() throws {
        let (body, headers, keys) = try Self.notification(Self.documentedResource, apiV3Key: Self.apiV3Key)
        var tampered = body
        tampered[tampered.count / 2] ^= 1
        let changed = #expect(throws: PaymentError.self) {
            try WeChatPay.V3.Notification.open(body: tampered, headers: headers, keys: keys, apiV3Key: Self.apiV3Key, now: Self.signedAt)
        }
        #expect(changed?.code == .signatureMismatch)
        // Signed by a key that is not the platform's.
        let other = WeChatPay.V3.PlatformKeys()
        other.add(publicKey: try RSAPrivateKey(generatingKeySizeInBits: 2048).publicKey, id: headers.serial)
        let forged = #expect(throws: PaymentError.self) {
            try WeChatPay.V3.Notification.open(body: body, headers: headers, keys: other, apiV3Key: Self.apiV3Key, now: Self.signedAt)
        }
        #expect(forged?.code == .signatureMismatch)
        // Encrypted for another merchant's APIv3 key.
        let wrongKey = #expect(throws: PaymentError.self) {
            try WeChatPay.V3.Notification.open(
                body: body, headers: headers, keys: keys, apiV3Key: "ffffffffffffffffffffffffffffffff", now: Self.signedAt)
        }
        #expect(wrongKey?.code == .decryptionFailure)
        // Another event, or a resource that is no bill, is not read as one.
        let payment = try Self.notification(Self.documentedResource, apiV3Key: Self.apiV3Key, eventType: "TRANSACTION.SUCCESS")
        let opened = try WeChatPay.V3.Notification.open(
            body: payment.body, headers: payment.headers, keys: payment.keys, apiV3Key: Self.apiV3Key, now: Self.signedAt)
        #expect(throws: PaymentError.self) { try WeChatPay.V3.TransferBillEvent(opened) }
        let noMerchant = try Self.notification(#"{"out_bill_no":"a1","transfer_bill_no":"b","state":"SUCCESS"}"#, apiV3Key: Self.apiV3Key)
        let bare = try WeChatPay.V3.Notification.open(
            body: noMerchant.body, headers: noMerchant.headers, keys: noMerchant.keys, apiV3Key: Self.apiV3Key, now: Self.signedAt)
        #expect(throws: PaymentError.self) { try WeChatPay.V3.TransferBillEvent(bare) }
    }

    @Test func theDocumentedQueryAnswerDecodes() throws {
        let answer = """
            {"mch_id":"1900001109","out_bill_no":"plfk2020042013","transfer_bill_no":"1330000071100999991182020050700019480001",\
            "appid":"wxf636efh567hg4356","state":"WAIT_USER_CONFIRM","transfer_amount":400,"transfer_remark":"2020年4月报销",\
            "openid":"o-MYE42l80oelYMDE34nYD456Xoy","create_time":"2015-05-20T13:29:35.120+08:00",\
            "update_time":"2015-05-20T13:29:35.120+08:00"}
            """
        let bill = try WeChatPay.V3.TransferBill.decode(Array(answer.utf8))
        #expect(bill.state == .waitUserConfirm && !bill.state.isFinal && bill.amount == 400 && bill.appID == "wxf636efh567hg4356")
        #expect(bill.remark == "2020年4月报销" && bill.packageInfo == nil)
        #expect(WeChatPay.V3.TransferBill.State.documented.filter(\.isFinal) == [.success, .fail, .cancelled])
        #expect(throws: PaymentError.self) { try WeChatPay.V3.TransferBill.decode(Array(#"{"state":"SUCCESS"}"#.utf8)) }
    }

    static func request(amount: Int64, userName: String? = nil, outBillNo: String = "plfk2020042013") -> WeChatPay.V3.TransferBillRequest {
        WeChatPay.V3.TransferBillRequest(
            appID: "wxf636efh567hg4356", outBillNo: outBillNo, sceneID: "1000", openID: "o-MYE42l80oelYMDE34nYD456Xoy", amount: amount,
            remark: "新会员开通有礼", userName: userName, notifyURL: "https://merchant.example/notify",
            reportInfos: [.init(type: "活动名称", content: "新会员有礼"), .init(type: "奖励说明", content: "注册会员抽奖一等奖")])
    }

    @Test func theNameIsRequiredFrom2000YuanAndSentEncryptedWithOAEP() throws {
        let platform = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        // 1,999.99 yuan goes without a name; 2,000 yuan does not.
        #expect(try Self.request(amount: 199_999).body(encryptingFor: nil)["user_name"] == nil)
        let missing = #expect(throws: PaymentError.self) { try Self.request(amount: 200_000).body(encryptingFor: platform.publicKey) }
        #expect(missing?.code == .invalidRequest)
        #expect(throws: PaymentError.self) { try Self.request(amount: 200_000, userName: "").validate() }
        // A name with no key to encrypt it for is never sent in clear.
        #expect(throws: PaymentError.self) { try Self.request(amount: 200_000, userName: "张三").body(encryptingFor: nil) }
        let body = try Self.request(amount: 200_000, userName: "张三").body(encryptingFor: platform.publicKey)
        let cipher = try #require(body["user_name"] as? String)
        #expect(cipher != "张三")
        #expect(String(decoding: try platform.decrypt(Base64.decodeBytes(cipher), padding: .insecureOAEPSHA1), as: UTF8.self) == "张三")
        #expect(throws: (any Error).self) { try platform.decrypt(Base64.decodeBytes(cipher), padding: .oaepSHA256) }
        #expect(body["transfer_amount"] as? Int64 == 200_000 && (body["transfer_scene_report_infos"] as? [[String: String]])?.count == 2)
    }

    @Test(arguments: ["", "has-dash", "with space", String(repeating: "a", count: 33), "单号"])
    func billNumbersWeChatRefusesAreRefusedBeforeSending(_ number: String) {
        #expect(throws: PaymentError.self) { try Self.request(amount: 100, outBillNo: number).validate() }
    }

    @Test func otherRequestsWeChatRefusesAreRefusedBeforeSending() {
        var request = Self.request(amount: 0)
        #expect(throws: PaymentError.self) { try request.validate() }
        request = Self.request(amount: 100)
        request.remark = String(repeating: "长", count: 33)
        #expect(throws: PaymentError.self) { try request.validate() }
        request = Self.request(amount: 100)
        request.reportInfos = []
        #expect(throws: PaymentError.self) { try request.validate() }
        #expect(throws: Never.self) { try Self.request(amount: 100, outBillNo: String(repeating: "a", count: 32)).validate() }
    }

    @Test func theEncryptionKeyIsThePublicKeyElseTheNewestValidCertificate() throws {
        let keys = WeChatPay.V3.PlatformKeys()
        #expect(keys.encryptionKey() == nil)
        let notify = try V3NotificationTests.vectors().wechatpay_go_notify
        let certificate = try X509Certificate(pemRepresentation: notify.platform_cert_pem)
        try keys.add(certificate: certificate)
        #expect(keys.encryptionKey(at: certificate.notValidBefore)?.serial == certificate.serialNumberHex.uppercased())
        #expect(keys.encryptionKey(at: certificate.notValidAfter.addingTimeInterval(1)) == nil)
        keys.add(publicKey: try RSAPrivateKey(generatingKeySizeInBits: 2048).publicKey, id: "PUB_KEY_ID_01")
        #expect(keys.encryptionKey()?.serial == "PUB_KEY_ID_01")
    }
}
