import Cashier
import CashierHTTP
import Foundation

/// Refunds a merchant makes in WeChat Pay's merchant platform (商户平台), not through the API:
/// WeChat numbers such a refund itself (its `out_refund_no` is its `refund_id`) and announces it
/// to the refund notification URL set in the platform, `refund_request_source` `VENDOR_PLATFORM`.
/// `POST /sandbox/wechat/console_refund {"out_trade_no":"…","amount":"5.00","notify_url":"http://…/notify/wechat/v2/refund",
/// "status":"SUCCESS"|"REFUNDCLOSE"|"CHANGE"}` (an API v3 order's too: ``WeChatV3Sandbox/consoleRefund(outTradeNo:amount:notifyURL:status:)``);
/// the notification is filed for replays under its `out_refund_no`.
extension WeChatV2Sandbox {
    /// Refunds `fee` (minor units; by default all that is left) of the paid order `outTradeNo` as
    /// the merchant platform would, and announces it to `notifyURL`. `status`: `SUCCESS`, or how the
    /// refund ended instead (`REFUNDCLOSE`, `CHANGE`: no money moves).
    /// - Returns: the refund's `out_refund_no`.
    /// - Throws: `PaymentError` saying why it cannot be made.
    public func consoleRefund(outTradeNo: String, fee: Int64? = nil, notifyURL: String, status: String = "SUCCESS") throws -> String {
        guard var order = orders[outTradeNo] else { throw PaymentError(.invalidRequest, provider: .wechatV2, "no order \(outTradeNo)") }
        let fee = try MerchantPlatform.refundAmount(
            of: outTradeNo, state: order.state, total: order.totalFee, refunded: order.refunded, requested: fee, status: status,
            statuses: ["SUCCESS", "REFUNDCLOSE", "CHANGE"], provider: .wechatV2)
        let id = Self.refundID()
        var refund = Refund(outRefundNo: id, refundID: id, fee: fee)
        refund.status = status
        order.refunds.append(refund)
        order.state = "REFUND"
        orders[outTradeNo] = order
        notifyRefund(outTradeNo, order, refund, notifyURL, source: "VENDOR_PLATFORM")
        return id
    }

    /// The currency of order `outTradeNo`, if there is one.
    func currency(of outTradeNo: String) -> Currency? {
        orders[outTradeNo].flatMap { try? Currency(code: $0.fields["fee_type"] ?? "CNY") }
    }

    /// `POST /sandbox/wechat/console_refund`, for an order of either API: v2 statuses `SUCCESS`,
    /// `REFUNDCLOSE`, `CHANGE`; v3 `SUCCESS`, `CLOSED`, `ABNORMAL`.
    nonisolated func registerConsole(on router: inout Router, v3: WeChatV3Sandbox) {
        router.add("POST", "/sandbox/wechat/console_refund") { request, _ in
            guard let object = SandboxControl.object(request),
                let number = object["out_trade_no"] as? String, let url = object["notify_url"] as? String
            else {
                return SandboxControl.invalid(
                    #"expected {"out_trade_no":"…","amount":"5.00","notify_url":"http://…","status":"SUCCESS"|…}"#)
            }
            let v2Currency = await self.currency(of: number)
            let currency: Currency?
            if let v2Currency { currency = v2Currency } else { currency = await v3.currency(of: number) }
            guard let currency else { return .error(status: 404, code: "order_not_found", message: "no WeChat order \(number)") }
            var minor: Int64?
            if let text = object["amount"] as? String {
                guard let amount = try? Money(decimal: text, currency: currency) else {
                    return .error(status: 400, code: "invalid_amount", message: "amount must be a decimal in the order's currency")
                }
                minor = amount.minorUnits
            }
            let status = object["status"] as? String ?? "SUCCESS"
            do {
                let refund =
                    v2Currency != nil
                    ? try await self.consoleRefund(outTradeNo: number, fee: minor, notifyURL: url, status: status)
                    : try await v3.consoleRefund(outTradeNo: number, amount: minor, notifyURL: url, status: status)
                return .json(["out_refund_no": refund, "out_trade_no": number])
            } catch {
                return .error(status: 422, code: "invalid_request", message: (error as? PaymentError)?.message ?? "\(error)")
            }
        }
    }
}
