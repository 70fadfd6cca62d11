import Cashier
import CashierStore
import CashierWire
import Foundation

/// Reconciliation: downloads each configured provider's trade bill for a day (Beijing time) and
/// compares it with the payment and refund records here — every bill line with the payment that
/// has its trade number at that wallet, refunds by their day's total per payment. A payment here
/// that the bill lacks is queried at the provider before it is reported (one just before
/// midnight is on the previous day's bill). A payment that paid an order a second time is on the
/// bill and here: it is matched, and listed under `refund_required` until it is refunded.
struct Reconciler {
    let ledger: Ledger

    private struct Key: Hashable {
        let wallet: PaymentMethod.Wallet
        let outTradeNo: String
    }

    func run(date: String, progress: @Sendable (String) -> Void) async throws -> ReconciliationReport {
        let day = BeijingTime.formatter("yyyy-MM-dd")
        guard date.utf8.count == 10, let year = Int(date.prefix(4)), (2000...2100).contains(year), let start = day.date(from: date),
            day.string(from: start) == date
        else {
            throw RequestProblem("date '\(date)' is not a day as YYYY-MM-DD (2000 to 2100)")
        }
        let end = start.addingTimeInterval(86_400)

        var discrepancies: [ReconciliationReport.Discrepancy] = []
        var flagged: [ReconciliationReport.RefundRequired] = []
        var matched = 0
        func say(_ status: String, _ money: Money) -> String { "\(status) \(money.decimalString) \(money.currency.code)" }
        func discrepancy(_ kind: String, _ entry: BillEntry, order: String?, provider: String, here: String) {
            discrepancies.append(
                .init(
                    kind: kind, provider: entry.wallet.rawValue, out_trade_no: entry.outTradeNo, order_id: order,
                    provider_says: provider, here: here))
        }

        // The bills, read a line at a time: of each line only what the report needs is kept — the
        // rows and fees by wallet, the refunds by payment, the payments' numbers (for the payments
        // here the bills lack) and, where a wallet has two bills (WeChat Pay's v2 and v3 of one
        // merchant), a digest to count a line on both once: 16 bytes a line, kept only where
        // needed (a million lines' digests are 64 MB in a set). The payment lines
        // are checked against the payments here a thousand at a time, and the next thousand are
        // read from the bill while the store reads those: parsing and the store's reads take
        // turns on two cores instead of one (`cashier-bench scale`, `scale-reconcile`).
        var rows: [PaymentMethod.Wallet: Int] = [:]
        var fees: [PaymentMethod.Wallet: Money] = [:]
        var billedRefunds: [Key: Money] = [:]
        var seen = Set<BillLineDigest>()
        var counted = Set<BillLineDigest>()
        var billed = Set<PaymentMethod.Wallet>()
        var accounts = Set<String>()
        var checked = 0
        var trades: [PaymentMethod.Wallet: Set<String>] = [:]
        for adapter in ledger.adapters.reconciling { trades[adapter.provider.wallet, default: []].insert(adapter.billAccount.trades) }
        let twoBills = Set(trades.filter { $0.value.count > 1 }.keys)

        /// Up to ``linesPerRead`` payment lines from `lines`, the refund lines between them summed
        /// as they are met; fewer only at the bill's end.
        func nextPayments(_ lines: inout BillLines) throws -> [BillEntry] {
            var batch: [BillEntry] = []
            batch.reserveCapacity(Self.linesPerRead)
            while batch.count < Self.linesPerRead, let entry = try lines.next() {
                // Identical lines (WeChat's v2 and v3 bills of one merchant) count once.
                guard !twoBills.contains(entry.wallet) || counted.insert(BillLineDigest(entry)).inserted else { continue }
                rows[entry.wallet, default: 0] += 1
                if let fee = entry.fee {
                    fees[entry.wallet] = Money(minorUnits: (fees[entry.wallet]?.minorUnits ?? 0) + fee.minorUnits, currency: fee.currency)
                }
                if entry.kind == .refund {
                    let key = Key(wallet: entry.wallet, outTradeNo: entry.outTradeNo)
                    billedRefunds[key] = Money(
                        minorUnits: (billedRefunds[key]?.minorUnits ?? 0) + entry.amount.minorUnits, currency: entry.amount.currency)
                    continue
                }
                batch.append(entry)
            }
            return batch
        }

        /// The provider's payments against the payments here.
        func check(_ batch: [BillEntry], against found: [PaymentMethod.Wallet: [String: StoredPayment]]) async throws {
            for entry in batch {
                seen.insert(BillLineDigest(Key(wallet: entry.wallet, outTradeNo: entry.outTradeNo)))
                guard let payment = found[entry.wallet]?[entry.outTradeNo] else {
                    // Paid at the provider under an order's number that no payment here was placed with.
                    if let order = try await ledger.store.order(outTradeNo: entry.outTradeNo) {
                        discrepancy(
                            entry.amount == order.total ? "status_differs" : "amount_differs", entry, order: order.id,
                            provider: say("paid", entry.amount), here: say(order.status.rawValue, order.total))
                    } else {
                        discrepancy("missing_here", entry, order: nil, provider: say("paid", entry.amount), here: "no such order")
                    }
                    continue
                }
                let here = say(payment.status.rawValue, payment.amount)
                if entry.amount != payment.amount {
                    discrepancy("amount_differs", entry, order: payment.orderID, provider: say("paid", entry.amount), here: here)
                } else if payment.status != .succeeded {
                    discrepancy("status_differs", entry, order: payment.orderID, provider: say("paid", entry.amount), here: here)
                } else {
                    matched += 1
                    if payment.refundRequired { flagged.append(.init(payment)) }
                }
            }
        }

        for adapter in ledger.adapters.reconciling where accounts.insert(adapter.billAccount.trades).inserted {
            progress("\(adapter.provider.rawValue): downloading the bill for \(date)")
            guard var lines = try await adapter.bill(date: date) else { continue }
            billed.insert(adapter.provider.wallet)
            // A batch's payments here are read in a few statements, not one each, while the next
            // batch is parsed and the one before is checked: the store's reads run beside the
            // parsing on another core, one batch ahead.
            var batch = try nextPayments(&lines)
            var reading = read(batch)
            defer { reading?.cancel() }
            while !batch.isEmpty {
                progress("checking payments \(checked + 1)–\(checked + batch.count)")
                let following = try nextPayments(&lines)
                let found = try await reading?.value ?? [:]
                reading = read(following)
                try await check(batch, against: found)
                checked += batch.count
                batch = following
            }
        }

        // Payments here the bills do not show: a query decides.
        var notReconciled: [String: Int] = [:]
        var checkedHere = 0
        var page = try await ledger.store.succeededPayments(from: start, until: end, after: nil, limit: Self.linesPerRead)
        while let last = page.last {
            progress("checking payments made here \(checkedHere + 1)–\(checkedHere + page.count)")
            checkedHere += page.count
            let payments = page
            page =
                payments.count < Self.linesPerRead
                ? [] : try await ledger.store.succeededPayments(from: start, until: end, after: last, limit: Self.linesPerRead)
            for payment in payments {
                guard !seen.contains(BillLineDigest(Key(wallet: payment.method.wallet, outTradeNo: payment.outTradeNo))) else { continue }
                guard billed.contains(payment.method.wallet) else {
                    notReconciled[payment.method.wallet.rawValue, default: 0] += 1
                    continue
                }
                if case .paid? = try? await ledger.adapters.adapter(for: payment).query(payment) {
                    matched += 1  // paid at the provider too, on another day's bill
                    if payment.refundRequired { flagged.append(.init(payment)) }
                } else {
                    discrepancies.append(
                        .init(
                            kind: "missing_at_provider", provider: payment.method.wallet.rawValue, out_trade_no: payment.outTradeNo,
                            order_id: payment.orderID, provider_says: "no payment", here: say("succeeded", payment.amount)))
                }
            }
        }

        // Refunds: the day's total per payment on each side.
        var refundedHere: [Key: (payment: StoredPayment, minor: Int64)] = [:]
        for refund in try await ledger.store.succeededRefunds(from: start, until: end) {
            guard let payment = try await ledger.store.payment(id: refund.paymentID), billed.contains(payment.method.wallet) else {
                continue
            }
            refundedHere[Key(wallet: payment.method.wallet, outTradeNo: payment.outTradeNo), default: (payment, 0)].minor +=
                refund.amount.minorUnits
        }
        for key in Set(billedRefunds.keys).union(refundedHere.keys).sorted(by: {
            ($0.wallet.rawValue, $0.outTradeNo) < ($1.wallet.rawValue, $1.outTradeNo)
        }) {
            let here = refundedHere[key]
            let currency = billedRefunds[key]?.currency ?? here?.payment.amount.currency ?? .cny
            let there = billedRefunds[key] ?? Money(minorUnits: 0, currency: currency)
            let hereMoney = Money(minorUnits: here?.minor ?? 0, currency: currency)
            if there == hereMoney {
                matched += 1
            } else {
                discrepancies.append(
                    .init(
                        kind: "refund_differs", provider: key.wallet.rawValue, out_trade_no: key.outTradeNo,
                        order_id: here?.payment.orderID,
                        provider_says: say("refunded", there), here: say("refunded", hereMoney)))
            }
        }
        // Fees: the trade bills' against the fund-flow bills' (the balance the provider actually moved).
        let flows = try await fundFlows(date: date, progress: progress)
        for (wallet, flow) in flows.sorted(by: { $0.key < $1.key }) {
            let billed = PaymentMethod.Wallet(rawValue: wallet).flatMap { fees[$0] } ?? .zero(.cny)
            if flow.fees != billed.minorUnits {
                discrepancies.append(
                    .init(
                        kind: "fees_differ", provider: wallet, out_trade_no: "", order_id: nil,
                        provider_says: say("fund flow: fees", Money(minorUnits: flow.fees, currency: .cny)),
                        here: say("trade bill: fees", billed)))
            }
        }
        // Profit sharing: each provider's profit-sharing bill against the splits here.
        let splits = try await checkSplits(date: date, from: start, until: end, progress: progress)
        matched += splits.matched
        discrepancies += splits.discrepancies
        progress("done: \(matched) matched, \(discrepancies.count) discrepancies, \(flagged.count) to refund")
        var report = ReconciliationReport(
            date: date,
            bill_rows: Dictionary(uniqueKeysWithValues: rows.map { ($0.key.rawValue, $0.value) }).merging(splits.rows) { $1 },
            matched: matched,
            not_reconciled: notReconciled, discrepancies: discrepancies,
            refund_required: flagged)
        report.fees = Dictionary(
            uniqueKeysWithValues: fees.map { ($0.key.rawValue, "\($0.value.decimalString) \($0.value.currency.code)") })
        report.fund_flow = flows.mapValues { flow in
            func cny(_ minor: Int64) -> String { "\(Money(minorUnits: minor, currency: .cny).decimalString) CNY" }
            return .init(rows: flow.rows, income: cny(flow.income), expense: cny(flow.expense), fees: cny(flow.fees))
        }
        report.money_out = try await moneyOut(from: start, until: end)
        return report
    }

    /// The day's transfers that succeeded and shares that arrived, by provider, from the books.
    private func moneyOut(from start: Date, until end: Date) async throws -> [String: ReconciliationReport.MoneyOut] {
        var totals: [String: (transfers: Int, transferred: Int64, shares: Int, shared: Int64)] = [:]
        for transfer in try await ledger.store.finishedTransfers(from: start, until: end) where transfer.status == .succeeded {
            totals[ReceiverJSON.apiProvider(transfer.provider), default: (0, 0, 0, 0)].transfers += 1
            totals[ReceiverJSON.apiProvider(transfer.provider), default: (0, 0, 0, 0)].transferred += transfer.amount.minorUnits
        }
        for split in try await ledger.store.finishedSplits(from: start, until: end) {
            for share in split.shares where share.result == .succeeded {
                totals[ReceiverJSON.apiProvider(split.provider), default: (0, 0, 0, 0)].shares += 1
                totals[ReceiverJSON.apiProvider(split.provider), default: (0, 0, 0, 0)].shared += share.amountMinor
            }
        }
        func cny(_ minor: Int64) -> String { "\(Money(minorUnits: minor, currency: .cny).decimalString) CNY" }
        return totals.mapValues {
            .init(transfers: $0.transfers, transferred: cny($0.transferred), shares: $0.shares, shared: cny($0.shared))
        }
    }

    /// Bill lines whose payments are read together.
    static let linesPerRead = 1000

    /// The payments here of `lines`, by wallet and number (a few reads: one per wallet and hundred
    /// lines), read by a task of its own; `nil` for no lines.
    private func read(_ lines: [BillEntry]) -> Task<[PaymentMethod.Wallet: [String: StoredPayment]], any Error>? {
        guard !lines.isEmpty else { return nil }
        return Task {
            var found: [PaymentMethod.Wallet: [String: StoredPayment]] = [:]
            for wallet in Set(lines.map(\.wallet)) {
                found[wallet] = try await ledger.store.payments(
                    wallet: wallet, outTradeNos: lines.compactMap { $0.wallet == wallet ? $0.outTradeNo : nil })
            }
            return found
        }
    }

    /// A wallet's fund-flow bill for the day, summed: what came in, what went out, the fees within.
    struct FundFlowTotals {
        var rows = 0
        var income: Int64 = 0
        var expense: Int64 = 0
        /// Fees charged less fees returned.
        var fees: Int64 = 0
    }

    /// Each wallet's fund-flow bills for the day, summed; a movement on two bills (WeChat Pay's v2
    /// and v3 describe one account) counted once.
    private func fundFlows(date: String, progress: @Sendable (String) -> Void) async throws -> [String: FundFlowTotals] {
        var flows: [String: FundFlowTotals] = [:]
        var seen = Set<FundFlowMovement>()
        var accounts = Set<String>()
        for adapter in ledger.adapters.reconciling where accounts.insert(adapter.billAccount.funds).inserted {
            progress("\(adapter.provider.rawValue): downloading the fund-flow bill for \(date)")
            guard let movements = try await adapter.fundFlow(date: date) else { continue }
            let wallet = adapter.provider.wallet.rawValue
            var totals = flows[wallet] ?? FundFlowTotals()
            for movement in movements where seen.insert(movement).inserted {
                totals.rows += 1
                let minor = movement.amount.minorUnits
                if minor >= 0 { totals.income += minor } else { totals.expense -= minor }
                if movement.isFee { totals.fees -= minor }
            }
            flows[wallet] = totals
        }
        return flows
    }
}
