import CashierStore

/// The answer to a refund: the order (with its payments and refunds) and the refund itself.
struct RefundAnswer: Encodable, Sendable {
    let order: OrderJSON
    let refund: RefundJSON

    func encode(to encoder: any Encoder) throws {
        // The order's fields at the top level (as before), the refund beside them.
        try order.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(refund, forKey: .refund)
    }

    enum Key: String, CodingKey { case refund }
}
