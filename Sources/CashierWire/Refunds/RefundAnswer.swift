/// The answer to `POST /v1/orders/{id}/refunds`: the order's fields (with its payments and
/// refunds) at the top level, and the refund just made beside them under `refund`.
public struct RefundAnswer: Codable, Sendable, Equatable {
    public let order: OrderJSON
    public let refund: RefundJSON

    public init(order: OrderJSON, refund: RefundJSON) {
        self.order = order
        self.refund = refund
    }

    public init(from decoder: any Decoder) throws {
        order = try OrderJSON(from: decoder)
        refund = try decoder.container(keyedBy: Key.self).decode(RefundJSON.self, forKey: .refund)
    }

    public func encode(to encoder: any Encoder) throws {
        // The order's fields at the top level (as before), the refund beside them.
        try order.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(refund, forKey: .refund)
    }

    enum Key: String, CodingKey { case refund }
}
