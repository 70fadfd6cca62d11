import Alipay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation

/// The Alipay part of `cashier-sandbox demo`: our client and an app-pay order string against the
/// in-process Alipay sandbox.
enum AlipayDemo {
    static func run(_ step: WeChatDemo.Step) async {
        guard let appKey = try? await OwnThread.run({ try RSAPrivateKey(generatingKeySizeInBits: 2048) }) else {
            await step("Alipay sandbox") { ("could not make a demo key", false) }
            return
        }
        let appID = "2021000000000001"
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [appID: appKey.publicKey], timeScale: 0.001)
        do {
            try sandbox.start()
        } catch {
            await step("Alipay sandbox") { ("\(error)", false) }
            return
        }
        let signer = Alipay.Signer(privateKey: appKey)
        let client = Alipay.Client(
            appID: appID, signer: signer, alipayPublicKey: sandbox.alipay.alipayPublicKey, gateway: sandbox.alipayGatewayURL)
        let total = Money(minorUnits: 5100, currency: .cny)
        let number = TradeNumber.generate()
        await step("Alipay precreate → pay → query") {
            _ = try await client.precreate(outTradeNo: number, total: total, subject: "2 lattes", notifyURL: "http://127.0.0.1:9/notify")
            await sandbox.alipay.pay(outTradeNo: number, outcome: .success)
            let trade = try await client.query(outTradeNo: number)
            return ("\(number) \(trade.tradeStatus), answers verified over their raw nodes", trade.isPaid)
        }
        await step("Alipay refund") {
            let refunded = try await client.refund(outTradeNo: number, amount: Money(minorUnits: 1000, currency: .cny), outRequestNo: "R1")
            return ("refunded \(refunded) of \(total)", refunded.minorUnits == 1000)
        }
        await step("Alipay app pay (order string → sync result)") {
            let orderString = try Alipay.OrderString.make(
                appID: appID, signer: signer, notifyURL: "http://127.0.0.1:9/notify",
                bizContent: #"{"out_trade_no":"\#(TradeNumber.generate())","total_amount":"12.75","subject":"tea"}"#)
            let answer = await sandbox.alipay.payOrderString(orderString, outcome: .success)
            _ = try Alipay.SyncResult.verify(answer["result"] ?? "", publicKey: sandbox.alipay.alipayPublicKey)
            let outcome = Alipay.PaymentOutcome(resultStatus: answer["resultStatus"] ?? "")
            return (
                "resultStatus \(answer["resultStatus"] ?? "?"), signed result verified; still confirm with the server",
                outcome == .succeeded
            )
        }
        await sandbox.stop()
    }
}
