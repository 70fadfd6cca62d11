import Alipay
import Cashier
import CashierArchive
import CashierCurl
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import WeChatPay

/// `scale-reconcile`: a day reconciled (`MerchantServer.reconcile(date:)`, as `cashier reconcile`
/// runs it) against a WeChat Pay bill and an Alipay bill of up to `lines` lines each, generated
/// from the history's payments (the day's first, then older ones: every line matches a payment
/// here), against parsing the two bills alone; seconds and peak RSS of each.
///
/// The providers are the sandbox's; the two bills are answered in its place by ``BillTransport``.
struct ScaleReconcile {
    let store: any OrderStore
    let history: ScaleHistory
    let lines: Int

    struct Result {
        var wechatLines: Int
        var alipayLines: Int
        var seconds: Double
        /// How far the resident set grew over what it was when reconciliation began.
        var peakMegabytes: Double
        var parseSeconds: Double
        /// How far the resident set grew over what it was when parsing began.
        var parsePeakMegabytes: Double
        /// Resident before the bills were parsed (the bench's own: the history, the two bills).
        var startMegabytes: Double
        var matched: Int
        var discrepancies: Int
        /// Discrepancies by kind.
        var kinds: [String: Int]
    }

    /// The bills' day: the one before the last order's, in Beijing time — a whole day, as finance
    /// reconciles yesterday, and none of the orders the notification measure paid today.
    var date: String {
        BeijingTime.formatter("yyyy-MM-dd").string(from: history.createdAt(history.count - 1).addingTimeInterval(-86_400))
    }

    func measure() async throws -> Result {
        let (wechatGzip, alipayZip, wechatLines, alipayLines) = try files()
        let clock = ContinuousClock()

        // Parsing alone: the readers reconciliation reads the bills through, run to the end.
        PeakMemory.reset()
        let before = PeakMemory.currentMegabytes()
        var started = clock.now
        var parsed = 0
        var wechat = try WeChatPay.Bill.Reader(file: wechatGzip)
        while try wechat.next() != nil { parsed += 1 }
        var alipay = try Alipay.Bill.Reader(data: alipayZip)
        while try alipay.next() != nil { parsed += 1 }
        let parseSeconds = (clock.now - started) / .seconds(1)
        let parsePeak = PeakMemory.megabytes() - before
        guard parsed == wechatLines + alipayLines else { throw Subprocess.Failure("the bills parsed to \(parsed) lines") }

        let mode = try await SandboxMode.start()
        defer { Task { await mode.sandbox.stop() } }
        var configuration = mode.configuration
        configuration.wechatV3 = nil  // one WeChat Pay merchant, one bill
        let transport = BillTransport(inner: CurlTransport(), wechatBill: wechatGzip, alipayBill: alipayZip)
        let server = MerchantServer(configuration: configuration, store: store, providerTransport: transport)
        PeakMemory.reset()
        let reconcileBefore = PeakMemory.currentMegabytes()
        started = clock.now
        let report = try await server.reconcile(date: date)
        let seconds = (clock.now - started) / .seconds(1)
        let peak = PeakMemory.megabytes() - reconcileBefore
        await mode.sandbox.stop()
        return Result(
            wechatLines: wechatLines, alipayLines: alipayLines, seconds: seconds, peakMegabytes: peak, parseSeconds: parseSeconds,
            parsePeakMegabytes: parsePeak, startMegabytes: before, matched: report.matched, discrepancies: report.discrepancies.count,
            kinds: report.discrepancies.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 })
    }

    /// The two bills as the providers serve them (WeChat Pay's text gzipped, as `tar_type=GZIP`
    /// asks; Alipay's zip) and their line counts; the rows they were made from are gone when this
    /// returns, so the peaks measured afterwards are not the bench's own.
    func files() throws -> (wechat: Data, alipay: Data, wechatLines: Int, alipayLines: Int) {
        let (wechat, alipay) = bills()
        let stem = "20880000000000000156_" + date.replacingOccurrences(of: "-", with: "")
        let zip = try Alipay.Bill(account: "20880000000000000156", rows: alipay).zipData(
            stem: stem, from: date, to: date, exportedAt: date)
        return (try Gzip.compress(Data(WeChatPay.Bill(rows: wechat).text.utf8)), zip, wechat.count, alipay.count)
    }

    /// Up to `lines` payment lines for each wallet, the bill day's payments first (then the oldest
    /// onwards), and the day's refunds.
    func bills() -> (wechat: [WeChatPay.Bill.Row], alipay: [Alipay.Bill.Row]) {
        let time = BeijingClock(withTime: true)
        let day = BeijingClock(withTime: false)
        var wechat: [WeChatPay.Bill.Row] = []
        var alipay: [Alipay.Bill.Row] = []
        // The day's orders first (newest backwards until the day changes), then the oldest onwards.
        var onDay: [Int] = []
        var index = history.count - 1
        while index >= 0, day.string(from: history.createdAt(index)) > date { index -= 1 }
        let after = index
        while index >= 0, day.string(from: history.createdAt(index)) == date {
            onDay.append(index)
            index -= 1
        }
        let order = onDay.reversed() + Array(0..<(index + 1)) + Array((after + 1)..<history.count)
        for index in order where wechat.count < lines || alipay.count < lines {
            let placed = history.order(index)
            guard let paid = placed.paidAt, let transaction = placed.transactionID else { continue }
            let refundsToday = placed.refunds.filter { day.string(from: $0.at) == date }
            switch placed.method.wallet {
            case .wechat where wechat.count < lines:
                wechat.append(
                    .init(
                        tradeTime: time.string(from: paid), appID: "wxd930ea5d5a258f4f", mchID: "10000100", transactionID: transaction,
                        outTradeNo: placed.outTradeNo, tradeState: "SUCCESS", amount: placed.total, refundAmount: .zero(.cny),
                        outRefundNo: "", subject: "Order"))
                for (number, refund) in refundsToday.enumerated() {
                    wechat.append(
                        .init(
                            tradeTime: time.string(from: refund.at), appID: "wxd930ea5d5a258f4f", mchID: "10000100",
                            transactionID: transaction, outTradeNo: placed.outTradeNo, tradeState: "REFUND", amount: placed.total,
                            refundAmount: Money(minorUnits: refund.amount, currency: .cny), outRefundNo: "R\(number)" + placed.outTradeNo,
                            subject: "Order"))
                }
            case .alipay where alipay.count < lines:
                alipay.append(
                    .init(
                        tradeNo: transaction, outTradeNo: placed.outTradeNo, kind: .trade, subject: "Order",
                        created: time.string(from: placed.createdAt), finished: time.string(from: paid), amount: placed.total))
                for (number, refund) in refundsToday.enumerated() {
                    alipay.append(
                        .init(
                            tradeNo: transaction, outTradeNo: placed.outTradeNo, kind: .refund, subject: "Order",
                            created: time.string(from: placed.createdAt), finished: time.string(from: refund.at),
                            amount: Money(minorUnits: -refund.amount, currency: .cny), refundRequestNo: "R\(number)" + placed.outTradeNo))
                }
            default: continue
            }
        }
        return (wechat, alipay)
    }
}
