import CashierWire

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
}

extension ClientOrder: Decodable {
    enum Key: String, CodingKey { case id, out_trade_no, status, amount }

    /// Reads the server's order (`OrderJSON`): its id and amount are required; a status this SDK
    /// does not know reads as `unknown`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        id = try container.decode(String.self, forKey: .id)
        let amount = try container.decode(Amount.self, forKey: .amount)
        outTradeNo = try container.decodeIfPresent(String.self, forKey: .out_trade_no) ?? ""
        status = Status(rawValue: try container.decodeIfPresent(String.self, forKey: .status) ?? "") ?? .unknown
        self.amount = amount.amount
        amountMinor = amount.amount_minor
        currency = amount.currency
    }
}
