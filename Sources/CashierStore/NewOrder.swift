public import Cashier
public import Foundation

/// What ``OrderRecords/create(_:)`` takes.
public struct NewOrder: Sendable {
    public var id: String
    public var outTradeNo: String
    public var total: Money
    public var description: String
    public var metadata: [String: String]
    public var itemsJSON: String
    public var clientSecret: String
    public var expiresAt: Date?
    /// The payment sheet's state, when the order has one (``StoredOrder/sheetJSON``).
    public var sheetJSON: String?
    /// Where the hosted checkout page sends the payer once the order is paid (``StoredOrder/returnURL``).
    public var returnURL: String?
    /// The merchant the order belongs to (``StoredOrder/merchant``).
    public var merchant: String?
    /// Whether the order is placed to be shared with receivers (``StoredOrder/profitSharing``).
    public var profitSharing = false

    public init(
        id: String, outTradeNo: String, total: Money, description: String, metadata: [String: String] = [:], itemsJSON: String = "[]",
        clientSecret: String, expiresAt: Date? = nil, sheetJSON: String? = nil, returnURL: String? = nil, merchant: String? = nil
    ) {
        self.id = id
        self.outTradeNo = outTradeNo
        self.total = total
        self.description = description
        self.metadata = metadata
        self.itemsJSON = itemsJSON
        self.clientSecret = clientSecret
        self.expiresAt = expiresAt
        self.sheetJSON = sheetJSON
        self.returnURL = returnURL
        self.merchant = merchant
    }
}
