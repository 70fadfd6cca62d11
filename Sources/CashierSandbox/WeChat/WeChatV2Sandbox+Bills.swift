import Cashier
import CashierCrypto
import Foundation
import WeChatPay

extension WeChatV2Sandbox {
    /// The day's bill as WeChat's CSV, or `return_code` FAIL "No Bill Exist".
    func bill(_ request: WeChatPay.V2.XMLDocument, merchant: WeChatPay.V2.Merchant) -> String {
        guard let date = request["bill_date"], date.count == 8 else { return Self.failReturn("invalid bill_date") }
        let rows = billRows(date: date, mchID: merchant.mchID)
        guard !rows.isEmpty else { return Self.failReturn("No Bill Exist") }
        return WeChatPay.Bill(rows: rows).text
    }

    /// The day's fund-flow bill (`pay/downloadfundflow`): HMAC-SHA256 only, as WeChat requires.
    func fundFlow(_ request: WeChatPay.V2.XMLDocument, merchant: WeChatPay.V2.Merchant, signType: WeChatPay.V2.SignType) -> String {
        guard signType == .hmacSHA256 else { return Self.failReturn("sign_type参数错误，资金账单仅支持HMAC-SHA256") }
        guard let date = request["bill_date"], date.count == 8 else { return Self.failReturn("invalid bill_date") }
        let movements = movements(date: date, mchID: merchant.mchID)
        guard !movements.isEmpty else { return Self.failReturn("No Bill Exist") }
        return SandboxFees.wechatFundFlow(movements).text
    }

    /// Payments and refunds of `date` (`yyyyMMdd`) as balance movements.
    func movements(date: String, mchID: String) -> [SandboxFees.Movement] {
        let compact = BeijingTime.formatter("yyyyMMddHHmmss")
        var movements: [SandboxFees.Movement] = []
        for (number, order) in orders where order.merchant.mchID == mchID {
            if let paid = order.timeEnd, paid.hasPrefix(date), !order.reversedAfterPayment, let at = compact.date(from: paid) {
                movements.append(
                    .init(at: at, payment: true, amount: order.totalFee, businessID: order.transactionID ?? "", reference: number))
            }
            for refund in order.refunds where refund.time.hasPrefix(date) && refund.status == "SUCCESS" {
                guard let at = compact.date(from: refund.time) else { continue }
                movements.append(
                    .init(at: at, payment: false, amount: refund.fee, businessID: refund.refundID, reference: refund.outRefundNo))
            }
        }
        return movements
    }

    /// Payments and refunds of `date` (`yyyyMMdd`), as bill rows.
    func billRows(date: String, mchID: String) -> [WeChatPay.Bill.Row] {
        var rows: [WeChatPay.Bill.Row] = []
        for (number, order) in orders.sorted(by: { $0.key < $1.key }) where order.merchant.mchID == mchID {
            let currency = (try? Currency(code: order.fields["fee_type"] ?? "CNY")) ?? .cny
            let amount = Money(minorUnits: order.totalFee, currency: currency)
            func row(_ time: String, _ state: String, _ refund: Refund?) -> WeChatPay.Bill.Row {
                WeChatPay.Bill.Row(
                    tradeTime: Self.billTime(time), appID: order.merchant.appID, mchID: mchID, transactionID: order.transactionID ?? "",
                    outTradeNo: number, tradeState: state, amount: amount,
                    refundAmount: Money(minorUnits: refund?.fee ?? 0, currency: currency), outRefundNo: refund?.outRefundNo ?? "",
                    subject: order.fields["body"] ?? "",
                    fee: Money(minorUnits: refund.map { -SandboxFees.fee($0.fee) } ?? SandboxFees.fee(order.totalFee), currency: currency))
            }
            // A payment reversed after it was paid went back whole: no money moved that day.
            if let paid = order.timeEnd, paid.hasPrefix(date), !order.reversedAfterPayment { rows.append(row(paid, "SUCCESS", nil)) }
            for refund in order.refunds where refund.time.hasPrefix(date) && refund.status == "SUCCESS" {
                rows.append(row(refund.time, "REFUND", refund))
            }
        }
        return rows
    }

    static func billTime(_ compact: String) -> String {
        let c = Array(compact)
        guard c.count == 14 else { return compact }
        return
            "\(String(c[0..<4]))-\(String(c[4..<6]))-\(String(c[6..<8])) \(String(c[8..<10])):\(String(c[10..<12])):\(String(c[12..<14]))"
    }
}
