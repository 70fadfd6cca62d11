public import Cashier
import CashierCrypto
import CashierHTTP
import Foundation

/// Refunds a merchant makes in Alipay's merchant center (商家中心), not through the API: Alipay
/// numbers such a refund itself and announces it as it announces every refund — the trade's
/// `trade_status_sync` to its `notify_url`, with `out_biz_no` (the refund's number), `refund_fee`
/// (all refunded so far) and `gmt_refund` — and answers `alipay.trade.fastpay.refund.query` for it
/// by that number. `POST /sandbox/alipay/console_refund {"out_trade_no":"…","amount":"5.00"}`;
/// the notification is filed for replays under the refund's number.
extension AlipaySandbox {
    /// Refunds `amount` (by default all that is left) of the paid trade `outTradeNo` as the merchant
    /// center would, and announces it.
    /// - Returns: the refund's number (`out_biz_no`).
    /// - Throws: `PaymentError` saying why it cannot be made.
    public func consoleRefund(outTradeNo: String, amount: Money? = nil) throws -> String {
        func refused(_ why: String) -> PaymentError { PaymentError(.invalidRequest, provider: .alipay, why) }
        guard var trade = trades[outTradeNo] else { throw refused("no trade \(outTradeNo)") }
        guard trade.status == "TRADE_SUCCESS" else { throw refused("trade \(outTradeNo) is \(trade.status), not paid") }
        // What was settled to royalty receivers is theirs: the merchant center refunds only the rest.
        let refunded =
            trade.refunds.values.filter { !$0.failed }.reduce(Int64(0)) { $0 + $1.amount.minorUnits } + royalty.settled(outTradeNo)
        let value = amount ?? Money(minorUnits: trade.total.minorUnits - refunded, currency: .cny)
        guard value.isPositive, refunded + value.minorUnits <= trade.total.minorUnits else {
            throw refused("trade \(outTradeNo) has less than \(value) left to refund")
        }
        let number = "HZ01RF" + SecureRandom.string(count: 12, alphabet: "0123456789")
        let refund = Refund(amount: value)
        trade.refunds[number] = refund
        trades[outTradeNo] = trade
        if let url = trade.notifyURL { notify(outTradeNo, trade, url, refund: (number, refund)) }
        return number
    }

    nonisolated func registerConsole(on router: inout Router) {
        router.add("POST", "/sandbox/alipay/console_refund") { request, _ in
            guard let object = SandboxControl.object(request),
                let number = object["out_trade_no"] as? String
            else { return SandboxControl.invalid(#"expected {"out_trade_no":"…","amount":"5.00"}"#) }
            var amount: Money?
            if let text = object["amount"] as? String {
                guard let parsed = try? Money(decimal: text, currency: .cny) else {
                    return .error(status: 400, code: "invalid_amount", message: "amount must be a decimal in CNY")
                }
                amount = parsed
            }
            do {
                let refund = try await self.consoleRefund(outTradeNo: number, amount: amount)
                return .json(["out_biz_no": refund, "out_trade_no": number])
            } catch {
                return .error(status: 422, code: "invalid_request", message: (error as? PaymentError)?.message ?? "\(error)")
            }
        }
    }
}
