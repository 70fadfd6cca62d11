import Cashier
import Foundation
import Testing

@testable import WeChatPay

@Suite struct V2NotificationTests {
    static let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")

    /// A payment notification as WeChat sends it, signed with `key` and `type`.
    static func notification(
        totalFee: String = "5100",
        appID: String = "wxd930ea5d5a258f4f",
        mchID: String = "10000100",
        key: String = "192006250b4c09247ec02edce69f6a2d",
        type: WeChatPay.V2.SignType = .md5,
        declareSignType: Bool = false,
        extra: [(String, String)] = []
    ) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("appid", appID), ("bank_type", "CFT"), ("cash_fee", totalFee), ("fee_type", "CNY"), ("is_subscribe", "N"),
            ("mch_id", mchID), ("nonce_str", "5d2b6c2a8db53831f7eda20af46e531c"), ("openid", "oUpF8uMEb4qRXf22hE3X68TekukE"),
            ("out_trade_no", "C20261129112233K7Q2M9X4B1ZP"), ("result_code", "SUCCESS"), ("return_code", "SUCCESS"),
            ("time_end", "20261129112240"), ("total_fee", totalFee), ("trade_type", "APP"),
            ("transaction_id", "4200000001202611290000000001"),
        ]
        if declareSignType { fields.append(("sign_type", type.rawValue)) }
        fields += extra
        let sign = WeChatPay.V2.Signer(apiKey: key).signature(for: fields.map { (key: $0.0, value: $0.1) }, type: type)
        return fields + [("sign", sign)]
    }

    static func body(_ fields: [(String, String)]) -> [UInt8] {
        Array(WeChatPay.V2.XMLDocument(fields).xmlString.utf8)
    }

    @Test func genuineNotificationVerifies() throws {
        let notification = try WeChatPay.V2.PaymentNotification.verify(Self.body(Self.notification()), merchant: Self.merchant)
        #expect(notification.outTradeNo == "C20261129112233K7Q2M9X4B1ZP")
        #expect(notification.transactionID == "4200000001202611290000000001")
        #expect(notification.amount == Money(minorUnits: 5100, currency: .cny))
        #expect(notification.isSuccess)
        try notification.check(amount: Money(minorUnits: 5100, currency: .cny))
    }

    /// The signature covers each value as decoded (entity references, several CDATA sections),
    /// not as written: the parsed document keeps those values decoded beside the body's bytes.
    @Test func valuesThatNeedDecodingAreSignedAsDecoded() throws {
        let fields = Self.notification(extra: [("attach", "a&b <c> 中文]]>"), ("device_info", "")])
        let sign = try #require(fields.last?.1)
        var xml = "<xml>"
        for (name, value) in fields.dropLast() {
            switch name {
            case "attach": xml += "<attach>a&amp;b &lt;c&gt; &#x4E2D;<![CDATA[文]]]]><![CDATA[>]]></attach>"
            case "device_info": xml += "<device_info/>"
            default: xml += "<\(name)>\(value)</\(name)>"
            }
        }
        let body = Array((xml + "<sign>\(sign)</sign></xml>").utf8)
        let notification = try WeChatPay.V2.PaymentNotification.verify(body, merchant: Self.merchant)
        #expect(notification.document["attach"] == "a&b <c> 中文]]>")
        #expect(notification.document["device_info"] == "")

        // Signed over the text as written instead: refused.
        let written = Self.notification(extra: [("attach", "a&amp;b &lt;c&gt; &#x4E2D;<![CDATA[文]]]]><![CDATA[>]]>")])
        let wrong = try #require(written.last?.1)
        let forged = Array((xml + "<sign>\(wrong)</sign></xml>").utf8)
        let error = #expect(throws: PaymentError.self) { try WeChatPay.V2.PaymentNotification.verify(forged, merchant: Self.merchant) }
        #expect(error?.code == .signatureMismatch)
    }

    @Test func amountChangedAfterSigningIsRefused() throws {
        var fields = Self.notification()
        fields = fields.map { $0.0 == "total_fee" ? ("total_fee", "5101") : $0 }
        let error = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.PaymentNotification.verify(Self.body(fields), merchant: Self.merchant)
        }
        #expect(error?.code == .signatureMismatch)
    }

    @Test func amountDifferentFromTheOrderByOneFenIsRefused() throws {
        let notification = try WeChatPay.V2.PaymentNotification.verify(
            Self.body(Self.notification(totalFee: "5099")), merchant: Self.merchant)
        let error = #expect(throws: PaymentError.self) { try notification.check(amount: Money(minorUnits: 5100, currency: .cny)) }
        #expect(error?.code == .amountMismatch)
        let currency = #expect(throws: PaymentError.self) { try notification.check(amount: Money(minorUnits: 5099, currency: .hkd)) }
        #expect(currency?.code == .currencyMismatch)
    }

    @Test func wrongKeyAppIDOrMerchantIsRefused() throws {
        let wrongKey = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.PaymentNotification.verify(
                Self.body(Self.notification(key: "00000000000000000000000000000000")), merchant: Self.merchant)
        }
        #expect(wrongKey?.code == .signatureMismatch)
        let wrongApp = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.PaymentNotification.verify(Self.body(Self.notification(appID: "wx0000000000000000")), merchant: Self.merchant)
        }
        #expect(wrongApp?.code == .merchantMismatch)
        let wrongMerchant = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.PaymentNotification.verify(Self.body(Self.notification(mchID: "99999999")), merchant: Self.merchant)
        }
        #expect(wrongMerchant?.code == .merchantMismatch)
    }

    @Test func signTypeIsTheOrdersNotTheMessages() throws {
        // An HMAC merchant accepts an HMAC notification that omits sign_type…
        let hmacMerchant = WeChatPay.V2.Merchant(
            appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: Self.merchant.apiKey, signType: .hmacSHA256)
        _ = try WeChatPay.V2.PaymentNotification.verify(Self.body(Self.notification(type: .hmacSHA256)), merchant: hmacMerchant)
        // …and refuses one that declares MD5 instead, even though that MD5 signature is genuine.
        let downgraded = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.PaymentNotification.verify(
                Self.body(Self.notification(type: .md5, declareSignType: true)), merchant: hmacMerchant)
        }
        #expect(downgraded?.code == .signatureMismatch)
        // The caller can name the order's sign type explicitly.
        _ = try WeChatPay.V2.PaymentNotification.verify(
            Self.body(Self.notification(type: .hmacSHA256, declareSignType: true)), merchant: Self.merchant, signType: .hmacSHA256)
    }

    @Test func failuresAndMissingFields() throws {
        var fail = Self.notification().filter { $0.0 != "return_code" && $0.0 != "sign" }
        fail.append(("return_code", "FAIL"))
        let failed = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.PaymentNotification.verify(Self.body(fail), merchant: Self.merchant)
        }
        #expect(failed?.code == .providerRejected)
        let unsigned = Self.notification().filter { $0.0 != "sign" }
        let missing = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.PaymentNotification.verify(Self.body(unsigned), merchant: Self.merchant)
        }
        #expect(missing?.code == .signatureMismatch)
        let garbage = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.PaymentNotification.verify(Self.body(Self.notification(totalFee: "51.00")), merchant: Self.merchant)
        }
        #expect(garbage?.code == .malformedMessage)
        // A notification for a business failure verifies and says so.
        let businessFailure = Self.notification().map { $0.0 == "result_code" ? ("result_code", "FAIL") : $0 }
        let resigned = Self.resign(businessFailure)
        #expect(try WeChatPay.V2.PaymentNotification.verify(Self.body(resigned), merchant: Self.merchant).isSuccess == false)
    }

    static func resign(_ fields: [(String, String)]) -> [(String, String)] {
        let unsigned = fields.filter { $0.0 != "sign" }
        return unsigned + [("sign", merchant.signer.signature(for: unsigned.map { (key: $0.0, value: $0.1) }, type: .md5))]
    }

    @Test func repliesAreExact() {
        #expect(
            WeChatPay.V2.NotificationReply.success.xmlString
                == "<xml><return_code><![CDATA[SUCCESS]]></return_code><return_msg><![CDATA[OK]]></return_msg></xml>")
        #expect(
            WeChatPay.V2.NotificationReply.failure("签名失败").xmlString
                == "<xml><return_code><![CDATA[FAIL]]></return_code><return_msg><![CDATA[签名失败]]></return_msg></xml>")
    }

    @Test func jsapiParameters() throws {
        let parameters = WeChatPay.V2.JSAPIParameters(
            prepayID: "wx201410272009395522657a690389285100", merchant: Self.merchant, nonce: "5K8264ILTKCH16CQ2502SI8ZNMTM67VS",
            timestamp: Date(timeIntervalSince1970: 1_414_561_699))
        #expect(parameters.package == "prepay_id=wx201410272009395522657a690389285100")
        #expect(parameters.signType == "MD5")
        let expected = Self.merchant.signer.signature(
            for: [
                "appId": "wxd930ea5d5a258f4f", "timeStamp": "1414561699", "nonceStr": "5K8264ILTKCH16CQ2502SI8ZNMTM67VS",
                "package": "prepay_id=wx201410272009395522657a690389285100", "signType": "MD5",
            ], type: .md5)
        #expect(parameters.paySign == expected)
        let json = String(decoding: try JSONEncoder().encode(parameters), as: UTF8.self)
        #expect(json.contains(#""paySign""#) && json.contains(#""timeStamp":"1414561699""#))
    }
}

@Suite struct V2RefundNotificationTests {
    struct Vector: Decodable {
        let api_key: String
        let req_info: String
        let plaintext_xml: String
    }

    static func outer(reqInfo: String) -> [UInt8] {
        Array(
            WeChatPay.V2.XMLDocument([
                ("return_code", "SUCCESS"), ("appid", "wx2421b1c4370ec43b"), ("mch_id", "10000100"),
                ("nonce_str", "TeqClE3i0mvn3DrK"), ("req_info", reqInfo),
            ]).xmlString.utf8)
    }

    @Test func realRefundNotificationDecrypts() throws {
        let vector = try Fixture.decode(Vector.self, "v2_refund_notify.json")
        let merchant = WeChatPay.V2.Merchant(appID: "wx2421b1c4370ec43b", mchID: "10000100", apiKey: vector.api_key)
        let refund = try WeChatPay.V2.RefundNotification.verify(Self.outer(reqInfo: vector.req_info), merchant: merchant)
        #expect(refund.outTradeNo == "4893e76d8c8b434cb64e9cd536338e33")
        #expect(refund.outRefundNo == "50fd012ed1b311e7af7800163e32c503")
        #expect(refund.refundStatus == "SUCCESS")
        #expect(refund.refundAmount == Money(minorUnits: 6, currency: .cny))
        #expect(refund.totalAmount == Money(minorUnits: 6, currency: .cny))
        #expect(refund.document.root == "root")
        #expect(try WeChatPay.V2.XMLDocument(parsing: vector.plaintext_xml) == refund.document)
    }

    @Test func wrongKeyOrMerchantIsRefused() throws {
        let vector = try Fixture.decode(Vector.self, "v2_refund_notify.json")
        let wrongKey = WeChatPay.V2.Merchant(appID: "wx2421b1c4370ec43b", mchID: "10000100", apiKey: "ziR0QKsTUfMOuochC9RfCdmfHECorQAX")
        let error = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.RefundNotification.verify(Self.outer(reqInfo: vector.req_info), merchant: wrongKey)
        }
        #expect(error?.code == .decryptionFailure)
        let otherMerchant = WeChatPay.V2.Merchant(appID: "wx2421b1c4370ec43b", mchID: "10000999", apiKey: vector.api_key)
        let mismatch = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.RefundNotification.verify(Self.outer(reqInfo: vector.req_info), merchant: otherMerchant)
        }
        #expect(mismatch?.code == .merchantMismatch)
        #expect(throws: PaymentError.self) { try WeChatPay.V2.RefundNotification.decrypt(reqInfo: "not base64!", apiKey: vector.api_key) }
    }
}
