import Cashier
import CashierStore
import Foundation

/// A refund made in WeChat Pay's merchant platform (商户平台), without Cashier: its refund
/// notification (v2 `req_info`, or v3 `REFUND.*`) names a refund number that is not one of
/// Cashier's, and its amount. So the order's books follow WeChat's, it is recorded as money gone
/// back under WeChat's own number — reason `refunded at WeChat Pay`, requested by `wechat`, never
/// sent to it — once, however many copies arrive at however many instances. A refund WeChat closed
/// or could not pay (`REFUNDCLOSE`, `CHANGE`) moves nothing; it leaves its number failed, so a
/// success can never follow it. Alipay's notifications give only the total refunded so far, not
/// each refund's amount: such refunds stay logged, for reconciliation.
extension MerchantAPI {
    /// Who asked for the records of refunds made in WeChat Pay's merchant platform.
    static let wechatActor = "wechat"

    /// - Returns: whether the refund's word was recorded (and logged on the order).
    func recordConsoleRefund(
        _ report: RefundReport, of payment: StoredPayment, wallet: PaymentMethod.Wallet, fields: [String: String], bodyHash: String
    ) async throws -> Bool {
        guard wallet == .wechat, payment.status == .succeeded, let minor = report.amountMinor, minor > 0 else { return false }
        let amount = Money(minorUnits: minor, currency: payment.amount.currency)
        let reason = "refunded at WeChat Pay"
        switch report.state {
        case .succeeded(let providerRefundID):
            guard
                let record = try await reserveOutsideRefund(
                    payment, amount, number: report.outRefundNo, reason: reason, by: Self.wechatActor, fields: fields, bodyHash: bodyHash)
            else { return true }
            try await finish(record, .succeeded(providerRefundID: providerRefundID))
        case .failed(let why):
            try await logRefundEvent(fields, payment, bodyHash: bodyHash)
            try await takeBack(payment, amount, number: report.outRefundNo, reason: reason, by: Self.wechatActor, why: why)
        case .processing, .notFound: return false  // its last word follows
        }
        return true
    }
}
