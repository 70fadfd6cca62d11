/// The items of a payment and their total, which is always their sum.
///
/// Apple Pay shows the items followed by a final line labelled with the merchant's name whose
/// amount is the total; WeChat Pay and Alipay take the total alone. The summary enforces the
/// rules every one of them needs: one currency, a total that is the exact sum, never negative.
///
/// ```swift
/// let summary = try PaymentSummary(items: [coffee, coupon], totalLabel: "Example Coffee Co.")
/// summary.total.decimalString  // "51.00"
/// ```
public struct PaymentSummary: Hashable, Sendable, Codable {
    /// The items, in display order.
    public let items: [LineItem]
    /// The label of the total line (the company name on Apple Pay).
    public let totalLabel: String
    /// The currency of every item.
    public let currency: Currency
    /// The sum of the items' amounts.
    public let total: Money

    /// Creates a summary.
    /// - Parameters:
    ///   - items: at least one item, all in one currency.
    ///   - totalLabel: the label of the total line.
    /// - Throws: `MoneyError.invalidItem` for no items, `.currencyMismatch` for mixed
    ///   currencies, `.invalidTotal` for a negative total, `.overflow`.
    public init(items: [LineItem], totalLabel: String) throws {
        guard let first = items.first else {
            throw MoneyError(.invalidItem, "a payment summary needs at least one item")
        }
        guard !totalLabel.trimmingWhitespace.isEmpty else {
            throw MoneyError(.invalidItem, "the total needs a label (Apple Pay shows the company name there)")
        }
        if let stranger = items.first(where: { $0.unitAmount.currency != first.unitAmount.currency }) {
            throw MoneyError(
                .currencyMismatch,
                "'\(stranger.label)' is in \(stranger.unitAmount.currency.code) but '\(first.label)' is in \(first.unitAmount.currency.code)"
            )
        }
        let total = try Money.sum(items.map(\.amount), currency: first.unitAmount.currency)
        guard !total.isNegative else {
            throw MoneyError(.invalidTotal, "the items add up to \(total), and a total cannot be negative")
        }
        self.items = items
        self.totalLabel = totalLabel
        self.currency = first.unitAmount.currency
        self.total = total
    }

    /// Pending when any item is pending.
    public var totalKind: LineItem.Kind {
        items.contains { $0.kind == .pending } ? .pending : .final
    }

    enum CodingKeys: String, CodingKey {
        case items
        case totalLabel = "total_label"
        case currency, total
    }

    /// Decodes and re-validates; a `total` in the input must equal the sum of the items.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            items: container.decode([LineItem].self, forKey: .items), totalLabel: container.decode(String.self, forKey: .totalLabel))
        if let claimed = try container.decodeIfPresent(Money.self, forKey: .total), claimed != total {
            throw MoneyError(.invalidTotal, "the total \(claimed) is not the sum of the items (\(total))")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(items, forKey: .items)
        try container.encode(totalLabel, forKey: .totalLabel)
        try container.encode(currency, forKey: .currency)
        try container.encode(total, forKey: .total)
    }
}
