public import Cashier

extension Alipay {
    /// What `alipay.trade.pay` (scene `bar_code`) answered.
    public enum BarcodeAnswer: Sendable, Equatable {
        /// `10000`: paid at once.
        case paid(amount: Money, tradeNo: String)
        /// `10003`: the payer is confirming on the phone; query until the answer is final.
        case waiting
        /// `20000` or `ACQ.SYSTEM_ERROR`: nobody knows yet; query.
        case unknown(String)
    }
}
