import Cashier
import CashierCrypto
import CashierCurl
import CashierHTTP
import CashierSandboxMode
import Foundation
import Testing
import WeChatPay

@testable import CashierServer

/// WeChat Pay API v2's and Alipay's notifications verify with keys the server holds, so they are
/// verified on the thread that reads them (no task, nothing awaited): a genuine one comes back
/// verified, a tampered one refused — never "cannot tell here" (`nil`), which would send every
/// notification the slow way.
@Suite struct HeldKeyVerifyingTests {
    @Test func wechatV2AndAlipayNotificationsAreVerifiedWhereTheyAreRead() async throws {
        let mode = try await SandboxMode.start(timeScale: 0.001)
        let adapters = AdapterFactory.adapters(
            mode.configuration, breaker: ProviderBreaker(threshold: 5, cooldown: 30), listening: ListeningPort(), clock: SystemClock(),
            shared: CurlTransport())
        let merchant = mode.wechatMerchant
        var fields: [(String, String)] = [
            ("appid", merchant.appID), ("mch_id", merchant.mchID), ("nonce_str", SecureRandom.alphanumeric(count: 16)),
            ("result_code", "SUCCESS"), ("return_code", "SUCCESS"), ("out_trade_no", "C20261204A1"), ("transaction_id", "4200000078"),
            ("total_fee", "5100"), ("fee_type", "CNY"), ("trade_type", "APP"), ("openid", "o1"), ("time_end", "20261204120000"),
        ]
        fields.append(("sign", merchant.signer.signature(for: fields, type: .md5)))
        func posted(_ body: String) -> InboundMessage {
            InboundMessage(headers: [:], body: Array(body.utf8))
        }
        let genuine = WeChatPay.V2.XMLDocument(fields).xmlString
        let tampered = genuine.replacingOccurrences(of: "<total_fee><![CDATA[5100]]>", with: "<total_fee><![CDATA[1]]>")
        let wechat = try #require(try adapters.adapter(for: .wechatV2) as? any NotificationSource)
        let alipay = try #require(try adapters.adapter(for: .alipay) as? any NotificationSource)
        let verified = wechat.verifyNow(posted(genuine))
        let refused = wechat.verifyNow(posted(tampered))
        let badlySigned = alipay.verifyNow(posted("out_trade_no=C20261204A1&total_amount=51.00&sign_type=RSA2&sign=AAAA"))
        await mode.sandbox.stop()

        #expect(tampered != genuine)
        guard case .success(let events) = verified, case .payment(let report)? = events.first else {
            Issue.record("a signed API v2 notification is not verified where it is read: \(String(describing: verified))")
            return
        }
        #expect(report.outTradeNo == "C20261204A1")
        guard case .failure = refused else {
            Issue.record("a tampered API v2 notification is not refused where it is read")
            return
        }
        guard case .failure = badlySigned else {
            Issue.record("a badly signed Alipay notification is not refused where it is read")
            return
        }
    }
}
