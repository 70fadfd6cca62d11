import Cashier
import CashierCrypto
import Foundation
import Testing

@testable import WeChatPay

@Suite struct V3NotificationTests {
    struct NotifyFile: Decodable {
        struct Notify: Decodable {
            let apiv3_key: String
            let headers: [String: String]
            let body: String
            let platform_cert_pem: String
            let platform_private_key_pkcs8_pem: String
            let expected_plaintext: String
        }
        struct AEAD: Decodable {
            let apiv3_key: String
            let nonce: String
            let associated_data: String
            let ciphertext: String
            let plaintext: String
        }
        let wechatpay_go_notify: Notify
        let wechatpay_go_aes: AEAD
        let wechatpay_java_aead: AEAD
    }

    static func vectors() throws -> NotifyFile { try Fixture.decode(NotifyFile.self, "v3_notify.json") }

    static func headers(_ notify: NotifyFile.Notify) -> WeChatPay.V3.SignatureHeaders {
        WeChatPay.V3.SignatureHeaders(
            timestamp: notify.headers["Wechatpay-Timestamp"]!, nonce: notify.headers["Wechatpay-Nonce"]!,
            signature: notify.headers["Wechatpay-Signature"]!, serial: notify.headers["Wechatpay-Serial"]!)
    }

    static func keys(_ notify: NotifyFile.Notify) throws -> WeChatPay.V3.PlatformKeys {
        let keys = WeChatPay.V3.PlatformKeys()
        try keys.add(certificate: X509Certificate(pemRepresentation: notify.platform_cert_pem))
        return keys
    }

    static let signedAt = Date(timeIntervalSince1970: 1_624_523_846)

    @Test func wechatpayGoNotificationVerifiesAndDecrypts() throws {
        let notify = try Self.vectors().wechatpay_go_notify
        let notification = try WeChatPay.V3.Notification.open(
            body: Array(notify.body.utf8), headers: Self.headers(notify), keys: Self.keys(notify), apiV3Key: notify.apiv3_key,
            now: Self.signedAt)
        #expect(String(decoding: notification.plaintext, as: UTF8.self) == notify.expected_plaintext)
        #expect(notification.id == "3119dfba-e649-5eec-ab1e-3412bc4d2e17")
        #expect(notification.eventType == "PAYSCORE.USER_OPEN_SERVICE")
        #expect(notification.originalType == "payscore")
    }

    @Test(arguments: [-301.0, 301.0, -86_400.0])
    func replayOutsideTheWindowIsRefused(offset: Double) throws {
        let notify = try Self.vectors().wechatpay_go_notify
        let error = #expect(throws: PaymentError.self) {
            try WeChatPay.V3.Notification.open(
                body: Array(notify.body.utf8), headers: Self.headers(notify), keys: Self.keys(notify), apiV3Key: notify.apiv3_key,
                now: Self.signedAt.addingTimeInterval(offset))
        }
        #expect(error?.code == .replayed)
    }

    @Test func windowEdgesAreAccepted() throws {
        let notify = try Self.vectors().wechatpay_go_notify
        for offset in [-300.0, 300.0] {
            _ = try WeChatPay.V3.Notification.open(
                body: Array(notify.body.utf8), headers: Self.headers(notify), keys: Self.keys(notify), apiV3Key: notify.apiv3_key,
                now: Self.signedAt.addingTimeInterval(offset))
        }
    }

    @Test func unknownSerialTamperedBodyAndWrongKeyAreRefused() throws {
        let notify = try Self.vectors().wechatpay_go_notify
        let headers = Self.headers(notify)
        let unknown = WeChatPay.V3.SignatureHeaders(
            timestamp: headers.timestamp, nonce: headers.nonce, signature: headers.signature, serial: "ABCDEF0123")
        let unknownError = #expect(throws: PaymentError.self) {
            try WeChatPay.V3.Notification.open(
                body: Array(notify.body.utf8), headers: unknown, keys: Self.keys(notify), apiV3Key: notify.apiv3_key, now: Self.signedAt)
        }
        #expect(unknownError?.code == .unknownKey)
        let tampered = Array(notify.body.replacingOccurrences(of: "签约成功", with: "签约失败").utf8)
        let tamperedError = #expect(throws: PaymentError.self) {
            try WeChatPay.V3.Notification.open(
                body: tampered, headers: headers, keys: Self.keys(notify), apiV3Key: notify.apiv3_key, now: Self.signedAt)
        }
        #expect(tamperedError?.code == .signatureMismatch)
        let otherNonce = WeChatPay.V3.SignatureHeaders(
            timestamp: headers.timestamp, nonce: "x", signature: headers.signature, serial: headers.serial)
        #expect(throws: PaymentError.self) {
            try WeChatPay.V3.Notification.open(
                body: Array(notify.body.utf8), headers: otherNonce, keys: Self.keys(notify), apiV3Key: notify.apiv3_key, now: Self.signedAt)
        }
        let wrongAPIKey = #expect(throws: PaymentError.self) {
            try WeChatPay.V3.Notification.open(
                body: Array(notify.body.utf8), headers: headers, keys: Self.keys(notify), apiV3Key: "00000000000000000000000000000000",
                now: Self.signedAt)
        }
        #expect(wrongAPIKey?.code == .decryptionFailure)
    }

    /// Public-key mode: the same key registered under a `PUB_KEY_ID_…` id verifies messages that name it.
    @Test func publicKeyMode() throws {
        let notify = try Self.vectors().wechatpay_go_notify
        let platformKey = try RSAPrivateKey(pemRepresentation: notify.platform_private_key_pkcs8_pem)
        let keys = WeChatPay.V3.PlatformKeys()
        keys.add(publicKey: platformKey.publicKey, id: "PUB_KEY_ID_0114232134912410000000000000")
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let timestamp = "1795000000"
        let nonce = "n0nce"
        let body = notify.body
        let signature = try platformKey.signature(for: "\(timestamp)\n\(nonce)\n\(body)\n", scheme: .insecurePKCS1v1_5SHA256)
        let headers = WeChatPay.V3.SignatureHeaders(
            timestamp: timestamp, nonce: nonce, signature: Base64.encode(signature), serial: "PUB_KEY_ID_0114232134912410000000000000",
            signatureType: "WECHATPAY2-SHA256-RSA2048")
        let opened = try WeChatPay.V3.Notification.open(
            body: Array(body.utf8), headers: headers, keys: keys, apiV3Key: notify.apiv3_key, now: now)
        #expect(String(decoding: opened.plaintext, as: UTF8.self) == notify.expected_plaintext)
        #expect(keys.serials == ["PUB_KEY_ID_0114232134912410000000000000"])
        let sm2 = WeChatPay.V3.SignatureHeaders(
            timestamp: timestamp, nonce: nonce, signature: headers.signature, serial: headers.serial,
            signatureType: "WECHATPAY2-SM2-WITH-SM3")
        #expect(throws: PaymentError.self) { try sm2.verify(body: Array(body.utf8), keys: keys, now: now) }
    }

    @Test func headersAreReadCaseInsensitively() throws {
        let notify = try Self.vectors().wechatpay_go_notify
        var headers = HTTPHeaders()
        for (name, value) in notify.headers { headers.add(name.lowercased(), value) }
        #expect(try WeChatPay.V3.SignatureHeaders(headers: headers) == Self.headers(notify))
        var missing = HTTPHeaders()
        missing.add("Wechatpay-Nonce", "x")
        let error = #expect(throws: PaymentError.self) { try WeChatPay.V3.SignatureHeaders(headers: missing) }
        #expect(error?.message.contains("Wechatpay-Timestamp") == true)
    }

    @Test func aeadVectors() throws {
        for vector in [try Self.vectors().wechatpay_go_aes, try Self.vectors().wechatpay_java_aead] {
            let resource = WeChatPay.V3.EncryptedResource(
                ciphertext: vector.ciphertext, associatedData: vector.associated_data, nonce: vector.nonce, originalType: nil)
            #expect(String(decoding: try resource.decrypt(apiV3Key: vector.apiv3_key), as: UTF8.self) == vector.plaintext)
            let wrongAAD = WeChatPay.V3.EncryptedResource(
                ciphertext: vector.ciphertext, associatedData: "other", nonce: vector.nonce, originalType: nil)
            #expect(throws: PaymentError.self) { try wrongAAD.decrypt(apiV3Key: vector.apiv3_key) }
        }
    }
}

@Suite struct V3SigningTests {
    struct SignFile: Decodable {
        struct Vector: Decodable {
            let private_key_pkcs1_pem: String?
            let message: String
            let signature: String
        }
        let docs_test_key_jsapi: Vector
        let docs_test_key_app_invoke_computed: Vector
    }

    static func merchant() throws -> WeChatPay.V3.Merchant {
        let file = try Fixture.decode(SignFile.self, "v3_sign.json")
        return try WeChatPay.V3.Merchant(
            mchID: "1230000109", certificateSerial: "1DDE55AD98ED71D6EDD4A4A16996DE7B47773A8C",
            privateKey: RSAPrivateKey(pemRepresentation: file.docs_test_key_jsapi.private_key_pkcs1_pem!),
            apiV3Key: "0123456789abcdef0123456789abcdef")
    }

    /// The documentation's JSAPI order request: the same message and signature.
    @Test func requestSignatureMatchesTheDocumentation() throws {
        let vector = try Fixture.decode(SignFile.self, "v3_sign.json").docs_test_key_jsapi
        let lines = vector.message.split(separator: "\n", omittingEmptySubsequences: false)
        let message = WeChatPay.V3.RequestSigner.message(
            method: String(lines[0]), canonicalURL: String(lines[1]), timestamp: Int(lines[2])!, nonce: String(lines[3]),
            body: String(lines[4]))
        #expect(message == vector.message)
        let authorization = try WeChatPay.V3.RequestSigner.authorization(
            method: String(lines[0]), canonicalURL: String(lines[1]), body: String(lines[4]), merchant: Self.merchant(),
            timestamp: Int(lines[2])!,
            nonce: String(lines[3]))
        #expect(
            authorization
                == "WECHATPAY2-SHA256-RSA2048 mchid=\"1230000109\",nonce_str=\"593BEC0C930BF1AFEB40B4A08C8FB242\",signature=\"\(vector.signature)\","
                + "timestamp=\"1554208460\",serial_no=\"1DDE55AD98ED71D6EDD4A4A16996DE7B47773A8C\"")
    }

    @Test func appInvokeSignature() throws {
        let vector = try Fixture.decode(SignFile.self, "v3_sign.json").docs_test_key_app_invoke_computed
        let parameters = try WeChatPay.V3.AppPayParameters(
            appID: "wx8888888888888888", prepayID: "WX1217752501201407033233368018", merchant: Self.merchant(),
            nonce: "5K8264ILTKCH16CQ2502SI8ZNMTM67VS", timestamp: Date(timeIntervalSince1970: 1_414_561_699))
        #expect(parameters.sign == vector.signature)
        #expect(parameters.partnerid == "1230000109")
    }

    @Test func jsapiInvokeSignatureVerifies() throws {
        let merchant = try Self.merchant()
        let parameters = try WeChatPay.V3.JSAPIParameters(
            appID: "wx8888888888888888", prepayID: "wx201410272009395522657a690389285100", merchant: merchant, nonce: "n",
            timestamp: Date(timeIntervalSince1970: 1_414_561_699))
        #expect(parameters.signType == "RSA")
        let message = Array("wx8888888888888888\n1414561699\nn\nprepay_id=wx201410272009395522657a690389285100\n".utf8)
        #expect(
            merchant.privateKey.publicKey.isValidSignature(
                try Base64.decode(parameters.paySign), for: message, scheme: .insecurePKCS1v1_5SHA256))
    }

    @Test func merchantNeverPrintsKeys() throws {
        let merchant = try Self.merchant()
        #expect(!"\(merchant)".contains("0123456789abcdef"))
        #expect(throws: CryptoError.self) {
            try WeChatPay.V3.Merchant(mchID: "1", certificateSerial: "1", privateKey: merchant.privateKey, apiV3Key: "short")
        }
        let v2 = WeChatPay.V2.Merchant(appID: "wx1", mchID: "1", apiKey: "192006250b4c09247ec02edce69f6a2d")
        #expect(!"\(v2)".contains("192006250b4c09247ec02edce69f6a2d"))
    }
}
