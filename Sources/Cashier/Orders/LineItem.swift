/// One line of an order or payment summary: a label, a unit amount and a quantity.
///
/// Discounts are items with a negative unit amount. A `pending` item's amount is an estimate
/// (Apple Pay shows it as "amount pending").
///
/// ```swift
/// let coffee = try LineItem(label: "Latte", unitAmount: Money(decimal: "28.00", currency: .cny), quantity: 2)
/// let coupon = try LineItem(label: "Coupon", unitAmount: Money(decimal: "-5.00", currency: .cny))
/// coffee.amount.decimalString // "56.00"
/// ```
public struct LineItem: Hashable, Sendable, Codable {
    /// Whether the amount is final or an estimate.
    public enum Kind: String, Hashable, Sendable, Codable {
        case final
        case pending
    }

    /// What the payer sees, e.g. "Latte".
    public let label: String
    /// The price of one unit; negative for a discount.
    public let unitAmount: Money
    /// How many units, at least 1.
    public let quantity: Int
    /// Final or pending.
    public let kind: Kind
    /// The merchant's product identifier, when the item came from a catalog.
    public let sku: String?
    /// `unitAmount × quantity`.
    public let amount: Money

    /// Creates an item.
    /// - Throws: `MoneyError.invalidItem` for an empty label or a quantity below 1;
    ///   `.overflow` when the amount does not fit.
    public init(label: String, unitAmount: Money, quantity: Int = 1, kind: Kind = .final, sku: String? = nil) throws {
        guard !label.trimmingWhitespace.isEmpty else {
            throw MoneyError(.invalidItem, "a line item needs a label")
        }
        guard quantity >= 1 else {
            throw MoneyError(.invalidItem, "'\(label)' has quantity \(quantity); quantities start at 1")
        }
        self.label = label
        self.unitAmount = unitAmount
        self.quantity = quantity
        self.kind = kind
        self.sku = sku
        amount = try unitAmount.multiplied(by: quantity)
    }

    /// `true` for a discount (a negative amount).
    public var isDiscount: Bool { unitAmount.isNegative }

    enum CodingKeys: String, CodingKey {
        case label, quantity, kind, sku
        case unitAmount = "unit_amount"
        case amount
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            label: container.decode(String.self, forKey: .label),
            unitAmount: container.decode(Money.self, forKey: .unitAmount),
            quantity: container.decodeIfPresent(Int.self, forKey: .quantity) ?? 1,
            kind: container.decodeIfPresent(Kind.self, forKey: .kind) ?? .final,
            sku: container.decodeIfPresent(String.self, forKey: .sku)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(label, forKey: .label)
        try container.encode(unitAmount, forKey: .unitAmount)
        try container.encode(quantity, forKey: .quantity)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(sku, forKey: .sku)
        try container.encode(amount, forKey: .amount)
    }
}

extension String {
    var trimmingWhitespace: Substring {
        let trimmedFront = drop { $0.isWhitespace }
        return trimmedFront.dropLast(trimmedFront.reversed().prefix { $0.isWhitespace }.count)
    }
}
