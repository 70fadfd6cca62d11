import Cashier
import CashierStore
import Foundation

/// A refund made in the provider's console (WeChat Pay's merchant platform 商户平台, Alipay's
/// merchant center), without Cashier: its notification (WeChat v2 `req_info` or v3 `REFUND.*`,
/// Alipay's `trade_status_sync` with `out_biz_no`) names a refund number that is not one of
/// Cashier's. So the order's books follow the provider's, it is recorded as money gone back under
/// the provider's own number — reason `refunded at WeChat Pay` or `refunded at Alipay`, requested
/// by `wechat` or `alipay`, never sent back to it (the refund job finishes such a record without
/// asking, should a crash leave it pending) — once, however many copies arrive at however many
/// instances. WeChat's notification names the refund's amount; Alipay's names only the total
/// refunded so far, so Alipay is asked for the refund by its number
/// (``PaymentAdapter/consoleRefundAmount(_:of:)``). A refund WeChat closed or could not pay
/// (`REFUNDCLOSE`, `CHANGE`) moves nothing, and leaves its number failed so that no success can
/// follow it.
extension MerchantAPI {
    /// Who asked for the records of refunds made in WeChat Pay's merchant platform.
    static let wechatActor = "wechat"
    /// Who asked for the records of refunds made in Alipay's merchant center.
    static let alipayActor = "alipay"

    /// - Returns: whether the refund's word was taken up (and logged on the order): `false` when it
    /// is not a paid WeChat or Alipay payment's, or its amount is not known.
    func recordConsoleRefund(
        _ report: RefundReport, of payment: StoredPayment, wallet: PaymentMethod.Wallet, adapter: any PaymentAdapter,
        fields: [String: String], bodyHash: String
    ) async throws -> Bool {
        guard payment.status == .succeeded, wallet == .wechat || wallet == .alipay else { return false }
        let (actor, reason) = wallet == .wechat ? (Self.wechatActor, "refunded at WeChat Pay") : (Self.alipayActor, "refunded at Alipay")
        var amount = report.amountMinor.map { Money(minorUnits: $0, currency: payment.amount.currency) }
        if amount == nil, case .succeeded = report.state {
            amount = try await adapter.consoleRefundAmount(report.outRefundNo, of: payment)
        }
        guard let amount, amount.isPositive, amount.currency == payment.amount.currency else { return false }
        var state = report.state
        if case .succeeded(nil) = state { state = .succeeded(providerRefundID: report.outRefundNo) }
        try await recordOutsideRefund(
            payment, amount, number: report.outRefundNo, reason: reason, by: actor, state: state, fields: fields, bodyHash: bodyHash)
        return true
    }
}
