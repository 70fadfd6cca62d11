import Alipay
import Cashier
import CashierCrypto
import Foundation
import TestSupport
import Testing

/// `alipay.trade.order.settle.notify` (message service, to the application gateway): signed over
/// every parameter but `sign`, `sign_type` kept — the research's reading, unverified against a live
/// gateway. Good, tampered, wrong key, wrong app, and signed by the trade-notification rule.
@Suite struct SettleNotificationTests {
    static let alipayKey = TestKeys.rsa(1)
    static let biz =
        #"{"out_request_no":"S1","royalty_detail_list":[{"amount":"10.00","detail_id":"D1","operation_type":"transfer","state":"SUCCESS","trans_in":"2088000000000101","trans_in_type":"userId"},{"amount":"5.00","error_code":"TXN_RESULT_ACCOUNT_STATUS_NOT_VALID","operation_type":"transfer","state":"FAIL","trans_in":"2088000000000102","trans_in_type":"userId"}],"settle_no":"2026SETTLE1","trade_no":"T1"}"#

    static func fields(biz: String = biz) -> [String: String] {
        [
            "msg_method": "alipay.trade.order.settle.notify", "notify_id": "N1", "utc_timestamp": "1765108800000",
            "app_id": "2021000000000001", "version": "1.1", "charset": "utf-8", "biz_content": biz, "sign_type": "RSA2",
        ]
    }

    /// Signed over `content` (by default all but `sign`, `sign_type` kept).
    static func signed(_ fields: [String: String], key: RSAPrivateKey = alipayKey, excluding: Set<String> = ["sign"]) throws -> [UInt8] {
        var fields = fields
        fields["sign"] = Base64.encode(
            try key.signature(for: Alipay.Signer.content(fields, excluding: excluding), scheme: Alipay.SignType.rsa2.scheme))
        return Array(Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
    }

    @Test func aSignedNotificationVerifiesAndReads() throws {
        let notification = try Alipay.SettleNotification.verify(
            try Self.signed(Self.fields()), publicKey: Self.alipayKey.publicKey, appID: "2021000000000001")
        #expect(notification.notifyID == "N1" && notification.appID == "2021000000000001")
        #expect(notification.settle.outRequestNo == "S1" && notification.settle.settleNo == "2026SETTLE1" && notification.settle.isFinal)
        #expect(notification.settle.details.map(\.state) == ["SUCCESS", "FAIL"])
        #expect(
            notification.settle.details.map(\.amount) == [Money(minorUnits: 1000, currency: .cny), Money(minorUnits: 500, currency: .cny)])
    }

    @Test func refusals() throws {
        let key = Self.alipayKey.publicKey
        // biz_content changed after signing.
        var tampered = Self.fields()
        let good = try Self.signed(tampered)
        tampered["biz_content"] = Self.biz.replacingOccurrences(of: "10.00", with: "20.00")
        var fields = try Alipay.FormBody.parse(good)
        fields["biz_content"] = tampered["biz_content"]
        let changed = Array(Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
        #expect(throws: PaymentError.self) { try Alipay.SettleNotification.verify(changed, publicKey: key) }
        // Another key; another app.
        let forged = #expect(throws: PaymentError.self) {
            try Alipay.SettleNotification.verify(try Self.signed(Self.fields(), key: TestKeys.rsa(2)), publicKey: key)
        }
        #expect(forged?.code == .signatureMismatch)
        let app = #expect(throws: PaymentError.self) {
            try Alipay.SettleNotification.verify(good, publicKey: key, appID: "2021000000000002")
        }
        #expect(app?.code == .merchantMismatch)
        // Signed without sign_type (the trade-notification rule): not this message's rule.
        let withoutSignType = #expect(throws: PaymentError.self) {
            try Alipay.SettleNotification.verify(try Self.signed(Self.fields(), excluding: ["sign", "sign_type"]), publicKey: key)
        }
        #expect(withoutSignType?.code == .signatureMismatch)
        // Another message, well signed: not a settle result.
        var other = Self.fields()
        other["msg_method"] = "alipay.fund.trans.order.changed"
        let method = #expect(throws: PaymentError.self) { try Alipay.SettleNotification.verify(try Self.signed(other), publicKey: key) }
        #expect(method?.code == .malformedMessage)
        // Unsigned.
        let unsigned = Array(Alipay.FormBody.encode(Self.fields().sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
        #expect(throws: PaymentError.self) { try Alipay.SettleNotification.verify(unsigned, publicKey: key) }
    }
}
