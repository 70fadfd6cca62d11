public import Cashier
public import Foundation

/// One order of a merchant's past, whole — its payment, refunds and webhook — for
/// ``SQLOrderStore/insertHistory(_:)``, which writes it as the rows the server would have left
/// (order, payment, refunds, event log, outbox) far faster than replaying its requests:
/// `cashier-bench scale` fills a store with millions of them.
///
/// ```swift
/// let order = HistoricalOrder(
///     id: "ord_1", outTradeNo: "C1", merchant: "m1", createdAt: day, total: Money(minorUnits: 1275, currency: .cny),
///     method: .wechatApp, provider: .wechatV2, transactionID: "4200…", paidAt: day.addingTimeInterval(30),
///     refunds: [.init(amount: 275, at: day.addingTimeInterval(86_400))], webhookDelivered: true)
/// try await store.insertHistory([order])
/// ```
public struct HistoricalOrder: Sendable {
    /// A refund that succeeded at the provider.
    public struct Refund: Sendable {
        /// Minor units of the order's currency.
        public var amount: Int64
        public var at: Date

        public init(amount: Int64, at: Date) {
            self.amount = amount
            self.at = at
        }
    }

    public var id: String
    public var outTradeNo: String
    /// The sub-merchant the order belongs to (`nil`: the server's direct merchant).
    public var merchant: String?
    public var createdAt: Date
    public var total: Money
    public var method: PaymentMethod
    public var provider: PaymentProvider
    /// The provider's transaction id once paid.
    public var transactionID: String?
    /// When the payment succeeded; `nil` leaves the payment pending (the payer never paid).
    public var paidAt: Date?
    /// Refunds of the payment, oldest first, together no more than `total`.
    public var refunds: [Refund]
    /// Whether the `order.paid` webhook has been delivered (otherwise it waits in the outbox).
    public var webhookDelivered: Bool

    public init(
        id: String, outTradeNo: String, merchant: String?, createdAt: Date, total: Money, method: PaymentMethod, provider: PaymentProvider,
        transactionID: String?, paidAt: Date?, refunds: [Refund] = [], webhookDelivered: Bool = true
    ) {
        self.id = id
        self.outTradeNo = outTradeNo
        self.merchant = merchant
        self.createdAt = createdAt
        self.total = total
        self.method = method
        self.provider = provider
        self.transactionID = transactionID
        self.paidAt = paidAt
        self.refunds = refunds
        self.webhookDelivered = webhookDelivered
    }

    /// The payment's id: the order's with `pay_` for its prefix.
    public var paymentID: String { "pay_" + (id.hasPrefix("ord_") ? id.dropFirst(4) : Substring(id)) }

    /// What has been refunded, in minor units.
    public var refunded: Int64 { refunds.reduce(0) { $0 + $1.amount } }

    /// The order's status its payment and refunds give it.
    public var status: PaymentStatus {
        guard paidAt != nil else { return .pending }
        let refunded = refunded
        return refunded == 0 ? .paid : refunded >= total.minorUnits ? .refunded : .partiallyRefunded
    }
}
