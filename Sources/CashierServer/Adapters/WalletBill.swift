import Cashier
import WeChatPay

/// Provider bills as the reconciler's entries.
enum WalletBill {
    /// A WeChat Pay bill (the same for API v2 and v3: one merchant, one bill).
    static func entries(_ bill: WeChatPay.Bill) -> [BillEntry] {
        bill.rows.map { row in
            row.tradeState == "REFUND"
                ? BillEntry(
                    wallet: .wechat, outTradeNo: row.outTradeNo, kind: .refund, amount: row.refundAmount, reference: row.outRefundNo)
                : BillEntry(wallet: .wechat, outTradeNo: row.outTradeNo, kind: .payment, amount: row.amount, reference: row.transactionID)
        }
    }
}
