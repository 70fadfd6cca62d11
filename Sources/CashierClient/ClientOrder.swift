import Foundation

/// An order as the app sees it (amounts in minor units, as the server sends them).
public struct ClientOrder: Sendable, Equatable {
    public enum Status: String, Sendable {
        case created, pending, paid, closed, failed, refunded, unknown
        case partiallyRefunded = "partially_refunded"

        /// Money arrived (even if some was refunded since).
        public var isPaid: Bool { self == .paid || self == .partiallyRefunded || self == .refunded }
    }

    public let id: String
    public let outTradeNo: String
    public let status: Status
    /// `"12.75"`, for display.
    public let amount: String
    public let amountMinor: Int64
    public let currency: String

    init(json: [String: Any]) throws {
        guard let id = json["id"] as? String, let amount = json["amount"] as? [String: Any] else {
            throw CashierClientError(code: "invalid_response", message: "the server's order has no id or amount")
        }
        self.id = id
        outTradeNo = json["out_trade_no"] as? String ?? ""
        status = Status(rawValue: json["status"] as? String ?? "") ?? .unknown
        self.amount = amount["amount"] as? String ?? ""
        amountMinor = (amount["amount_minor"] as? NSNumber)?.int64Value ?? 0
        currency = amount["currency"] as? String ?? ""
    }
}
