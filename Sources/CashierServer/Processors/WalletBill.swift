import Cashier
import WeChatPay

/// Provider bills as the reconciler's entries.
enum WalletBill {
    /// A WeChat Pay bill (the same for API v2 and v3: one merchant, one bill), read a row at a time.
    static func lines(_ reader: WeChatPay.Bill.Reader) -> BillLines {
        var reader = reader
        return BillLines { try reader.next().map(entry) }
    }

    /// A WeChat Pay bill's row as the reconciler's entry.
    static func entry(_ row: WeChatPay.Bill.Row) -> BillEntry {
        row.tradeState == "REFUND"
            ? BillEntry(
                wallet: .wechat, outTradeNo: row.outTradeNo, kind: .refund, amount: row.refundAmount, reference: row.outRefundNo,
                fee: row.fee)
            : BillEntry(
                wallet: .wechat, outTradeNo: row.outTradeNo, kind: .payment, amount: row.amount, reference: row.transactionID,
                fee: row.fee)
    }

    /// A WeChat Pay fund-flow bill's movements.
    static func movements(_ bill: WeChatPay.FundFlowBill) -> [FundFlowMovement] {
        bill.rows.map { row in
            FundFlowMovement(
                id: row.flowID,
                amount: row.isIncome ? row.amount : Money(minorUnits: -row.amount.minorUnits, currency: row.amount.currency),
                isFee: row.isFee)
        }
    }
}
