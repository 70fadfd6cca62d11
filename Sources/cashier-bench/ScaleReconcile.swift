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
/// here), against parsing the two bills alone; seconds and peak RSS of each, each in a process of
/// its own (``child(_:)``).
///
/// The providers are the sandbox's; the two bills are answered in its place by ``BillTransport``.
struct ScaleReconcile {
    let history: ScaleHistory
    let lines: Int

    struct Result {
        var wechatLines: Int
        var alipayLines: Int
        var seconds: Double
        /// The reconciling process's peak resident set.
        var peakMegabytes: Double
        var parseSeconds: Double
        /// The parsing process's peak resident set.
        var parsePeakMegabytes: Double
        /// What the reconciling process held before it began (the runtime, the two bills' files, the store's connections).
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

    /// Where the store is, for the child process: a SQLite file's path or a PostgreSQL URL.
    let location: String
    let folder: URL

    /// Writes the two bills to files, then runs a child process (``child(_:)``) to parse them
    /// alone and another to reconcile the day against them: each reports its time and its peak
    /// resident set (`VmHWM`), which is the reconciliation's own, not this process's (which holds
    /// the history, and heap its generation freed but kept).
    func measure() async throws -> Result {
        let (wechatGzip, alipayZip, wechatLines, alipayLines) = try files()
        let wechatFile = folder.appendingPathComponent("wechat-bill.csv.gz")
        let alipayFile = folder.appendingPathComponent("alipay-bill.zip")
        try wechatGzip.write(to: wechatFile)
        try alipayZip.write(to: alipayFile)
        defer {
            if ProcessInfo.processInfo.environment["CASHIER_BENCH_KEEP"] != "1" {
                try? FileManager.default.removeItem(at: wechatFile)
                try? FileManager.default.removeItem(at: alipayFile)
            } else {
                ScaleSuite.say(
                    "reconciliation on its own: cashier-bench scale-reconcile-child reconcile \(location) \(date) \(wechatFile.path) \(alipayFile.path)"
                )
            }
        }
        func run(_ phase: String) throws -> [String: String] {
            let output = try Subprocess.run(
                "/proc/self/exe", ["scale-reconcile-child", phase, location, date, wechatFile.path, alipayFile.path])
            return Dictionary(
                output.split(whereSeparator: \.isWhitespace).compactMap { pair -> (String, String)? in
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
                }, uniquingKeysWith: { $1 })
        }
        let parse = try run("parse")
        guard Int(parse["lines"] ?? "") == wechatLines + alipayLines else {
            throw Subprocess.Failure("the bills parsed to \(parse["lines"] ?? "no") lines, not \(wechatLines + alipayLines)")
        }
        let reconcile = try run("reconcile")
        func number(_ values: [String: String], _ key: String) -> Double { Double(values[key] ?? "") ?? 0 }
        return Result(
            wechatLines: wechatLines, alipayLines: alipayLines, seconds: number(reconcile, "seconds"),
            peakMegabytes: number(reconcile, "rss"), parseSeconds: number(parse, "seconds"), parsePeakMegabytes: number(parse, "rss"),
            startMegabytes: number(reconcile, "rss_before"), matched: Int(number(reconcile, "matched")),
            discrepancies: Int(number(reconcile, "discrepancies")),
            kinds: Dictionary(
                (reconcile["kinds"] ?? "").split(separator: ",").compactMap { pair -> (String, Int)? in
                    let parts = pair.split(separator: ":")
                    return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? 0) : nil
                }, uniquingKeysWith: { $1 }))
    }

    /// `cashier-bench scale-reconcile-child parse|reconcile STORE DATE WECHAT_GZ ALIPAY_ZIP`, run by
    /// ``measure()``: the bills read from the files (as a download would hold them), then parsed
    /// alone through the readers reconciliation uses, or the day reconciled against them
    /// (`MerchantServer.reconcile(date:)`, the sandbox's providers with the two bills answered in
    /// their place). One line: `seconds=… rss=… rss_before=…` (MB: the process's peak resident
    /// set, and what it held before it began), and `lines=…` or `matched=… discrepancies=… kinds=…`.
    static func child(_ arguments: [String]) throws -> String {
        guard arguments.count == 5, ["parse", "reconcile"].contains(arguments[0]) else {
            throw Subprocess.Failure("usage: cashier-bench scale-reconcile-child parse|reconcile STORE DATE WECHAT_GZ ALIPAY_ZIP")
        }
        let (phase, location, date) = (arguments[0], arguments[1], arguments[2])
        let wechatGzip = try Data(contentsOf: URL(fileURLWithPath: arguments[3]))
        let alipayZip = try Data(contentsOf: URL(fileURLWithPath: arguments[4]))
        let clock = ContinuousClock()
        if phase == "parse" {
            let before = PeakMemory.currentMegabytes()
            let started = clock.now
            var parsed = 0
            var wechat = try WeChatPay.Bill.Reader(file: wechatGzip)
            while try wechat.next() != nil { parsed += 1 }
            var alipay = try Alipay.Bill.Reader(data: alipayZip)
            while try alipay.next() != nil { parsed += 1 }
            let seconds = (clock.now - started) / .seconds(1)
            return String(
                format: "seconds=%.3f rss=%.0f rss_before=%.0f lines=%d", seconds, PeakMemory.megabytes(), before, parsed)
        }
        return try ServerSuite.blocking {
            let store: any OrderStore =
                location.hasPrefix("postgres")
                ? try await PostgresOrderStore(url: location, reportLinesPerOrder: ServerSuite.reportLinesPerOrder)
                : try SQLiteOrderStore(path: location, reportLinesPerOrder: ServerSuite.reportLinesPerOrder)
            let mode = try await SandboxMode.start()
            var configuration = mode.configuration
            // One merchant, one bill a wallet: the two generated ones (the sandbox's sub-merchants
            // and WeChat Pay's v3 account would be sent the same bills again).
            configuration.wechatV3 = nil
            configuration.subMerchants = []
            let transport = BillTransport(inner: CurlTransport(), wechatBill: wechatGzip, alipayBill: alipayZip)
            let server = MerchantServer(configuration: configuration, store: store, providerTransport: transport)
            let before = PeakMemory.currentMegabytes()
            let started = clock.now
            let report = try await server.reconcile(date: date)
            let seconds = (clock.now - started) / .seconds(1)
            let peak = PeakMemory.megabytes()
            await mode.sandbox.stop()
            await store.close()
            let kinds = report.discrepancies.reduce(into: [String: Int]()) { $0[$1.kind, default: 0] += 1 }
            return String(
                format: "seconds=%.3f rss=%.0f rss_before=%.0f matched=%d discrepancies=%d kinds=%@", seconds, peak, before,
                report.matched, report.discrepancies.count, kinds.map { "\($0.key):\($0.value)" }.sorted().joined(separator: ","))
        }
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
