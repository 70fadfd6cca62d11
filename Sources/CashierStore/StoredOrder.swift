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
    /// The merchant's metadata as stored: a JSON object of strings (``metadata`` decodes it).
    public let metadataJSON: String
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
    /// Whether the order was placed to be shared with receivers (profit sharing): WeChat Pay's
    /// `settle_info.profit_sharing`, Alipay's `extend_params.royalty_freeze` keep its funds frozen
    /// until it is split or finished.
    public var profitSharing: Bool = false
}

extension StoredOrder {
    /// The merchant's metadata, decoded from ``metadataJSON`` on each use (empty when it is not
    /// an object of strings). Kept as text because most reads of an order never look at it — a
    /// repeated notification's, on the store's writer thread, above all.
    public var metadata: [String: String] { Self.metadata(fromJSON: metadataJSON) }

    /// `text` as a JSON object of strings, read with ``JSONReader`` (`JSONDecoder` took several
    /// microseconds for three keys); empty when it is not one.
    static func metadata(fromJSON text: String) -> [String: String] {
        guard text != "{}", case .object(let members)? = try? JSONReader.parse(Array(text.utf8)) else { return [:] }
        var metadata: [String: String] = [:]
        metadata.reserveCapacity(members.count)
        for (key, value) in members {
            guard case .string(let string) = value else { return [:] }
            metadata[key] = string
        }
        return metadata
    }

    /// The line items, decoded from ``itemsJSON`` (empty when it does not decode).
    public var lineItems: [LineItem] {
        (try? JSONDecoder().decode([LineItem].self, from: Data(itemsJSON.utf8))) ?? []
    }
}
