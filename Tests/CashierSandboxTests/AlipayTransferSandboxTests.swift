import Alipay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import Testing

/// Our Alipay client's transfers (单笔转账, key mode) against the sandbox: paid at once, the same
/// `out_biz_no` answered as the same transfer and taken once from the balance, another body under
/// it refused, Alipay's limits, and the query.
@Suite struct AlipayTransferSandboxTests {
    typealias Keys = AlipaySandboxTests

    static func client(_ sandbox: SandboxServer) -> Alipay.Client {
        Alipay.Client(
            appID: Keys.appID, signer: Alipay.Signer(privateKey: Keys.appKey), alipayPublicKey: sandbox.alipay.alipayPublicKey,
            gateway: sandbox.alipayGatewayURL)
    }

    @Test(.timeLimit(.minutes(2))) func aTransferIsPaidOnceAndQueried() async throws {
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [Keys.appID: Keys.appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let client = Self.client(sandbox)
        let opening = await sandbox.alipay.transferBalance(appID: Keys.appID)
        let payee = Alipay.Client.Payee(identity: "2088123412341234")
        let amount = Money(minorUnits: 1234, currency: .cny)
        let number = "AT" + SecureRandom.alphanumeric(count: 20)
        let paid = try await client.uniTransfer(outBizNo: number, amount: amount, payee: payee, title: "奖励")
        #expect(paid.status == "SUCCESS" && paid.isFinal && paid.orderID?.isEmpty == false && paid.outBizNo == number)
        let again = try await client.uniTransfer(outBizNo: number, amount: amount, payee: payee, title: "奖励")
        #expect(again.orderID == paid.orderID)
        #expect(await sandbox.alipay.transferBalance(appID: Keys.appID) == opening - 1234)
        let other = await #expect(throws: PaymentError.self) {
            try await client.uniTransfer(outBizNo: number, amount: Money(minorUnits: 1235, currency: .cny), payee: payee, title: "奖励")
        }
        #expect(other?.providerCode == "PAYMENT_INFO_INCONSISTENCY")
        let queried = try await client.transferQuery(outBizNo: number)
        #expect(queried.status == "SUCCESS" && queried.amount == amount && queried.orderID == paid.orderID && queried.date != nil)
        let unknown = await #expect(throws: PaymentError.self) { try await client.transferQuery(outBizNo: "nosuch") }
        #expect(unknown?.providerCode == "ORDER_NOT_EXIST")
        // Past Alipay's limit for a person; a logon id without the name (refused before sending).
        let large = await #expect(throws: PaymentError.self) {
            try await client.uniTransfer(
                outBizNo: number + "L", amount: Money(minorUnits: 5_000_001, currency: .cny), payee: payee, title: "奖励")
        }
        #expect(large?.providerCode == "EXCEED_LIMIT_SM_AMOUNT")
        let nameless = await #expect(throws: PaymentError.self) {
            try await client.uniTransfer(
                outBizNo: number + "N", amount: amount, payee: .init(identity: "a@example.com", identityType: "ALIPAY_LOGON_ID"),
                title: "奖励")
        }
        #expect(nameless?.code == .invalidRequest)
        let small = await #expect(throws: PaymentError.self) {
            try await client.uniTransfer(outBizNo: number + "S", amount: Money(minorUnits: 9, currency: .cny), payee: payee, title: "奖励")
        }
        #expect(small?.code == .invalidRequest)
        #expect(await sandbox.alipay.transferBalance(appID: Keys.appID) == opening - 1234)
        await sandbox.stop()
    }
}
