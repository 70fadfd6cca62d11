import Alipay
import Cashier
import CashierCrypto
import Foundation
import TestSupport
import Testing

/// Agreements (周期扣款): the schedule's rules, the sign request as a page address and as the app's
/// sign string (signed as Alipay checks requests), `alipay.trade.pay` under an agreement read as
/// paid / waiting / declined / unknown, and `dut_user_sign` / `dut_user_unsign` notifications
/// (known-answer vectors; tampered, another key, another app, another notification).
@Suite struct AgreementTests {
    static let appKey = TestKeys.rsa(0)
    static let alipayKey = TestKeys.rsa(1)
    static let appID = "2021000000000041"
    static let single = Money(minorUnits: 3000, currency: .cny)

    static func rule(_ type: Alipay.PeriodRule.PeriodType, _ period: Int, _ date: String) -> Alipay.PeriodRule {
        Alipay.PeriodRule(periodType: type, period: period, executeTime: date, singleAmount: single)
    }

    @Test(arguments: [
        (Alipay.PeriodRule.PeriodType.day, 7, "2026-12-31", true), (.day, 6, "2026-12-10", false), (.day, 30, "2026-12-31", true),
        (.month, 1, "2026-12-28", true), (.month, 1, "2026-12-29", false), (.month, 12, "2027-01-01", true),
        (.month, 0, "2026-12-01", false), (.day, 7, "2026-13-01", false), (.day, 7, "2026/12/01", false),
    ])
    func periodRules(type: Alipay.PeriodRule.PeriodType, period: Int, date: String, valid: Bool) throws {
        let rule = Self.rule(type, period, date)
        if valid {
            try rule.validate()
            #expect(try Alipay.PeriodRule(biz: rule.biz) == rule)
        } else {
            let error = #expect(throws: PaymentError.self) { try rule.validate() }
            #expect(error?.code == .invalidRequest)
        }
    }

    @Test func limitsAndProductsAreChecked() throws {
        var rule = Self.rule(.month, 1, "2026-12-15")
        rule.totalAmount = Money(minorUnits: 2000, currency: .cny)
        #expect(throws: PaymentError.self) { try rule.validate() }
        rule.totalAmount = nil
        rule.singleAmount = Money(minorUnits: 3000, currency: .usd)
        #expect(throws: PaymentError.self) { try rule.validate() }
        let withoutRule = Alipay.AgreementSign(externalAgreementNo: "A1", product: .cyclePay, signScene: "INDUSTRY|DIGITAL_MEDIA")
        #expect(throws: PaymentError.self) { try withoutRule.biz() }
        let withholdingWithRule = Alipay.AgreementSign(
            externalAgreementNo: "A1", product: .generalWithholding, signScene: "INDUSTRY|DIGITAL_MEDIA",
            periodRule: Self.rule(.day, 7, "2026-12-15"))
        #expect(throws: PaymentError.self) { try withholdingWithRule.biz() }
        let badChannel = Alipay.AgreementSign(
            externalAgreementNo: "A1", product: .generalWithholding, signScene: "INDUSTRY|DIGITAL_MEDIA", channel: "SMS")
        #expect(throws: PaymentError.self) { try badChannel.biz() }
        #expect(Alipay.AgreementProduct(personalProductCode: "CYCLE_PAY_AUTH_P") == .cyclePay)
        #expect(Alipay.AgreementProduct(productCode: "GENERAL_WITHHOLDING") == .generalWithholding)
        #expect(Alipay.AgreementProduct(productCode: "FACE_TO_FACE_PAYMENT") == nil)
    }

    /// The page address and the app's sign string carry the request, signed as Alipay verifies
    /// requests (every parameter but `sign`, `sign_type` kept).
    @Test func signAddressAndSignStringAreSignedRequests() throws {
        let client = Alipay.Client(
            appID: Self.appID, signer: Alipay.Signer(privateKey: Self.appKey), alipayPublicKey: Self.alipayKey.publicKey,
            gateway: URL(string: "https://openapi.example/gateway.do")!)
        let sign = Alipay.AgreementSign(
            externalAgreementNo: "AGR1", product: .cyclePay, signScene: "INDUSTRY|DIGITAL_MEDIA",
            periodRule: Self.rule(.month, 1, "2026-12-15"))
        let url = try client.agreementSignURL(
            sign, notifyURL: "https://merchant.example/notify", returnURL: "https://merchant.example/back")
        #expect(url.absoluteString.hasPrefix("https://openapi.example/gateway.do?"))
        let fromURL = try Alipay.FormBody.parse(Array((url.query(percentEncoded: true) ?? "").utf8))
        let fromString = try Alipay.FormBody.parse(
            Array(try client.agreementSignString(sign, notifyURL: "https://merchant.example/notify").utf8))
        for parameters in [fromURL, fromString] {
            #expect(parameters["method"] == "alipay.user.agreement.page.sign" && parameters["app_id"] == Self.appID)
            #expect(parameters["notify_url"] == "https://merchant.example/notify")
            let valid = Alipay.Signer.isValidSignature(
                parameters["sign"] ?? "", content: Alipay.Signer.content(parameters), publicKey: Self.appKey.publicKey, type: .rsa2)
            #expect(valid)
            let biz = try #require(try JSONSerialization.jsonObject(with: Data((parameters["biz_content"] ?? "").utf8)) as? [String: Any])
            #expect(biz["personal_product_code"] as? String == "CYCLE_PAY_AUTH_P" && biz["product_code"] as? String == "CYCLE_PAY_AUTH")
            #expect(
                biz["external_agreement_no"] as? String == "AGR1" && (biz["access_params"] as? [String: String])?["channel"] == "ALIPAYAPP")
            let rule = try Alipay.PeriodRule(biz: try #require(biz["period_rule_params"] as? [String: Any]))
            #expect(rule == Self.rule(.month, 1, "2026-12-15"))
        }
        #expect(fromURL["return_url"] == "https://merchant.example/back" && fromString["return_url"] == nil)
    }

    /// Answers whatever node it is given, signed with Alipay's key, under the request's method's node name.
    struct Gateway: HTTPTransport {
        let node: String

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let method = try Alipay.FormBody.parse(Array(request.body))["method"] ?? ""
            let signature = try AgreementTests.alipayKey.signature(for: node, scheme: Alipay.SignType.rsa2.scheme)
            let name = method.replacingOccurrences(of: ".", with: "_") + "_response"
            return HTTPResponse(status: 200, body: Data(#"{"\#(name)":\#(node),"sign":"\#(Base64.encode(signature))"}"#.utf8))
        }
    }

    static func client(answering node: String) -> Alipay.Client {
        Alipay.Client(
            appID: appID, signer: Alipay.Signer(privateKey: appKey), alipayPublicKey: alipayKey.publicKey, transport: Gateway(node: node))
    }

    static func charge(_ node: String) async throws -> Alipay.AgreementCharge {
        try await client(answering: node).agreementPay(
            outTradeNo: "T1", total: Money(minorUnits: 990, currency: .cny), subject: "Monthly", agreementNo: "20265207000000000001")
    }

    @Test func chargesReadAsPaidWaitingOrDeclined() async throws {
        let paid = try await Self.charge(#"{"code":"10000","msg":"Success","out_trade_no":"T1","trade_no":"2026T1","total_amount":"9.90"}"#)
        #expect(paid == .paid(amount: Money(minorUnits: 990, currency: .cny), tradeNo: "2026T1"))
        #expect(
            try await Self.charge(#"{"code":"10003","msg":"wait","out_trade_no":"T1","trade_no":"2026T1"}"#) == .waiting(tradeNo: "2026T1"))
        let cases: [(String, Alipay.AgreementDecline.Reason, Bool)] = [
            ("ACQ.CYCLE_PAY_DATE_NOT_MATCH", .outOfPeriod, true), ("ACQ.BUYER_BALANCE_NOT_ENOUGH", .insufficientBalance, true),
            ("ACQ.AGREEMENT_NOT_EXIST", .agreementEnded, false), ("ACQ.AGREEMENT_STATUS_NOT_NORMAL", .agreementEnded, false),
            ("ACQ.CYCLE_PAY_SINGLE_FEE_EXCEED", .overLimit, false), ("ACQ.PAYMENT_FAIL", .other, true),
        ]
        for (subCode, reason, retryable) in cases {
            let answer = try await Self.charge(#"{"code":"40004","msg":"Business Failed","sub_code":"\#(subCode)","sub_msg":"x"}"#)
            guard case .declined(let decline) = answer else {
                Issue.record("\(subCode) was not a decline: \(answer)")
                continue
            }
            #expect(decline.subCode == subCode && decline.reason == reason && decline.isRetryable == retryable && decline.subMessage == "x")
        }
        // Unknown outcomes and a trade paid before are thrown, for the caller to query.
        for node in [
            #"{"code":"20000","msg":"Service Currently Unavailable","sub_code":"isp.unknow-error"}"#,
            #"{"code":"40004","msg":"Business Failed","sub_code":"ACQ.SYSTEM_ERROR"}"#,
            #"{"code":"40004","msg":"Business Failed","sub_code":"ACQ.TRADE_HAS_SUCCESS"}"#,
        ] {
            let error = await #expect(throws: PaymentError.self) { try await Self.charge(node) }
            #expect(error?.code == .providerRejected)
        }
        // Paid, but about another trade: not this charge's.
        let other = await #expect(throws: PaymentError.self) {
            try await Self.charge(#"{"code":"10000","msg":"Success","out_trade_no":"T2","trade_no":"2026T2","total_amount":"9.90"}"#)
        }
        #expect(other?.code == .malformedMessage)
    }

    @Test func queriesReadTheAgreementOrNone() async throws {
        let node =
            #"{"code":"10000","msg":"Success","agreement_no":"20265207000000000001","external_agreement_no":"AGR1","status":"NORMAL","principal_id":"2088102000000000","sign_time":"2026-12-07 10:00:00","next_deduct_time":"2026-12-15","single_quota":"30.00"}"#
        let agreement = try #require(try await Self.client(answering: node).agreementQuery(agreementNo: "20265207000000000001"))
        #expect(agreement.status == .normal && agreement.alipayUserID == "2088102000000000" && agreement.nextDeductTime == "2026-12-15")
        #expect(agreement.singleQuota == Self.single && agreement.externalAgreementNo == "AGR1")
        let none = #"{"code":"40004","msg":"Business Failed","sub_code":"USER_AGREEMENT_NOT_EXIST","sub_msg":"用户协议不存在"}"#
        #expect(try await Self.client(answering: none).agreementQuery(agreementNo: "20265207000000000001") == nil)
        let another = await #expect(throws: PaymentError.self) {
            try await Self.client(answering: node).agreementQuery(agreementNo: "20265207000000000002")
        }
        #expect(another?.code == .malformedMessage)
        #expect(Alipay.Agreement.Status(rawValue: "TEMP") == .temporary && Alipay.Agreement.Status(rawValue: "STOP") == .stopped)
    }

    struct Vectors: Decodable {
        struct Case: Decodable {
            let name: String
            let body: String
            let kind: String?
            let agreement_no: String?
            let external_agreement_no: String?
            let status: String?
            let alipay_user_id: String?
            let notify_id: String?
        }
        let app_id: String
        let cases: [Case]
    }

    static func vectors() throws -> Vectors {
        let url = try #require(Bundle.module.url(forResource: "agreement_notifications.json", withExtension: nil, subdirectory: "Vectors"))
        return try JSONDecoder().decode(Vectors.self, from: Data(contentsOf: url))
    }

    @Test func knownAnswerNotifications() throws {
        let vectors = try Self.vectors()
        for vector in vectors.cases {
            let read = try Alipay.AgreementNotification.verify(
                Array(vector.body.utf8), publicKey: Self.alipayKey.publicKey, appID: vectors.app_id)
            guard let kind = vector.kind else {
                #expect(read == nil, "\(vector.name) is not an agreement notification")
                continue
            }
            let notification = try #require(read, "\(vector.name)")
            #expect(notification.kind.rawValue == kind && notification.agreementNo == vector.agreement_no)
            #expect(notification.externalAgreementNo == vector.external_agreement_no && notification.status.rawValue == vector.status)
            #expect(notification.alipayUserID == vector.alipay_user_id && notification.notifyID == vector.notify_id)
            #expect(notification.appID == vectors.app_id && notification.personalProductCode == "CYCLE_PAY_AUTH_P")
        }
    }

    @Test func forgedNotificationsAreRefused() throws {
        let vectors = try Self.vectors()
        let body = vectors.cases[0].body
        let key = Self.alipayKey.publicKey
        // A field changed after signing.
        let tampered = Array(body.replacingOccurrences(of: "AGR2026120701", with: "AGR2026120702").utf8)
        #expect(throws: PaymentError.self) { try Alipay.AgreementNotification.verify(tampered, publicKey: key) }
        let status = Array(body.replacingOccurrences(of: "status=NORMAL", with: "status=STOP").utf8)
        let statusError = #expect(throws: PaymentError.self) { try Alipay.AgreementNotification.verify(status, publicKey: key) }
        #expect(statusError?.code == .signatureMismatch)
        // Another key; another app.
        let wrongKey = #expect(throws: PaymentError.self) {
            try Alipay.AgreementNotification.verify(Array(body.utf8), publicKey: TestKeys.rsa(2).publicKey)
        }
        #expect(wrongKey?.code == .signatureMismatch)
        let wrongApp = #expect(throws: PaymentError.self) {
            try Alipay.AgreementNotification.verify(Array(body.utf8), publicKey: key, appID: "2021000000000099")
        }
        #expect(wrongApp?.code == .merchantMismatch)
        // Unsigned.
        let unsigned = Array(body.components(separatedBy: "&").filter { !$0.hasPrefix("sign=") }.joined(separator: "&").utf8)
        #expect(throws: PaymentError.self) { try Alipay.AgreementNotification.verify(unsigned, publicKey: key) }
    }
}
