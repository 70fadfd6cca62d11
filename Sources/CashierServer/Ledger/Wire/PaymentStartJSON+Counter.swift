import Cashier
import CashierStore
import CashierWire

extension PaymentStartJSON {
    /// The answer to a placed attempt: what the adapter placed (`wallet`) and the attempt.
    init(method: PaymentMethod, paymentID: String, outTradeNo: String, api: String?, wallet: WalletParameters?) {
        self.init(method: method.rawValue, payment_id: paymentID, out_trade_no: outTradeNo, api: api, wallet: wallet)
    }

    /// A counter payment's answer.
    init(counter payment: StoredPayment, status: String, api: String?) {
        self.init(
            method: payment.method.rawValue, payment_id: payment.id, out_trade_no: payment.outTradeNo, api: api, wallet: nil,
            status: status, transaction_id: status == "paid" ? payment.transactionID : nil)
    }
}
