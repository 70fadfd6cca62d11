import Alipay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
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

        // The rows, asked for gzipped (tar_type=GZIP): served gzipped, read as the text is; a
        // refusal is XML still.
        let recorder = BodyRecorder()
        let recording = WeChatPay.V2.Client(merchant: merchant, transport: recorder, baseURL: sandbox.wechatV2URL)
        var reader = try await recording.downloadBillRows(date: Self.today("yyyyMMdd"))
        var rows: [WeChatPay.Bill.Row] = []
        while let row = try reader.next() { rows.append(row) }
        #expect(rows == bill.rows)
        #expect(recorder.bodies.last?.starts(with: [0x1F, 0x8B]) == true, "the file came gzipped")
        #expect(recorder.bodies.last.map { $0.count < Data(bill.text.utf8).count } == true)
        let refused = await #expect(throws: PaymentError.self) { try await recording.downloadBillRows(date: "20010101") }
        #expect(refused?.providerMessage == "No Bill Exist")
        await sandbox.stop()
    }

    /// A transport that keeps every response body it passed on.
    final class BodyRecorder: HTTPTransport, Sendable {
        private let inner = URLSessionTransport()
        private let recorded = Mutex<[Data]>([])
        var bodies: [Data] { recorded.withLock { $0 } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let response = try await inner.send(request)
            recorded.withLock { $0.append(response.body) }
            return response
        }
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

    /// The fund-flow bills (资金账单) of WeChat Pay v2 and v3 and Alipay's account statement, as the
    /// sandboxes serve them (v3 gzipped, Alipay zipped), with the fees the trade bills carry.
    @Test func fundFlowBillsAndFees() async throws {
        let merchant = WeChatV2SandboxTests.merchant
        let appKey = TestKeys.rsa(0)
        let sandbox = SandboxServer(
            wechatMerchants: [merchant], wechatV3Merchants: [WeChatV3SandboxTests.sandboxMerchant],
            alipayApps: ["2021000000000003": appKey.publicKey],
            timeScale: 0.001)
        try sandbox.start()
        let yuan = { (minor: Int64) in Money(minorUnits: minor, currency: .cny) }
        // v2: a payment of 51.00 (fee 0.31) and a refund of 10.00 (fee 0.06 back).
        let v2 = WeChatPay.V2.Client(merchant: merchant, baseURL: sandbox.wechatV2URL)
        let number = TradeNumber.generate()
        _ = try await v2.unifiedOrder(WeChatV2SandboxTests.order(number, 5100, notifyURL: "http://127.0.0.1:9/n"))
        await sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
        _ = try await v2.refund(outTradeNo: number, outRefundNo: "RF\(number)", total: yuan(5100), refund: yuan(1000))
        let trade = try await v2.downloadBill(date: Self.today("yyyyMMdd"))
        #expect(trade.rows.map(\.fee) == [yuan(31), yuan(-6)])
        let flow = try await v2.downloadFundFlow(date: Self.today("yyyyMMdd"))
        #expect(flow.rows.map(\.name) == ["交易", "扣除交易手续费", "退款", "退还交易手续费"])
        #expect(flow.rows.map(\.amount) == [yuan(5100), yuan(31), yuan(1000), yuan(6)] && flow.rows.last?.balance == yuan(4075))
        // The fund-flow bill is HMAC-SHA256 only: an MD5-signed request is refused, as WeChat does.
        #expect(merchant.signType == .md5)

        // v3: the trade bill and the fund-flow bill both come gzipped and match the signed hash.
        let v3 = WeChatPay.V3.Client(
            merchant: WeChatV3SandboxTests.merchant, keys: WeChatPay.V3.PlatformKeys(), baseURL: sandbox.wechatV3URL)
        let v3Number = TradeNumber.generate()
        _ = try await v3.prepay(
            .app, appID: "wxd678efh567hg6787", description: "bill", outTradeNo: v3Number, total: yuan(2000),
            notifyURL: "http://127.0.0.1:9/n")
        await sandbox.wechatV3.pay(outTradeNo: v3Number, outcome: .success)
        #expect(try await v3.tradeBill(date: Self.today("yyyy-MM-dd")).rows.map(\.fee) == [yuan(12)])
        let v3Flow = try await v3.fundFlowBill(date: Self.today("yyyy-MM-dd"))
        #expect(v3Flow.rows.map(\.amount) == [yuan(2000), yuan(12)] && v3Flow.rows.filter(\.isFee).count == 1)
        let none = await #expect(throws: PaymentError.self) { try await v3.fundFlowBill(date: "2001-01-01") }
        #expect(none?.providerCode == "NO_STATEMENT_EXIST")

        // Alipay: the trade bill and the account statement are zips of GBK CSVs.
        let alipay = Alipay.Client(
            appID: "2021000000000003", signer: Alipay.Signer(privateKey: appKey), alipayPublicKey: sandbox.alipay.alipayPublicKey,
            gateway: sandbox.alipayGatewayURL)
        let alipayNumber = TradeNumber.generate()
        _ = try await alipay.precreate(outTradeNo: alipayNumber, total: yuan(3000), subject: "拿铁", notifyURL: "http://127.0.0.1:9/n")
        await sandbox.alipay.pay(outTradeNo: alipayNumber, outcome: .success)
        let alipayBill = try await alipay.downloadBill(date: Self.today("yyyy-MM-dd"))
        #expect(alipayBill.rows.map(\.fee) == [yuan(18)])
        let statement = try await alipay.downloadFundFlow(date: Self.today("yyyy-MM-dd"))
        #expect(statement.rows.map(\.type) == ["在线支付", "收费"] && statement.rows.map(\.expense) == [.zero(.cny), yuan(18)])
        await sandbox.stop()
    }

    @Test func feesAndFundFlowTextRoundTrip() throws {
        let yuan = { (minor: Int64) in Money(minorUnits: minor, currency: .cny) }
        // WeChat prints fees to five places; they are rounded to the fen, charged or returned by the row's kind.
        #expect(try Money(roundingDecimal: "0.30600", currency: .cny) == yuan(31))
        #expect(try Money(roundingDecimal: "0.30400", currency: .cny) == yuan(30))
        #expect(try Money(roundingDecimal: "-0.06500", currency: .cny) == yuan(-7))
        #expect(try Money(roundingDecimal: "12", currency: .cny) == yuan(1200))
        #expect(throws: MoneyError.self) { try Money(roundingDecimal: "0.3x600", currency: .cny) }
        let flow = WeChatPay.FundFlowBill(rows: [
            .init(
                time: "2026-12-01 10:00:00", businessID: "4200", flowID: "F1", name: "交易", type: "交易", direction: "收入", amount: yuan(100),
                balance: yuan(100), reference: "C1"),
            .init(
                time: "2026-12-01 10:00:00", businessID: "4200", flowID: "F2", name: "扣除交易手续费", type: "交易", direction: "支出",
                amount: yuan(1), balance: yuan(99), reference: "C1"),
        ])
        #expect(try WeChatPay.FundFlowBill(parsing: flow.text) == flow)
        for broken in [
            flow.text.replacingOccurrences(of: "`2,`1,`1.00,`1,`0.01", with: "`2,`1,`1.00,`1,`0.02"),  // totals that do not add up
            flow.text.replacingOccurrences(of: "`支出", with: "`出"),
            String(flow.text.split(separator: "\r\n").prefix(3).joined(separator: "\r\n")),
        ] {
            #expect(throws: PaymentError.self) { try WeChatPay.FundFlowBill(parsing: broken) }
        }
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
