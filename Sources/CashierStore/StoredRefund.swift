public import Cashier
public import Foundation

/// One refund as stored: it belongs to the payment whose money it returns.
public struct StoredRefund: Sendable, Equatable {
    /// `re_…`.
    public let id: String
    public let orderID: String
    public let paymentID: String
    /// The merchant's refund number at the provider (`out_refund_no`, Alipay's `out_request_no`):
    /// unique; a retry sends the same one, which providers never refund twice.
    public let outRefundNo: String
    public let amount: Money
    public let status: RefundStatus
    /// The provider's refund id.
    public let providerRefundID: String?
    public let reason: String?
    /// Why it failed (the provider's words).
    public let failureReason: String?
    public let createdAt: Date
    public let updatedAt: Date
    /// When it succeeded or failed.
    public let finishedAt: Date?
    /// When the provider's final word of success arrived (a notification or a query), for a
    /// refund it had first only accepted; until then a failure may still be reported.
    public let confirmedAt: Date?
    /// Who asked for it: `api`, `dashboard …` (a signed-in session), `automatic` (a duplicate); or
    /// the provider or processor that moved the money by itself (`wechat`, `alipay`, `stripe`,
    /// `adyen`: a refund made in its console, a dispute, a lapse), never sent to anyone.
    public let requestedBy: String?
}
