/// The contacts that came with a payment.
public struct PaymentContacts: Hashable, Sendable, Codable {
    public var billing: PaymentContact?
    public var shipping: PaymentContact?

    public init(billing: PaymentContact? = nil, shipping: PaymentContact? = nil) {
        self.billing = billing
        self.shipping = shipping
    }

    public var isEmpty: Bool { billing == nil && shipping == nil }
}
