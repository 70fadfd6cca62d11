public import CashierStore

/// What `cashier reconcile --date` and `GET /v1/reconciliations/{date}` answer: the day's bills
/// from each provider against the payments here, every trade that does not agree, and the
/// payments both sides agree on that must still go back to the payer.
public struct ReconciliationReport: Codable, Sendable, Equatable {
    /// A payment on the bill and here that must be refunded: it paid an order another payment had
    /// already paid (or one that was closed). Not a discrepancy: both sides agree it happened.
    public struct RefundRequired: Codable, Sendable, Equatable {
        public let payment_id: String
        public let order_id: String
        public let provider: String
        public let out_trade_no: String
        /// `12.75 CNY`.
        public let amount: String
        /// What refunds have returned of it so far, e.g. `0.00 CNY`.
        public let refunded: String

        public init(_ payment: StoredPayment) {
            payment_id = payment.id
            order_id = payment.orderID
            provider = payment.provider.rawValue
            out_trade_no = payment.outTradeNo
            amount = "\(payment.amount.decimalString) \(payment.amount.currency.code)"
            refunded = "\(payment.refunded.decimalString) \(payment.amount.currency.code)"
        }
    }

    /// One trade on which the provider's bill and this server disagree.
    public struct Discrepancy: Codable, Sendable, Equatable {
        /// `missing_here` (the provider has money for an order this server does not know),
        /// `missing_at_provider` (paid here, but neither the bill nor a query shows it),
        /// `amount_differs`, `status_differs` (paid there, not here), `refund_differs`, `fees_differ`
        /// (the fund-flow bill's fees are not the trade bill's: `provider_says` the fund flow's,
        /// `here` the trade bill's); and for profit sharing (`out_trade_no` is then the split's
        /// `out_order_no` or the return's `out_return_no`): `split_missing_here`,
        /// `split_missing_at_provider`, `split_differs`.
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
    /// Payments recorded as paying twice (or paying a closed order), not yet refunded.
    public let refund_required: [RefundRequired]
    /// The providers' fees on the day's trade bills, by wallet (`0.12 CNY`): charged on payments
    /// less what refunds returned.
    public var fees: [String: String] = [:]
    /// The day's fund-flow bills (the merchant's balance at each provider), by wallet.
    public var fund_flow: [String: FundFlow] = [:]

    /// Money out on the day, from the books, by provider (`wechat`, `alipay`): transfers that
    /// succeeded and profit-sharing shares that arrived. The providers' trade bills do not list
    /// them; their fund-flow bills (``fund_flow``) count them among the expense.
    public var money_out: [String: MoneyOut] = [:]

    /// Money out on one provider's day (amounts like `12.75 CNY`).
    public struct MoneyOut: Codable, Sendable, Equatable {
        public let transfers: Int
        public let transferred: String
        public let shares: Int
        public let shared: String
    }

    /// A day's fund-flow bill, summed (amounts like `12.75 CNY`).
    public struct FundFlow: Codable, Sendable, Equatable {
        /// Movements on the bill.
        public let rows: Int
        /// Money in: payments, fees returned.
        public let income: String
        /// Money out: refunds, fees.
        public let expense: String
        /// Fees charged less fees returned; must equal ``ReconciliationReport/fees`` for the wallet.
        public let fees: String
    }

    /// The report as the table `cashier reconcile` prints.
    public var text: String {
        var lines = ["reconciliation for \(date) (Beijing time)"]
        for (provider, rows) in bill_rows.sorted(by: { $0.key < $1.key }) { lines.append("  \(provider) bill: \(rows) rows") }
        for (provider, count) in not_reconciled.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(provider): \(count) payments not covered by a provider bill (reconcile them with your processor)")
        }
        for (wallet, fee) in fees.sorted(by: { $0.key < $1.key }) { lines.append("  \(wallet) fees on the bill: \(fee)") }
        for (wallet, flow) in fund_flow.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(wallet) fund flow: \(flow.rows) movements, in \(flow.income), out \(flow.expense), fees \(flow.fees)")
        }
        for (provider, out) in money_out.sorted(by: { $0.key < $1.key }) {
            lines.append(
                "  \(provider) money out (from the books): \(out.transfers) transfers \(out.transferred), \(out.shares) shares \(out.shared)"
            )
        }
        lines.append("  matched: \(matched)   discrepancies: \(discrepancies.count)   to refund: \(refund_required.count)")
        for item in refund_required {
            lines.append(
                "  refund required: \(item.provider) \(item.out_trade_no) \(item.amount) (refunded \(item.refunded)), payment \(item.payment_id) of \(item.order_id)"
            )
        }
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
