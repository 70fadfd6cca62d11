import Alipay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandboxMode
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Refund notifications reach the refund they are about: Alipay's (a trade notification
/// carrying `out_biz_no` and `refund_fee`) is told apart from a payment's and confirms the
/// refund; WeChat Pay v2's is accepted for every appid of the merchant (a mini program's too).
@Suite struct RefundNotificationRoutingTests {
    @Test func alipayRefundNotificationsConfirmTheRefund() async throws {
        let fixture = try await ServerFixture()
        let id = try await fixture.createOrderID(amount: "10.00")
        let started = try await fixture.call("POST", "/v1/orders/\(id)/payments", json: ["method": "alipay.qr"])
        let number = try #require(started.object["out_trade_no"] as? String)
        await fixture.sandbox.alipay.pay(outTradeNo: number, outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        let refunded = try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "3.00"])
        #expect(refunded.status == 200)
        let refundNumber = try #require((refunded.object["refund"] as? [String: Any])?["out_refund_no"] as? String)
        // Alipay's answer accepted it; its notification confirms it.
        await fixture.settled()
        #expect(try await fixture.store.refund(outRefundNo: refundNumber)?.confirmedAt != nil)
        let events = try await fixture.store.events(orderID: id)
        #expect(events.contains { $0.kind == .refundNotification && $0.detail.contains(refundNumber) && $0.detail.contains("3.00") })
        // Not mistaken for the payment's notification arriving again.
        #expect(!events.contains { $0.kind == .notificationDuplicate })

        // A refund notification signed by someone else is refused and changes nothing.
        let impostor = TestKeys.rsa(4)
        var fields: [String: String] = [
            "app_id": fixture.mode.configuration.alipay?.appID ?? "", "out_trade_no": number, "trade_no": "2026000",
            "trade_status": "TRADE_CLOSED",
            "total_amount": "10.00", "out_biz_no": "R-FORGED", "refund_fee": "10.00", "gmt_refund": "2026-12-01 10:00:00.000",
            "seller_id": fixture.sandbox.alipay.sellerID, "notify_type": "trade_status_sync", "charset": "utf-8",
        ]
        fields["sign"] = Base64.encode(try impostor.signature(for: Alipay.Signer.content(fields), scheme: .insecurePKCS1v1_5SHA256))
        fields["sign_type"] = "RSA2"
        let forged = try await ServerFixture.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: fixture.server.baseURL.absoluteString + "/notify/alipay")!,
                headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data(Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)))
        #expect(String(decoding: forged.body, as: UTF8.self) == "failure")
        #expect(try await fixture.store.events(orderID: id).count == events.count)
        await fixture.stop()
    }

    @Test func wechatV2RefundNotificationsForAMiniProgramAreAccepted() async throws {
        let fixture = try await ServerFixture()
        let order = try await fixture.createOrder(amount: "6.60")
        let id = try #require(order["id"] as? String)
        let started = try await fixture.call(
            "POST", "/v1/orders/\(id)/payments", json: ["method": "wechat.miniprogram", "api": "v2", "js_code": "code-refund"])
        #expect((started.object["wechat"] as? [String: String])?["appId"] == SandboxMode.miniProgramAppID)
        await fixture.sandbox.wechatV2.pay(outTradeNo: order["out_trade_no"] as? String ?? "", outcome: .success)
        #expect(try await fixture.waitForStatus(id, "paid"))
        let refunded = try await fixture.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "1.60"])
        let refundNumber = try #require((refunded.object["refund"] as? [String: Any])?["out_refund_no"] as? String)
        // The notification names the mini program's appid; it confirms the refund at its first delivery.
        await fixture.settled()
        #expect(try await fixture.store.refund(outRefundNo: refundNumber)?.confirmedAt != nil)
        // Acknowledged at the first delivery: WeChat does not send it again.
        await fixture.settled()
        #expect(await fixture.sandbox.delivery.attempts(for: refundNumber).first?.acknowledged == true)
        let deliveries = await fixture.sandbox.delivery.attempts(for: refundNumber)
        #expect(deliveries.count == 1, "\(deliveries)")
        await fixture.stop()
    }
}
