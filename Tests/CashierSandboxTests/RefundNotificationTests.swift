import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

/// Refund notifications from both sandboxes reach the merchant and verify: v2 `req_info`
/// decrypts under the API key; v3 `REFUND.SUCCESS` opens with the platform keys.
@Suite struct RefundNotificationTests {
    final class Inbox: Sendable {
        let bodies = Mutex<[(path: String, headers: HTTPHeaders, body: [UInt8])]>([])
        let server: HTTPServer

        init(reply: @escaping @Sendable (String) -> HTTPServerResponse) throws {
            let box = Storage()
            server = HTTPServer(configuration: .init()) { request in
                box.items.withLock { $0.append((request.path, request.headers, request.body)) }
                box.arrivals.add()
                return reply(request.path)
            }
            storage = box
            try server.start()
        }

        final class Storage: Sendable {
            let items = Mutex<[(String, HTTPHeaders, [UInt8])]>([])
            let arrivals = Tally()
        }

        let storage: Storage
        func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

        func wait(_ path: String) async throws -> (HTTPHeaders, [UInt8])? {
            await storage.arrivals.first(within: .seconds(30)) { storage.items.withLock { $0.first { $0.0 == path } }.map { ($0.1, $0.2) } }
        }
    }

    @Test func v2RefundNotification() async throws {
        let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")
        let sandbox = SandboxServer(wechatMerchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        let inbox = try Inbox { _ in .text(WeChatPay.V2.NotificationReply.success.xmlString) }
        let client = WeChatPay.V2.Client(merchant: merchant, baseURL: sandbox.wechatV2URL)
        let number = TradeNumber.generate()
        let total = Money(minorUnits: 300, currency: .cny)
        _ = try await client.unifiedOrder(
            .init(tradeType: .app, body: "r", outTradeNo: number, total: total, notifyURL: inbox.url("/pay"), clientIP: "127.0.0.1"))
        await sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
        _ = try await client.refund(
            outTradeNo: number, outRefundNo: "RF\(number)", total: total, refund: Money(minorUnits: 120, currency: .cny),
            notifyURL: inbox.url("/refund"))
        let (_, body) = try #require(try await inbox.wait("/refund"))
        let refund = try WeChatPay.V2.RefundNotification.verify(body, merchant: merchant)
        #expect(refund.outTradeNo == number)
        #expect(refund.outRefundNo == "RF\(number)")
        #expect(refund.refundAmount == Money(minorUnits: 120, currency: .cny))
        #expect(refund.totalAmount == total)
        #expect(refund.refundStatus == "SUCCESS")
        let otherKey = WeChatPay.V2.Merchant(appID: merchant.appID, mchID: merchant.mchID, apiKey: String(repeating: "1", count: 32))
        #expect(throws: PaymentError.self) { try WeChatPay.V2.RefundNotification.verify(body, merchant: otherKey) }
        await sandbox.stop()
    }

    @Test func v3RefundNotification() async throws {
        let sandbox = try WeChatV3SandboxTests.sandbox()
        let merchant = WeChatV3SandboxTests.merchant
        let apiV3Key = WeChatV3SandboxTests.apiV3Key
        let inbox = try Inbox { _ in HTTPServerResponse(status: 204) }
        let keys = WeChatPay.V3.PlatformKeys()
        let client = WeChatPay.V3.Client(merchant: merchant, keys: keys, baseURL: sandbox.wechatV3URL)
        let number = TradeNumber.generate()
        let total = Money(minorUnits: 990, currency: .cny)
        _ = try await client.prepay(
            .app, appID: "wxd678efh567hg6787", description: "r", outTradeNo: number, total: total, notifyURL: inbox.url("/pay"))
        await sandbox.wechatV3.pay(outTradeNo: number, outcome: .success)
        _ = try await client.refund(
            outTradeNo: number, outRefundNo: "RF\(number)", total: total, refund: Money(minorUnits: 990, currency: .cny),
            notifyURL: inbox.url("/refund"))
        let (headers, body) = try #require(try await inbox.wait("/refund"))
        let notification = try WeChatPay.V3.Notification.open(
            body: body, headers: WeChatPay.V3.SignatureHeaders(headers: headers), keys: keys, apiV3Key: apiV3Key)
        #expect(notification.eventType == "REFUND.SUCCESS")
        #expect(notification.originalType == "refund")
        let resource = try JSONSerialization.jsonObject(with: Data(notification.plaintext)) as? [String: Any]
        #expect(resource?["out_refund_no"] as? String == "RF\(number)")
        #expect(resource?["refund_status"] as? String == "SUCCESS")
        await sandbox.stop()
    }
}
