/// One line of what an order sells, as the providers' goods detail carries it (WeChat Pay's
/// `detail.goods_detail`, Alipay's `goods_detail`): for their risk checks and the payer's bill.
public struct GoodsLine: Sendable, Equatable {
    /// The merchant's id for the goods (a SKU), or a label's position when it has none.
    public var id: String
    public var name: String
    public var quantity: Int
    public var unitPrice: Money

    public init(id: String, name: String, quantity: Int, unitPrice: Money) {
        self.id = id
        self.name = name
        self.quantity = quantity
        self.unitPrice = unitPrice
    }
}
