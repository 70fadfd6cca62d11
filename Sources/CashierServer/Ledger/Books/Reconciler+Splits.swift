import Cashier
import CashierStore
import CashierWire
import Foundation

/// Reconciliation of profit sharing: each provider's profit-sharing bill for the day against the
/// splits here — every share and return the bill lists must be one of this server's, for the same
/// amount and result, and every share that arrived here that day must be on the bill (or the
/// provider, asked, says it finished: one just before midnight is on the next day's bill).
extension Reconciler {
    /// What the day's profit-sharing bills and the splits here agree and disagree on.
    struct SplitCheck {
        var rows: [String: Int] = [:]
        var matched = 0
        var discrepancies: [ReconciliationReport.Discrepancy] = []
    }

    func checkSplits(date: String, from start: Date, until end: Date, progress: @Sendable (String) -> Void) async throws -> SplitCheck {
        var check = SplitCheck()
        let providers: [PaymentProvider] = [.wechatV3, .alipay]
        for provider in providers {
            guard let adapter = ledger.adapters.splitting(provider) else { continue }
            progress("\(provider.rawValue): downloading the profit-sharing bill for \(date)")
            guard let lines = try await adapter.splitBill(date: date) else { continue }
            let wallet = provider.wallet.rawValue
            // A day without a bill leaves the report as it was (no `…_splits` row of 0).
            if !lines.isEmpty { check.rows[wallet + "_splits"] = lines.count }
            func differs(_ kind: String, _ number: String, order: String?, there: String, here: String) {
                check.discrepancies.append(
                    .init(kind: kind, provider: wallet, out_trade_no: number, order_id: order, provider_says: there, here: here))
            }
            func cny(_ minor: Int64) -> String { "\(Money(minorUnits: minor, currency: .cny).decimalString) CNY" }
            var billed = Set<String>()
            for line in lines {
                let split = try await ledger.store.split(provider: provider.rawValue, outOrderNo: line.outOrderNo)
                switch line.kind {
                case .share:
                    billed.insert(line.outOrderNo + "\n" + line.account)
                    guard let split, let share = split.shares.first(where: { $0.account == line.account }) else {
                        differs(
                            "split_missing_here", line.outOrderNo, order: split?.orderID,
                            there: "shared \(cny(line.amountMinor)) to \(line.account)",
                            here: "no such share")
                        continue
                    }
                    let arrived = line.state == "SUCCESS"
                    if share.amountMinor != line.amountMinor || arrived != (share.result == .succeeded) {
                        differs(
                            "split_differs", line.outOrderNo, order: split.orderID,
                            there: "\(line.state) \(cny(line.amountMinor)) to \(line.account)",
                            here: "\(share.result.rawValue) \(cny(share.amountMinor)) to \(share.account)")
                    } else {
                        check.matched += 1
                    }
                case .return:
                    var returns: [StoredSplitReturn] = []
                    if let split { returns = try await ledger.store.splitReturns(orderID: split.orderID) }
                    guard let made = returns.first(where: { $0.outReturnNo == line.outReturnNo }) else {
                        differs(
                            "split_missing_here", line.outReturnNo ?? line.outOrderNo, order: split?.orderID,
                            there: "returned \(cny(line.amountMinor)) from \(line.account)", here: "no such return")
                        continue
                    }
                    if made.amount.minorUnits != line.amountMinor || (line.state == "SUCCESS") != (made.status == .succeeded) {
                        differs(
                            "split_differs", made.outReturnNo, order: made.orderID, there: "\(line.state) \(cny(line.amountMinor))",
                            here: "\(made.status.rawValue) \(cny(made.amount.minorUnits))")
                    } else {
                        check.matched += 1
                    }
                }
            }
            // Shares that arrived here that day and are not on the bill: the provider is asked.
            for split in try await ledger.store.finishedSplits(from: start, until: end) where split.provider == provider.rawValue {
                let missing = split.shares.filter { $0.result == .succeeded && !billed.contains(split.outOrderNo + "\n" + $0.account) }
                guard !missing.isEmpty else { continue }
                let asked = try? await adapter.splitProgress(split)
                for share in missing {
                    if asked?.shares.contains(where: { $0.account == share.account && $0.result == .succeeded }) == true {
                        check.matched += 1  // finished at the provider too, on another day's bill
                    } else {
                        differs(
                            "split_missing_at_provider", split.outOrderNo, order: split.orderID, there: "no such share",
                            here: "succeeded \(cny(share.amountMinor)) to \(share.account)")
                    }
                }
            }
        }
        return check
    }
}
