import Cashier
import CashierCrypto
public import Foundation
import WeChatPay

extension WeChatV2Sandbox {
    public func setPasswordDelay(_ seconds: TimeInterval) {
        passwordDelay = seconds
    }

    /// `pay/micropay`: the payer's payment code, scanned at the counter (no notification follows;
    /// the merchant queries). What the payer does is chosen by the code (``SandboxCounterCode``).
    func micropay(
        _ request: WeChatPay.V2.XMLDocument, merchant: WeChatPay.V2.Merchant, signType: WeChatPay.V2.SignType
    ) -> Result<[(String, String)], BusinessError> {
        for name in ["body", "out_trade_no", "total_fee", "spbill_create_ip", "auth_code"] where (request[name] ?? "").isEmpty {
            return .failure(BusinessError("PARAM_ERROR", "缺少参数\(name)"))
        }
        let outTradeNo = request["out_trade_no"]!
        guard TradeNumber.isValid(outTradeNo, for: .wechat) else { return .failure(BusinessError("PARAM_ERROR", "out_trade_no参数格式错误")) }
        guard let fee = Int64(request["total_fee"]!), fee > 0 else { return .failure(BusinessError("PARAM_ERROR", "total_fee参数格式错误")) }
        let code = request["auth_code"]!
        guard WeChatPay.PaymentCode.isValid(code) else { return .failure(BusinessError("AUTH_CODE_INVALID", "请扫描微信支付授权码")) }
        if let existing = orders[outTradeNo] {
            switch existing.state {
            case "SUCCESS", "REFUND": return .failure(BusinessError("ORDERPAID", "该订单已支付"))
            case "CLOSED": return .failure(BusinessError("ORDERCLOSED", "该订单已关闭"))
            case "REVOKED": return .failure(BusinessError("ORDERREVERSED", "当前订单已经被撤销"))
            case "USERPAYING": return .failure(BusinessError("USERPAYING", "需要用户输入支付密码"))
            default: return .failure(BusinessError("OUT_TRADE_NO_USED", "商户订单号重复"))
            }
        }
        var fields: [String: String] = ["trade_type": "MICROPAY"]
        for name in Self.businessFields + ["auth_code"] where name != "trade_type" { fields[name] = request[name] }
        var order = Order(merchant: merchant, signType: signType, fingerprint: "", fields: fields, prepayID: "")
        let behaviour = SandboxCounterCode(code: code)
        switch behaviour {
        case .balanceTooLow: return .failure(BusinessError("NOTENOUGH", "用户帐号余额不足"))
        case .expired: return .failure(BusinessError("AUTHCODEEXPIRE", "二维码已过期，请用户在微信上刷新后再试"))
        case .password, .walksAway:
            order.state = "USERPAYING"
            order.payableAt = behaviour == .password ? Date().addingTimeInterval(passwordDelay) : nil
            orders[outTradeNo] = order
            return .failure(BusinessError("USERPAYING", "需要用户输入支付密码"))
        case .paysAtOnce, .systemErrorButPaid:
            order.state = "SUCCESS"
            order.transactionID = "42000" + Self.timestamp() + SecureRandom.string(count: 9, alphabet: "0123456789")
            order.timeEnd = Self.timestamp()
            orders[outTradeNo] = order
            if behaviour == .systemErrorButPaid { return .failure(BusinessError("SYSTEMERROR", "系统超时")) }
            return .success([
                ("out_trade_no", outTradeNo), ("transaction_id", order.transactionID ?? ""), ("total_fee", String(fee)),
                ("fee_type", fields["fee_type"] ?? "CNY"), ("cash_fee", String(fee)), ("trade_type", "MICROPAY"),
                ("openid", "oSandboxPayer000000000000000"), ("bank_type", "CFT"), ("time_end", order.timeEnd ?? ""),
            ])
        }
    }

    /// A waiting payment-code payment whose payer has entered the password by now is paid.
    func settleWaiting(_ outTradeNo: String) {
        guard var order = orders[outTradeNo], order.state == "USERPAYING", let payableAt = order.payableAt, payableAt <= Date() else {
            return
        }
        order.state = "SUCCESS"
        order.transactionID = "42000" + Self.timestamp() + SecureRandom.string(count: 9, alphabet: "0123456789")
        order.timeEnd = Self.timestamp()
        orders[outTradeNo] = order
    }

    /// `secapi/pay/reverse`: an unpaid payment-code payment is closed, a paid one refunded in full.
    func reverse(_ request: WeChatPay.V2.XMLDocument) -> Result<[(String, String)], BusinessError> {
        guard let key = find(request), var order = orders[key] else { return .failure(BusinessError("ORDERNOTEXIST", "订单不存在")) }
        settleWaiting(key)
        order = orders[key] ?? order
        guard order.fields["trade_type"] == "MICROPAY" else {
            return .failure(BusinessError("TRADE_ERROR", "非付款码支付订单不能撤销，请使用关单或退款接口"))
        }
        switch order.state {
        case "REFUND": return .failure(BusinessError("REVERSE_EXPIRE", "订单已退款，不能撤销"))
        case "REVOKED": break
        default:
            order.reversedAfterPayment = order.state == "SUCCESS"
            order.state = "REVOKED"
            order.payableAt = nil
            orders[key] = order
        }
        return .success([("recall", "N")])
    }
}
