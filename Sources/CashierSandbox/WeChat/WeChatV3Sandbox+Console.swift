import Cashier
import Foundation

/// Refunds a merchant makes in WeChat Pay's merchant platform (商户平台) for an API v3 order:
/// WeChat numbers the refund itself (its `out_refund_no` is its `refund_id`) and announces it as
/// `REFUND.SUCCESS` (or `REFUND.CLOSED` / `REFUND.ABNORMAL`: no money moves) to the refund
/// notification URL set in the platform. Made through `POST /sandbox/wechat/console_refund`
/// (``WeChatV2Sandbox/registerConsole(on:v3:)``).
extension WeChatV3Sandbox {
    /// Refunds `amount` (minor units; by default all that is left) of the paid order `outTradeNo`
    /// as the merchant platform would, and announces it to `notifyURL`.
    /// - Returns: the refund's `out_refund_no`.
    /// - Throws: `PaymentError` saying why it cannot be made.
    public func consoleRefund(outTradeNo: String, amount: Int64? = nil, notifyURL: String, status: String = "SUCCESS") throws -> String {
        guard var order = orders[outTradeNo] else { throw PaymentError(.invalidRequest, provider: .wechatV3, "no order \(outTradeNo)") }
        let amount = try MerchantPlatform.refundAmount(
            of: outTradeNo, state: order.state, total: order.total, refunded: order.refunded, requested: amount, status: status,
            statuses: ["SUCCESS", "CLOSED", "ABNORMAL"], provider: .wechatV3)
        let id = Self.refundID()
        var refund = Refund(outRefundNo: id, refundID: id, amount: amount)
        refund.status = status
        if status == "SUCCESS" { billEvents.append((Date(), outTradeNo, "REFUND", amount, id)) }
        order.refunds.append(refund)
        order.state = "REFUND"
        orders[outTradeNo] = order
        announceRefund(outTradeNo, order, refund, url: notifyURL)
        if status == "SUCCESS" { noteRefund(of: outTradeNo) }
        return id
    }

    /// The currency of order `outTradeNo`, if there is one.
    func currency(of outTradeNo: String) -> Currency? {
        orders[outTradeNo].flatMap { try? Currency(code: $0.currency) }
    }
}
