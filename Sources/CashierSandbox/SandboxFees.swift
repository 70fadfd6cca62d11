import Cashier
import Foundation
import WeChatPay

/// What the sandboxes charge merchants, so bills and statements carry fees as real ones do:
/// 0.6 % of a payment, rounded half up to the fen, returned in proportion when it is refunded.
enum SandboxFees {
    /// The fee on `minor` fen.
    static func fee(_ minor: Int64) -> Int64 { (minor * 6 + 500) / 1000 }

    /// One movement of a merchant's balance, in the order they happened.
    struct Movement {
        let at: Date
        /// Paid (`true`) or refunded (`false`).
        let payment: Bool
        let amount: Int64
        /// WeChat's transaction or refund id.
        let businessID: String
        /// The merchant's trade or refund number.
        let reference: String
    }

    /// A WeChat Pay fund-flow bill of `movements` (already those of one day): each payment in
    /// with its fee out, each refund out with its fee back, and the balance after each.
    static func wechatFundFlow(_ movements: [Movement]) -> WeChatPay.FundFlowBill {
        let time = BeijingTime.formatter("yyyy-MM-dd HH:mm:ss")
        var balance: Int64 = 0
        var rows: [WeChatPay.FundFlowBill.Row] = []
        func row(_ movement: Movement, _ name: String, income: Bool, _ amount: Int64, _ part: Int) {
            balance += income ? amount : -amount
            rows.append(
                .init(
                    time: time.string(from: movement.at), businessID: movement.businessID,
                    flowID: "\(movement.businessID)-\(part)", name: name, type: movement.payment ? "交易" : "退款",
                    direction: income ? "收入" : "支出", amount: Money(minorUnits: amount, currency: .cny),
                    balance: Money(minorUnits: balance, currency: .cny), reference: movement.reference))
        }
        for movement in movements.sorted(by: { $0.at < $1.at }) {
            if movement.payment {
                row(movement, "交易", income: true, movement.amount, 1)
                row(movement, "扣除交易手续费", income: false, fee(movement.amount), 2)
            } else {
                row(movement, "退款", income: false, movement.amount, 1)
                row(movement, "退还交易手续费", income: true, fee(movement.amount), 2)
            }
        }
        return WeChatPay.FundFlowBill(rows: rows.filter { $0.amount.isPositive })
    }
}
