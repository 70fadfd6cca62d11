import Cashier
import CashierCrypto
import Foundation

/// Transfers to Alipay accounts (单笔转账) as Alipay answers them: `alipay.fund.trans.uni.transfer`
/// pays at once (`SUCCESS`) from the app's balance, the same `out_biz_no` with the same amount and
/// payee answers the same transfer and another is refused (`PAYMENT_INFO_INCONSISTENCY`), at least
/// 0.10 and at most 50,000 yuan a transfer, a logon id needs the payee's name; and
/// `alipay.fund.trans.common.query` reads one (`ORDER_NOT_EXIST` otherwise).
extension AlipaySandbox {
    /// One transfer, by app and `out_biz_no`.
    struct Transfer: Sendable {
        let appID: String
        let outBizNo: String
        let orderID: String
        let payFundOrderID: String
        let amount: Money
        let identity: String
        let identityType: String
        let name: String?
        let date: String
    }

    /// What each app starts with to transfer from (1,000,000 yuan).
    static let openingTransferBalance: Int64 = 100_000_000
    /// The most one transfer to a person may be (50,000 yuan).
    static let transferLimit: Int64 = 5_000_000

    func uniTransfer(_ biz: [String: Any], appID: String) -> [String: Any] {
        guard let number = biz["out_biz_no"] as? String, !number.isEmpty, number.utf8.count <= 64 else {
            return failure("40004", "Business Failed", "INVALID_PARAMETER", "out_biz_no无效")
        }
        guard biz["product_code"] as? String == "TRANS_ACCOUNT_NO_PWD", biz["biz_scene"] as? String == "DIRECT_TRANSFER" else {
            return failure(
                "40004", "Business Failed", "PRODUCT_NOT_SIGNED", "产品未签约 (the sandbox has TRANS_ACCOUNT_NO_PWD / DIRECT_TRANSFER)")
        }
        guard let text = biz["trans_amount"] as? String, let amount = try? Money(decimal: text, currency: .cny), amount.minorUnits >= 10
        else { return failure("40004", "Business Failed", "EXCEED_LIMIT_SM_MIN_AMOUNT", "单笔最低转账金额0.1元") }
        guard amount.minorUnits <= Self.transferLimit else {
            return failure("40004", "Business Failed", "EXCEED_LIMIT_SM_AMOUNT", "转账给个人支付宝账户单笔最多5万元")
        }
        guard let payee = biz["payee_info"] as? [String: Any], let identity = payee["identity"] as? String, !identity.isEmpty,
            let type = payee["identity_type"] as? String, ["ALIPAY_USER_ID", "ALIPAY_OPEN_ID", "ALIPAY_LOGON_ID"].contains(type)
        else { return failure("40004", "Business Failed", "PAYEE_NOT_EXIST", "收款账号不存在") }
        let name = payee["name"] as? String
        if type == "ALIPAY_LOGON_ID", name?.isEmpty ?? true {
            return failure("40004", "Business Failed", "PAYEE_USER_INFO_ERROR", "支付宝登录号转账须传收款方姓名")
        }
        let key = appID + "/" + number
        if let existing = transfers[key] {
            guard existing.amount == amount, existing.identity == identity, existing.identityType == type, existing.name == name else {
                return failure("40004", "Business Failed", "PAYMENT_INFO_INCONSISTENCY", "两次请求商户单号一样，但是参数不一致")
            }
            return success(Self.answer(existing))
        }
        let balance = transferBalances[appID] ?? Self.openingTransferBalance
        guard balance >= amount.minorUnits else { return failure("40004", "Business Failed", "BALANCE_IS_NOT_ENOUGH", "余额不足") }
        transferBalances[appID] = balance - amount.minorUnits
        let transfer = Transfer(
            appID: appID, outBizNo: number, orderID: "2026" + SecureRandom.string(count: 28, alphabet: "0123456789"),
            payFundOrderID: "2026" + SecureRandom.string(count: 28, alphabet: "0123456789"), amount: amount, identity: identity,
            identityType: type, name: name, date: BeijingTime.string(from: Date(), .dateTime))
        transfers[key] = transfer
        return success(Self.answer(transfer))
    }

    func transferQuery(_ biz: [String: Any], appID: String) -> [String: Any] {
        guard
            let number = biz["out_biz_no"] as? String
                ?? (biz["order_id"] as? String).flatMap({ id in
                    transfers.values.first { $0.orderID == id && $0.appID == appID }?.outBizNo
                }),
            let transfer = transfers[appID + "/" + number]
        else { return failure("40004", "Business Failed", "ORDER_NOT_EXIST", "转账订单不存在") }
        var answer = Self.answer(transfer)
        answer["pay_date"] = transfer.date
        answer["order_fee"] = "0.00"
        return success(answer)
    }

    static func answer(_ transfer: Transfer) -> [String: Any] {
        [
            "out_biz_no": transfer.outBizNo, "order_id": transfer.orderID, "pay_fund_order_id": transfer.payFundOrderID,
            "status": "SUCCESS", "trans_date": transfer.date, "trans_amount": transfer.amount.decimalString,
        ]
    }

    /// What `appID` has left to transfer from, in fen.
    public func transferBalance(appID: String) -> Int64 {
        transferBalances[appID] ?? Self.openingTransferBalance
    }
}
