/// What `cashier reconcile --date` and `GET /v1/reconciliations/{date}` answer: the day's bills
/// from each provider against the orders here, and every trade that does not agree.
public struct ReconciliationReport: Codable, Sendable, Equatable {
    /// One trade on which the provider's bill and this server disagree.
    public struct Discrepancy: Codable, Sendable, Equatable {
        /// `missing_here` (the provider has money for an order this server does not know),
        /// `missing_at_provider` (paid here, but neither the bill nor a query shows it),
        /// `amount_differs`, `status_differs` (paid there, not here), `refund_differs`.
        public let kind: String
        public let provider: String
        public let out_trade_no: String
        public let order_id: String?
        /// What the provider says, e.g. `paid 12.75 CNY`.
        public let provider_says: String
        /// What this server says, e.g. `created 12.75 CNY`.
        public let here: String
    }

    /// `yyyy-MM-dd`, Beijing time (the providers' bill day).
    public let date: String
    /// Rows read from each provider's bill (`wechat`, `alipay`).
    public let bill_rows: [String: Int]
    /// Trades (payments and refunds) on which both sides agree.
    public let matched: Int
    /// Payments here that no bill covers (Apple Pay goes through the merchant's processor), by provider.
    public let not_reconciled: [String: Int]
    public let discrepancies: [Discrepancy]

    /// The report as the table `cashier reconcile` prints.
    public var text: String {
        var lines = ["reconciliation for \(date) (Beijing time)"]
        for (provider, rows) in bill_rows.sorted(by: { $0.key < $1.key }) { lines.append("  \(provider) bill: \(rows) rows") }
        for (provider, count) in not_reconciled.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(provider): \(count) payments not covered by a provider bill (reconcile them with your processor)")
        }
        lines.append("  matched: \(matched)   discrepancies: \(discrepancies.count)")
        if !discrepancies.isEmpty {
            lines.append("")
            lines.append("  KIND                 PROVIDER  OUT_TRADE_NO                      PROVIDER SAYS          HERE")
            for item in discrepancies {
                lines.append(
                    "  "
                        + [
                            item.kind.padded(20), item.provider.padded(8), item.out_trade_no.padded(32), item.provider_says.padded(22),
                            item.here,
                        ]
                        .joined(separator: " "))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension String {
    fileprivate func padded(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
