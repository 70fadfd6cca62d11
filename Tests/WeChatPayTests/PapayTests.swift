import Cashier
import Foundation
import Testing

@testable import WeChatPay

/// Withholding (委托代扣): the signed signing addresses against sign strings computed
/// independently (Python's hashlib/hmac over the documented `stringA&key=…`), the contract
/// notification verified and refused (tampered, wrong key, wrong merchant, undeclared sign
/// type), and the query answer read.
@Suite struct PapayTests {
    static let key = "192006250b4c09247ec02edce69f6a2d"
    static let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: key)
    static let request = WeChatPay.V2.EntrustRequest(
        planID: "12535", contractCode: "AG20261207A1", requestSerial: 1_765_100_000_000, displayAccount: "会员 Alice",
        notifyURL: "https://shop.example/notify/wechat/v2/contract")
    static let timestamp = Date(timeIntervalSince1970: 1_765_100_000)
    static let client = WeChatPay.V2.Client(merchant: merchant, baseURL: URL(string: "https://api.mch.weixin.qq.com/")!)

    static func query(_ url: URL) -> [String: String] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    /// `Vectors/v2_papay.json`: sign strings and signatures computed independently of Cashier.
    struct Vectors: Decodable {
        struct Signing: Decodable {
            let name: String
            let endpoint: String
            let sign_type: String
            let extra: [String: String]
            let string_a: String
            let sign: String
        }
        struct Notification: Decodable {
            let fields: [String: String]
            let string_a: String
            let md5_sign: String
        }
        let key: String
        let request: [String: String]
        let signing: [Signing]
        let contract_notification: Notification
    }

    static func vectors() throws -> Vectors { try Fixture.decode(Vectors.self, "v2_papay.json") }

    /// Each signing address against its vector: the parameters WeChat Pay documents (and no
    /// `sign_type`), the sign string, and the signature — MD5 for `entrustweb` and HMAC-SHA256
    /// for `h5entrustweb`, whatever the merchant's own sign type.
    @Test func signingAddressesMatchTheirVectors() throws {
        let vectors = try Self.vectors()
        #expect(vectors.key == Self.key)
        #expect(vectors.request["request_serial"] == String(Self.request.requestSerial))
        #expect(vectors.request["timestamp"] == String(Int(Self.timestamp.timeIntervalSince1970)))
        let hmacMerchant = WeChatPay.V2.Merchant(
            appID: Self.merchant.appID, mchID: Self.merchant.mchID, apiKey: Self.key, signType: .hmacSHA256)
        for client in [Self.client, WeChatPay.V2.Client(merchant: hmacMerchant, baseURL: WeChatPay.V2.Client.productionURL)] {
            for vector in vectors.signing {
                let url =
                    vector.endpoint == "papay/entrustweb"
                    ? client.entrustWebURL(Self.request, timestamp: Self.timestamp)
                    : client.h5EntrustWebURL(Self.request, clientIP: vector.extra["clientip"] ?? "", timestamp: Self.timestamp)
                #expect(url.path == "/" + vector.endpoint, "\(vector.name)")
                let query = Self.query(url)
                #expect(query["sign_type"] == nil, "\(vector.name)")
                let unsigned = query.filter { $0.key != "sign" }
                #expect(
                    WeChatPay.V2.Signer.canonicalString(unsigned.map { (key: $0.key, value: $0.value) }) == vector.string_a,
                    "\(vector.name)")
                #expect(query["sign"] == vector.sign, "\(vector.name) (\(vector.sign_type))")
            }
        }
    }

    /// Values are percent-encoded in the address (the notify URL's `/` and `:`, the space, the
    /// Chinese), and the order is WeChat's: appid and mch_id first.
    @Test func theAddressPercentEncodesItsValues() {
        let url = Self.client.entrustWebURL(Self.request, timestamp: Self.timestamp)
        #expect(url.absoluteString.hasPrefix("https://api.mch.weixin.qq.com/papay/entrustweb?appid=wxd930ea5d5a258f4f&mch_id=10000100&"))
        #expect(url.absoluteString.contains("notify_url=https%3A%2F%2Fshop.example%2Fnotify%2Fwechat%2Fv2%2Fcontract"))
        #expect(url.absoluteString.contains("contract_display_account=%E4%BC%9A%E5%91%98%20Alice"))
    }

    // MARK: The contract notification

    static func notification(
        change: String = "ADD", mchID: String = "10000100", key: String = key, type: WeChatPay.V2.SignType = .md5,
        declare: Bool = false, extra: [(String, String)] = []
    ) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("return_code", "SUCCESS"), ("return_msg", "OK"), ("result_code", "SUCCESS"), ("mch_id", mchID),
            ("contract_code", "AG20261207A1"), ("openid", "oUpF8uMEb4qRXf22hE3X68TekukE"), ("plan_id", "12535"), ("change_type", change),
            ("operate_time", "2026-12-07 20:00:00"), ("contract_id", "201612070000000001"),
            ("contract_expired_time", "2029-12-07 20:00:00"), ("request_serial", "1765100000000"),
        ]
        if declare { fields.append(("sign_type", type.rawValue)) }
        fields += extra
        let sign = WeChatPay.V2.Signer(apiKey: key).signature(for: fields.map { (key: $0.0, value: $0.1) }, type: type)
        return fields + [("sign", sign)]
    }

    static func body(_ fields: [(String, String)]) -> [UInt8] { Array(WeChatPay.V2.XMLDocument(fields).xmlString.utf8) }

    @Test func aGenuineSigningNotificationVerifies() throws {
        let fields = Self.notification()
        let vector = try Self.vectors().contract_notification
        #expect(Dictionary(uniqueKeysWithValues: fields.dropLast()) == vector.fields)
        #expect(WeChatPay.V2.Signer.canonicalString(fields.map { (key: $0.0, value: $0.1) }) == vector.string_a)
        #expect(fields.last?.1 == vector.md5_sign)
        let body = Self.body(fields)
        #expect(WeChatPay.V2.ContractNotification.isContractNotification(body))
        let contract = try WeChatPay.V2.ContractNotification.verify(body, merchant: Self.merchant)
        #expect(contract.changeType == .add)
        #expect(contract.contractID == "201612070000000001")
        #expect(contract.contractCode == "AG20261207A1")
        #expect(contract.planID == "12535")
        #expect(contract.openID == "oUpF8uMEb4qRXf22hE3X68TekukE")
        #expect(contract.operateTime == "2026-12-07 20:00:00")
        #expect(contract.expiresAt == Date(timeIntervalSince1970: 1_891_339_200))  // 2029-12-07 12:00 UTC
        #expect(contract.terminationMode == nil)
        #expect(contract.requestSerial == "1765100000000")
    }

    @Test func anUnsigningNotificationSaysHow() throws {
        let body = Self.body(Self.notification(change: "DELETE", extra: [("contract_termination_mode", "2")]))
        let contract = try WeChatPay.V2.ContractNotification.verify(body, merchant: Self.merchant)
        #expect(contract.changeType == .delete)
        #expect(contract.terminationMode == .user)
    }

    @Test func anHMACNotificationDeclaresItsSignType() throws {
        let body = Self.body(Self.notification(type: .hmacSHA256, declare: true))
        #expect(try WeChatPay.V2.ContractNotification.verify(body, merchant: Self.merchant).changeType == .add)
        // Undeclared, an HMAC signature is read as MD5 and fails; a merchant accepting only HMAC refuses MD5.
        let undeclared = Self.body(Self.notification(type: .hmacSHA256))
        #expect(throws: PaymentError.self) { try WeChatPay.V2.ContractNotification.verify(undeclared, merchant: Self.merchant) }
        let md5 = Self.body(Self.notification())
        let error = #expect(throws: PaymentError.self) {
            try WeChatPay.V2.ContractNotification.verify(md5, merchant: Self.merchant, accepting: [.hmacSHA256])
        }
        #expect(error?.code == .signatureMismatch)
    }

    @Test func tamperedWrongKeyAndWrongMerchantAreRefused() throws {
        var tampered = Self.notification()
        tampered[7] = ("change_type", "DELETE")
        let cases: [([UInt8], PaymentError.Code)] = [
            (Self.body(tampered), .signatureMismatch),
            (Self.body(Self.notification(key: "00000000000000000000000000000000")), .signatureMismatch),
            (Self.body(Self.notification(mchID: "10000999")), .merchantMismatch),
            (Self.body(Self.notification(extra: [("appid", "wx0000000000000000")])), .merchantMismatch),
            (Self.body(Self.notification(change: "MODIFY")), .malformedMessage),
            (Array("<xml><return_code>FAIL</return_code></xml>".utf8), .providerRejected),
            (Array("<xml><return_code>SUCCESS</return_code><change_type>ADD</change_type></xml>".utf8), .signatureMismatch),
        ]
        for (body, code) in cases {
            let error = #expect(throws: PaymentError.self) { try WeChatPay.V2.ContractNotification.verify(body, merchant: Self.merchant) }
            #expect(error?.code == code)
        }
    }

    /// A deduction's result is an ordinary payment notification of trade type PAP.
    @Test func aDeductionResultIsAnOrdinaryPaymentNotification() throws {
        let fields = V2NotificationTests.notification(extra: [("contract_id", "201612070000000001")]).map {
            $0.0 == "trade_type" ? ("trade_type", "PAP") : $0
        }
        var resigned = Array(fields.dropLast())
        resigned.append(
            ("sign", WeChatPay.V2.Signer(apiKey: Self.key).signature(for: resigned.map { (key: $0.0, value: $0.1) }, type: .md5)))
        let notification = try WeChatPay.V2.PaymentNotification.verify(V2NotificationTests.body(resigned), merchant: Self.merchant)
        #expect(notification.isSuccess)
        #expect(notification.document["trade_type"] == "PAP")
    }

    @Test func aQueryAnswerReadsAsAContract() throws {
        let document = WeChatPay.V2.XMLDocument([
            ("contract_id", "201612070000000001"), ("plan_id", "12535"), ("contract_code", "AG20261207A1"), ("contract_state", "1"),
            ("contract_signed_time", "2026-12-07 20:00:00"), ("contract_expired_time", "2029-12-07 20:00:00"),
            ("contract_terminated_time", "2026-12-08 09:30:00"), ("contract_termination_mode", "3"),
            ("contract_termination_remark", "membership cancelled"), ("openid", "oUpF8uMEb4qRXf22hE3X68TekukE"),
        ])
        let contract = try WeChatPay.V2.Contract(document)
        #expect(contract.state == .terminated)
        #expect(contract.terminationMode == .merchantAPI)
        #expect(contract.terminationRemark == "membership cancelled")
        #expect(contract.signedAt == Date(timeIntervalSince1970: 1_796_644_800))  // 2026-12-07 12:00 UTC
        #expect(WeChatPay.V2.ContractKey.id("201612070000000001").isNamed(by: document))
        #expect(!WeChatPay.V2.ContractKey.code(planID: "12535", contractCode: "AG2").isNamed(by: document))
        let stateless = WeChatPay.V2.XMLDocument([("contract_id", "1"), ("plan_id", "1"), ("contract_code", "1"), ("contract_state", "9")])
        #expect(throws: PaymentError.self) { try WeChatPay.V2.Contract(stateless) }
    }
}
