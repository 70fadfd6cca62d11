import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import WeChatPay

/// The WeChat Pay part of `cashier-sandbox demo`: real clients against the in-process sandbox, with a
/// merchant notify endpoint that verifies what arrives.
enum WeChatDemo {
    typealias Step = (String, () async throws -> (String, Bool)) async -> Void

    /// What the demo's notify endpoint has verified.
    final class Inbox: Sendable {
        let v2 = Mutex<[String: Money]>([:])
        let v3 = Mutex<[String: Money]>([:])

        func wait(_ read: () -> Money?) async -> Money? {
            for _ in 0..<500 {
                if let money = read() { return money }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }
    }

    static func run(_ step: Step) async {
        let v2Merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: SecureRandom.alphanumeric(count: 32))
        guard let v3Key = try? await OwnThread.run({ try RSAPrivateKey(generatingKeySizeInBits: 2048) }),
            let v3Merchant = try? WeChatPay.V3.Merchant(
                mchID: "1230000109", certificateSerial: "DEMO0001", privateKey: v3Key, apiV3Key: SecureRandom.alphanumeric(count: 32))
        else {
            await step("WeChat Pay sandbox") { ("could not make demo keys", false) }
            return
        }
        let sandbox = SandboxServer(
            wechatMerchants: [v2Merchant],
            wechatV3Merchants: [
                .init(mchID: v3Merchant.mchID, certificateSerial: "DEMO0001", publicKey: v3Key.publicKey, apiV3Key: v3Merchant.apiV3Key)
            ],
            timeScale: 0.001)
        let keys = WeChatPay.V3.PlatformKeys()
        let inbox = Inbox()
        let merchantServer = HTTPServer(configuration: .init()) { request in
            if request.path == "/notify/wechat/v2",
                let paid = try? WeChatPay.V2.PaymentNotification.verify(request.body, merchant: v2Merchant)
            {
                inbox.v2.withLock { $0[paid.outTradeNo] = paid.amount }
                return .text(WeChatPay.V2.NotificationReply.success.xmlString)
            }
            if request.path == "/notify/wechat/v3", let headers = try? WeChatPay.V3.SignatureHeaders(headers: request.headers),
                let event = try? WeChatPay.V3.Notification.open(
                    body: request.body, headers: headers, keys: keys, apiV3Key: v3Merchant.apiV3Key),
                let transaction = try? WeChatPay.V3.Transaction.decode(event.plaintext)
            {
                inbox.v3.withLock { $0[transaction.outTradeNo] = transaction.amount }
                return HTTPServerResponse(status: 204)
            }
            return .text(WeChatPay.V2.NotificationReply.failure("not verified").xmlString)
        }
        do {
            try sandbox.start()
            try merchantServer.start()
        } catch {
            await step("WeChat Pay sandbox") { ("could not start: \(error)", false) }
            return
        }
        let notifyBase = "http://127.0.0.1:\(merchantServer.port)/notify/wechat"
        let total = Money(minorUnits: 5100, currency: .cny)

        await step("WeChat Pay v2 APP order") {
            let client = WeChatPay.V2.Client(merchant: v2Merchant, baseURL: sandbox.wechatV2URL)
            let number = TradeNumber.generate()
            let prepay = try await client.unifiedOrder(
                .init(
                    tradeType: .app, body: "2 lattes", outTradeNo: number, total: total, notifyURL: notifyBase + "/v2",
                    clientIP: "127.0.0.1"))
            _ = WeChatPay.V2.AppPayParameters(prepayID: prepay.prepayID, merchant: v2Merchant)
            await sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
            let notified = await inbox.wait { inbox.v2.withLock { $0[number] } }
            let status = try await client.orderQuery(outTradeNo: number)
            _ = try await client.refund(
                outTradeNo: number, outRefundNo: "R" + number, total: total, refund: Money(minorUnits: 100, currency: .cny))
            let refunded = try await client.orderQuery(outTradeNo: number).tradeState
            return (
                "paid \(notified?.description ?? "?"), notification verified, query \(status.tradeState), refund 1.00 → \(refunded)",
                notified == total && status.isPaid && refunded == "REFUND"
            )
        }
        await step("WeChat Pay v3 Native order") {
            let client = WeChatPay.V3.Client(merchant: v3Merchant, keys: keys, baseURL: sandbox.wechatV3URL)
            let number = TradeNumber.generate()
            let prepay = try await client.prepay(
                .native, appID: "wxd678efh567hg6787", description: "2 lattes", outTradeNo: number, total: total,
                notifyURL: notifyBase + "/v3")
            await sandbox.wechatV3.pay(outTradeNo: number, outcome: .success)
            let notified = await inbox.wait { inbox.v3.withLock { $0[number] } }
            let transaction = try await client.transaction(outTradeNo: number)
            return (
                "QR \(prepay.codeURL?.prefix(26) ?? "?")…, notification decrypted \(notified?.description ?? "?"), query \(transaction.tradeState)",
                notified == total && transaction.isPaid
            )
        }
        await merchantServer.stop()
        await sandbox.stop()
    }
}
