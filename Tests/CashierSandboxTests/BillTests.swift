import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import Testing
import WeChatPay

/// Trade bills from both sandboxes, parsed by the clients: what reconciliation will read.
@Suite struct BillTests {
    static func today(_ format: String) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = format
        formatter.timeZone = TimeZone(identifier: "Asia/Shanghai")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter.string(from: Date())
    }

    @Test func v2DownloadBill() async throws {
        let merchant = WeChatV2SandboxTests.merchant
        let sandbox = SandboxServer(wechatMerchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        let client = WeChatPay.V2.Client(merchant: merchant, baseURL: sandbox.wechatV2URL)
        let first = TradeNumber.generate()
        let second = TradeNumber.generate()
        for (number, fen) in [(first, Int64(5100)), (second, Int64(999))] {
            _ = try await client.unifiedOrder(WeChatV2SandboxTests.order(number, fen, notifyURL: "http://127.0.0.1:9/n"))
            await sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
        }
        _ = try await client.refund(
            outTradeNo: first, outRefundNo: "RB\(first)", total: Money(minorUnits: 5100, currency: .cny),
            refund: Money(minorUnits: 100, currency: .cny))
        let bill = try await client.downloadBill(date: Self.today("yyyyMMdd"))
        #expect(bill.rows.count == 3)
        #expect(Set(bill.rows.filter { $0.tradeState == "SUCCESS" }.map(\.outTradeNo)) == [first, second])
        let refund = try #require(bill.rows.first { $0.tradeState == "REFUND" })
        #expect(refund.refundAmount == Money(minorUnits: 100, currency: .cny))
        #expect(refund.outRefundNo == "RB\(first)")
        #expect(bill.rows.first { $0.outTradeNo == second }?.amount == Money(minorUnits: 999, currency: .cny))
        let none = await #expect(throws: PaymentError.self) { try await client.downloadBill(date: "20010101") }
        #expect(none?.providerMessage == "No Bill Exist")
        await sandbox.stop()
    }

    @Test func v3TradeBill() async throws {
        let sandbox = try WeChatV3SandboxTests.sandbox()
        let merchant = WeChatV3SandboxTests.merchant
        let client = WeChatPay.V3.Client(merchant: merchant, keys: WeChatPay.V3.PlatformKeys(), baseURL: sandbox.wechatV3URL)
        let number = TradeNumber.generate()
        let total = Money(minorUnits: 1234, currency: .cny)
        _ = try await client.prepay(
            .app, appID: "wxd678efh567hg6787", description: "bill", outTradeNo: number, total: total, notifyURL: "http://127.0.0.1:9/n")
        await sandbox.wechatV3.pay(outTradeNo: number, outcome: .success)
        _ = try await client.refund(
            outTradeNo: number, outRefundNo: "RV\(number)", total: total, refund: Money(minorUnits: 234, currency: .cny))
        let bill = try await client.tradeBill(date: Self.today("yyyy-MM-dd"))
        #expect(bill.rows.map(\.tradeState) == ["SUCCESS", "REFUND"])
        #expect(bill.rows.allSatisfy { $0.outTradeNo == number && $0.amount == total })
        #expect(bill.rows[1].refundAmount == Money(minorUnits: 234, currency: .cny))
        let none = await #expect(throws: PaymentError.self) { try await client.tradeBill(date: "2001-01-01") }
        #expect(none?.providerCode == "NO_STATEMENT_EXIST")
        await sandbox.stop()
    }

    @Test func billTextRoundTripsAndRefusesGarbage() throws {
        let row = WeChatPay.Bill.Row(
            tradeTime: "2026-11-29 12:00:00", appID: "wx1", mchID: "10000100", transactionID: "4200000001", outTradeNo: "T1",
            tradeState: "SUCCESS",
            amount: Money(minorUnits: 5100, currency: .cny), refundAmount: .zero(.cny), outRefundNo: "", subject: "2 lattes, hot")
        let parsed = try WeChatPay.Bill(parsing: WeChatPay.Bill(rows: [row]).text)
        #expect(parsed.rows.count == 1)
        #expect(parsed.rows[0].amount == row.amount)
        #expect(parsed.rows[0].subject == "2 lattes， hot")  // commas inside values become full-width, as WeChat writes them
        #expect(throws: PaymentError.self) { try WeChatPay.Bill(parsing: "not a bill") }
        #expect(throws: PaymentError.self) {
            try WeChatPay.Bill(parsing: WeChatPay.Bill(rows: [row]).text.replacingOccurrences(of: "`51.00", with: "`5l.00"))
        }
    }
}
