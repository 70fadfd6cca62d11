import Cashier
import CashierSandbox
import Foundation
import Synchronization
import Testing
import WeChatPay

/// The sandbox's profit-sharing bill (分账账单) through our client: the day's finished shares
/// (`SUCCESS` only: a `CLOSED` one is not listed), successful returns and unfreezes, dated by
/// when they finished (Beijing time), downloaded gzipped with its SHA1 checked; a day with
/// nothing is `NO_STATEMENT_EXIST`.
@Suite struct WeChatV3ProfitSharingBillSandboxTests {
    typealias Sharing = WeChatV3ProfitSharingSandboxTests

    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Shanghai")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }

    @Test(.timeLimit(.minutes(2))) func theDaysSharesReturnsAndUnfreezesAreBilled() async throws {
        let world = try await Sharing.World()
        try await world.addReceivers()
        let (_, first) = try await world.paid(10_000)
        _ = try await world.share(first, "P1", [(.merchantID, Sharing.receiver, 1_000), (.personalOpenID, Sharing.person, 500)])
        world.clock.advance(by: 60)
        _ = try await world.client.createProfitSharingReturn(
            .init(outOrderNo: "P1", outReturnNo: "R1", returnMchID: Sharing.receiver, amount: 600, description: "用户退款"))
        let (_, second) = try await world.paid(10_000)
        _ = try await world.share(second, "S1", [(.merchantID, Sharing.receiver, 1_000)])
        _ = try await world.client.unfreezeProfitSharing(transactionID: second, outOrderNo: "S2", description: "解冻全部剩余资金")
        world.clock.advance(by: 60)
        await world.sandbox.wechatV3.settleProfitSharing()
        let today = Self.day(world.clock.now.withLock { $0 })
        let bill = try await world.client.profitSharingBill(date: today)
        let lines = bill.lines.map { "\($0.kind) \($0.outOrderNo) \($0.outReturnNo ?? "-") \($0.receiverAccount) \($0.amount) \($0.state)" }
        #expect(
            lines == [
                "share P1 - \(Sharing.receiver) 1000 SUCCESS", "share P1 - \(Sharing.person) 500 SUCCESS",
                "return P1 R1 \(Sharing.receiver) 600 SUCCESS", "share S1 - \(Sharing.receiver) 1000 SUCCESS",
                "unfreeze S2 - \(Sharing.Keys.merchant.mchID) 9000 SUCCESS",
            ])
        #expect(bill.lines.allSatisfy { $0.time.hasPrefix(today) && $0.payer == Sharing.Keys.merchant.mchID })
        #expect(bill.lines.filter { $0.outOrderNo == "P1" }.allSatisfy { $0.transactionID == first })
        #expect(bill.sharedTotal == 11_500 && bill.returnedTotal == 600)
        // The next day has nothing: WeChat's answer for a bill that does not exist.
        let next = Self.day(world.clock.now.withLock { $0 }.addingTimeInterval(86_400))
        let none = await #expect(throws: PaymentError.self) { try await world.client.profitSharingBill(date: next) }
        #expect(none?.code == .providerRejected && none?.providerCode == "NO_STATEMENT_EXIST")
    }

    @Test(.timeLimit(.minutes(2))) func aClosedShareIsNotBilled() async throws {
        let world = try await Sharing.World()
        try await world.addReceivers()
        let (_, transactionID) = try await world.paid(10_000)
        _ = try await world.share(transactionID, "P1", [(.merchantID, Sharing.receiver, 1_000), (.personalOpenID, Sharing.person, 500)])
        try await world.client.deleteProfitSharingReceiver(
            .init(appID: Sharing.appID, type: .personalOpenID, account: Sharing.person, relationType: "USER"))
        world.clock.advance(by: 60)
        await world.sandbox.wechatV3.settleProfitSharing()
        let bill = try await world.client.profitSharingBill(date: Self.day(world.clock.now.withLock { $0 }))
        #expect(bill.lines.map(\.receiverAccount) == [Sharing.receiver] && bill.sharedTotal == 1_000)
    }
}
