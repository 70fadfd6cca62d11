import Alipay
import Cashier
import CashierCrypto
import CashierHTTP
public import Foundation

extension AlipaySandbox {
    public func setPasswordDelay(_ seconds: TimeInterval) {
        passwordDelay = seconds
    }

    /// `alipay.trade.pay` with scene `bar_code`: what the payer does is chosen by the code
    /// (``SandboxCounterCode``); a trade paid after a wait is notified, as Alipay does.
    func barcodePay(_ biz: [String: Any], appID: String, notifyURL: String?) -> [String: Any] {
        guard let number = biz["out_trade_no"] as? String, let totalText = biz["total_amount"] as? String,
            let total = try? Money(decimal: totalText, currency: .cny), total.isPositive, let subject = biz["subject"] as? String,
            let code = biz["auth_code"] as? String
        else { return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "参数无效") }
        guard biz["scene"] as? String == "bar_code" || biz["scene"] as? String == "wave_code" else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "scene参数无效")
        }
        guard Alipay.PaymentCode.isValid(code) else {
            return failure("40004", "Business Failed", "ACQ.PAYMENT_AUTH_CODE_INVALID", "支付失败，获取顾客账户信息失败，请顾客刷新付款码后重新收款")
        }
        if let existing = trades[number] {
            switch existing.status {
            case "TRADE_SUCCESS", "TRADE_FINISHED": return failure("40004", "Business Failed", "ACQ.TRADE_HAS_SUCCESS", "交易已被支付")
            case "TRADE_CLOSED": return failure("40004", "Business Failed", "ACQ.TRADE_HAS_CLOSE", "交易已经关闭")
            default: return ["code": "10003", "msg": " order success pay inprocess", "out_trade_no": number, "trade_no": existing.tradeNo]
            }
        }
        let behaviour = SandboxCounterCode(code: code)
        switch behaviour {
        case .balanceTooLow: return failure("40004", "Business Failed", "ACQ.BUYER_BALANCE_NOT_ENOUGH", "买家余额不足")
        case .expired:
            return failure("40004", "Business Failed", "ACQ.PAYMENT_AUTH_CODE_INVALID", "支付失败，获取顾客账户信息失败，请顾客刷新付款码后重新收款")
        default: break
        }
        var trade = Trade(
            appID: appID, subject: subject, total: total, notifyURL: notifyURL,
            tradeNo: "2026" + SecureRandom.string(count: 24, alphabet: "0123456789"), sent: Self.sentFields(biz), authAppID: currentAuthApp)
        switch behaviour {
        case .password, .walksAway:
            trade.payableAt = behaviour == .password ? Date().addingTimeInterval(passwordDelay) : nil
            trades[number] = trade
            return ["code": "10003", "msg": " order success pay inprocess", "out_trade_no": number, "trade_no": trade.tradeNo]
        default:
            trade.status = "TRADE_SUCCESS"
            trade.paid = Date()
            trades[number] = trade
            if behaviour == .systemErrorButPaid { return failure("20000", "Service Currently Unavailable", "isp.unknow-error", "系统繁忙") }
            return success([
                "out_trade_no": number, "trade_no": trade.tradeNo, "total_amount": total.decimalString,
                "receipt_amount": total.decimalString, "buyer_logon_id": "san***@sandbox.example", "buyer_user_id": "2088102000000000",
                "gmt_payment": BeijingTime.string(from: trade.paid ?? Date(), .dateTime),
            ])
        }
    }

    /// A waiting payment-code trade whose payer has confirmed by now is paid (and notified).
    func settleWaiting(_ number: String) {
        guard let trade = trades[number], trade.status == "WAIT_BUYER_PAY", let payableAt = trade.payableAt, payableAt <= Date() else {
            return
        }
        pay(outTradeNo: number, outcome: .success)
    }

    /// `alipay.trade.cancel`: an unpaid trade is closed, a paid one refunded in full.
    func cancel(_ biz: [String: Any]) -> [String: Any] {
        guard let number = biz["out_trade_no"] as? String else { return notFound() }
        settleWaiting(number)
        guard var trade = trades[number] else { return notFound() }
        guard trade.refunds.isEmpty else { return failure("40004", "Business Failed", "ACQ.REASON_TRADE_BEEN_FREEZEN", "交易已退款，不能撤销") }
        let action: String
        switch trade.status {
        case "WAIT_BUYER_PAY": action = "close"
        case "TRADE_SUCCESS": action = "refund"
        default: action = trade.cancelledAfterPayment ? "refund" : "close"
        }
        if trade.status != "TRADE_CLOSED" {
            trade.cancelledAfterPayment = trade.status == "TRADE_SUCCESS"
            trade.status = "TRADE_CLOSED"
            trade.payableAt = nil
            trades[number] = trade
        }
        return success(["out_trade_no": number, "trade_no": trade.tradeNo, "retry_flag": "N", "action": action])
    }
}
