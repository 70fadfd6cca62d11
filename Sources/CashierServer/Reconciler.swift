import Alipay
import Cashier
import CashierStore
import Foundation
import WeChatPay

/// Reconciliation: downloads each configured provider's trade bill for a day (Beijing time) and
/// compares it with the orders here — payments by out_trade_no and amount, refunds by their
/// day's total per order. A payment here that the bill lacks is queried at the provider before it
/// is reported (a payment just before midnight is on the previous day's bill).
struct Reconciler {
    let api: MerchantAPI

    /// One line of a provider's bill.
    struct BillEntry: Hashable {
        enum Kind: Hashable { case payment, refund }
        let provider: String
        let outTradeNo: String
        let kind: Kind
        let amount: Money
        /// The provider's own number for the line (transaction, refund request), for deduplication.
        let reference: String
    }

    func run(date: String, progress: @Sendable (String) -> Void) async throws -> ReconciliationReport {
        let day = BeijingTime.formatter("yyyy-MM-dd")
        guard let start = day.date(from: date), day.string(from: start) == date else {
            throw PaymentError(.invalidRequest, "date '\(date)' is not a day as YYYY-MM-DD")
        }
        let end = start.addingTimeInterval(86_400)
        let entries = try await bills(date: date, start: start, progress: progress)
        var rows: [String: Int] = [:]
        for entry in entries { rows[entry.provider, default: 0] += 1 }

        var discrepancies: [ReconciliationReport.Discrepancy] = []
        var matched = 0
        func say(_ status: String, _ money: Money) -> String { "\(status) \(money.decimalString) \(money.currency.code)" }

        // The provider's payments against the orders here.
        let payments = entries.filter { $0.kind == .payment }
        var billed = Set<String>()
        for (index, entry) in payments.enumerated() {
            progress("checking payments \(index + 1)/\(payments.count)")
            billed.insert(entry.outTradeNo)
            guard let order = try await api.store.order(outTradeNo: entry.outTradeNo) else {
                discrepancies.append(
                    .init(
                        kind: "missing_here", provider: entry.provider, out_trade_no: entry.outTradeNo, order_id: nil,
                        provider_says: say("paid", entry.amount), here: "no such order"))
                continue
            }
            let here = say(order.status.rawValue, order.total)
            if entry.amount != order.total {
                discrepancies.append(
                    .init(
                        kind: "amount_differs", provider: entry.provider, out_trade_no: entry.outTradeNo, order_id: order.id,
                        provider_says: say("paid", entry.amount), here: here))
            } else if !order.status.hasReceivedMoney {
                discrepancies.append(
                    .init(
                        kind: "status_differs", provider: entry.provider, out_trade_no: entry.outTradeNo, order_id: order.id,
                        provider_says: say("paid", entry.amount), here: here))
            } else {
                matched += 1
            }
        }

        // Payments here the bills do not show: a query decides.
        var notReconciled: [String: Int] = [:]
        let paidHere = try await api.store.transitions(into: [.paid], from: start, until: end)
        for (index, event) in paidHere.enumerated() {
            progress("checking orders paid here \(index + 1)/\(paidHere.count)")
            guard let order = try await api.store.order(id: event.orderID), !billed.contains(order.outTradeNo) else { continue }
            let started = try await api.startedPayment(of: order)
            guard let started, started.provider == "wechat" || started.provider == "alipay" else {
                notReconciled[started?.provider ?? "unknown", default: 0] += 1
                continue
            }
            if (try? await api.confirmedPayment(order, started)) ?? nil != nil {
                matched += 1  // paid at the provider too, on another day's bill
            } else {
                discrepancies.append(
                    .init(
                        kind: "missing_at_provider", provider: started.provider, out_trade_no: order.outTradeNo, order_id: order.id,
                        provider_says: "no payment", here: say(order.status.rawValue, order.total)))
            }
        }

        // Refunds: the day's total per order on each side.
        var billedRefunds: [String: (provider: String, amount: Money)] = [:]
        for entry in entries where entry.kind == .refund {
            let sum = (billedRefunds[entry.outTradeNo]?.amount.minorUnits ?? 0) + entry.amount.minorUnits
            billedRefunds[entry.outTradeNo] = (entry.provider, Money(minorUnits: sum, currency: entry.amount.currency))
        }
        var refundedHere: [String: (order: StoredOrder, minor: Int64, provider: String)] = [:]
        for event in try await api.store.transitions(into: [.partiallyRefunded, .refunded], from: start, until: end)
        where event.kind == "refund" {
            guard let order = try await api.store.order(id: event.orderID),
                let detail = (try? JSONSerialization.jsonObject(with: Data(event.detail.utf8))) as? [String: String],
                let amount = detail["amount"].flatMap({ try? Money(decimal: $0, currency: order.total.currency) })
            else { continue }
            let provider = try await api.startedPayment(of: order)?.provider ?? "unknown"
            refundedHere[order.outTradeNo, default: (order, 0, provider)].minor += amount.minorUnits
        }
        for outTradeNo in Set(billedRefunds.keys).union(refundedHere.keys).sorted() {
            let there = billedRefunds[outTradeNo]
            let here = refundedHere[outTradeNo]
            let currency = there?.amount.currency ?? here?.order.total.currency ?? .cny
            let thereMoney = there?.amount ?? Money(minorUnits: 0, currency: currency)
            let hereMoney = Money(minorUnits: here?.minor ?? 0, currency: currency)
            if thereMoney == hereMoney {
                matched += 1
            } else if here?.provider != "applepay" {
                discrepancies.append(
                    .init(
                        kind: "refund_differs", provider: there?.provider ?? here?.provider ?? "unknown", out_trade_no: outTradeNo,
                        order_id: here?.order.id, provider_says: say("refunded", thereMoney), here: say("refunded", hereMoney)))
            }
        }
        progress("done: \(matched) matched, \(discrepancies.count) discrepancies")
        return ReconciliationReport(
            date: date, bill_rows: rows, matched: matched, not_reconciled: notReconciled, discrepancies: discrepancies)
    }

    /// Every configured provider's bill for the day, as entries; identical lines from WeChat's
    /// v2 and v3 bills (one merchant, one bill) counted once. A day without trades is an empty bill.
    func bills(date: String, start: Date, progress: @Sendable (String) -> Void) async throws -> [BillEntry] {
        var entries: [BillEntry] = []
        func wechat(_ bill: WeChatPay.Bill) -> [BillEntry] {
            bill.rows.map { row in
                row.tradeState == "REFUND"
                    ? BillEntry(
                        provider: "wechat", outTradeNo: row.outTradeNo, kind: .refund, amount: row.refundAmount, reference: row.outRefundNo)
                    : BillEntry(
                        provider: "wechat", outTradeNo: row.outTradeNo, kind: .payment, amount: row.amount, reference: row.transactionID)
            }
        }
        if api.configuration.wechat != nil {
            progress("wechat (API v2): downloading the bill for \(date)")
            do {
                let compact = date.replacingOccurrences(of: "-", with: "")
                entries += wechat(try await api.wechatClient().downloadBill(date: compact))
            } catch let error as PaymentError where error.providerMessage == "No Bill Exist" {
                // No trades that day.
            }
        }
        if api.configuration.wechatV3 != nil {
            progress("wechat (API v3): downloading the bill for \(date)")
            do {
                entries += wechat(try await api.wechatV3Client().tradeBill(date: date))
            } catch let error as PaymentError where error.providerCode == "NO_STATEMENT_EXIST" {
                // No trades that day.
            }
        }
        if api.configuration.alipay != nil {
            progress("alipay: downloading the bill for \(date)")
            do {
                for row in try await api.alipayClient().downloadBill(date: date).rows {
                    entries.append(
                        row.kind == .refund
                            ? BillEntry(
                                provider: "alipay", outTradeNo: row.outTradeNo, kind: .refund,
                                amount: Money(minorUnits: -row.amount.minorUnits, currency: row.amount.currency),
                                reference: row.refundRequestNo)
                            : BillEntry(
                                provider: "alipay", outTradeNo: row.outTradeNo, kind: .payment, amount: row.amount, reference: row.tradeNo))
                }
            } catch let error as PaymentError where error.providerCode == "isp.bill_not_exist" {
                // No bill for that day.
            }
        }
        var seen = Set<BillEntry>()
        return entries.filter { seen.insert($0).inserted }
    }
}
