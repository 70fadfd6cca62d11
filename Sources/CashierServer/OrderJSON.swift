public import Cashier
public import CashierStore
import Foundation

/// The JSON shape of an order in the merchant API.
public struct OrderJSON: Encodable, Sendable {
    public let id: String
    public let object = "order"
    public let out_trade_no: String
    public let status: String
    public let amount: Money
    public let amount_refunded: Money
    public let description: String
    public let metadata: [String: String]
    /// Only to the secret key and in the creation answer: the app uses it with the publishable key.
    public let client_secret: String?
    public let refund_required: Bool
    public let created: Int64

    public init(_ order: StoredOrder, includeSecret: Bool) {
        id = order.id
        out_trade_no = order.outTradeNo
        status = order.status.rawValue
        amount = order.total
        amount_refunded = order.refunded
        description = order.description
        metadata = order.metadata
        client_secret = includeSecret ? order.clientSecret : nil
        refund_required = order.refundRequired
        created = Int64(order.createdAt.timeIntervalSince1970)
    }
}
