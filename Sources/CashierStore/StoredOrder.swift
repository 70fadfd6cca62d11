public import Cashier
public import Foundation

/// An order as stored.
public struct StoredOrder: Sendable, Equatable {
    public let id: String
    /// The number sent to the providers.
    public let outTradeNo: String
    public let status: PaymentStatus
    public let total: Money
    /// What succeeded refunds of the settling payment have returned (same currency).
    public let refunded: Money
    public let description: String
    public let metadata: [String: String]
    /// The line items as the API received them (JSON).
    public let itemsJSON: String
    /// Lets the app (with the publishable key) read this one order.
    public let clientSecret: String
    /// Money arrived that must go back: a payment for an order that was closed or had expired,
    /// or a second payment by another transaction. Cleared once it has all been refunded.
    public let refundRequired: Bool
    /// Grows by one with every change; compare-and-set uses it.
    public let version: Int64
    public let createdAt: Date
    public let expiresAt: Date?
    /// The payment that paid the order (its first to succeed).
    public let settledPaymentID: String?
    /// The payment sheet's state (shipping methods offered and chosen, a coupon), as JSON, when
    /// the order has one; `items` and `total` include its lines.
    public var sheetJSON: String? = nil
    /// Where the hosted checkout page (`/pay/{id}`) sends the payer once the order is paid; its
    /// origin was checked against the configured ones when the order was created.
    public var returnURL: String? = nil
    /// The merchant the order belongs to: one of the configured sub-merchants of a service
    /// provider or ISV, by its id; `nil` for the server's direct merchant.
    public var merchant: String? = nil
}

extension StoredOrder {
    /// The line items, decoded from ``itemsJSON`` (empty when it does not decode).
    public var lineItems: [LineItem] {
        (try? JSONDecoder().decode([LineItem].self, from: Data(itemsJSON.utf8))) ?? []
    }
}
