/// A way to ship an order, offered on the payment sheet (`PKShippingMethod`).
///
/// ```swift
/// let express = try ShippingMethod(identifier: "express", label: "Express", detail: "Tomorrow",
///                                  amount: Money(decimal: "12.00", currency: .cny))
/// ```
public struct ShippingMethod: Hashable, Sendable, Codable {
    /// Unique among the methods offered for one payment.
    public let identifier: String
    /// Short name, e.g. "Express".
    public let label: String
    /// Longer description, e.g. "Delivers tomorrow".
    public let detail: String
    /// What it costs; zero for free shipping, never negative.
    public let amount: Money

    /// - Throws: `MoneyError.invalidItem` for an empty identifier or label, or a negative amount.
    public init(identifier: String, label: String, detail: String = "", amount: Money) throws {
        guard !identifier.trimmingWhitespace.isEmpty, !label.trimmingWhitespace.isEmpty else {
            throw MoneyError(.invalidItem, "a shipping method needs an identifier and a label")
        }
        guard !amount.isNegative else {
            throw MoneyError(.invalidItem, "shipping method '\(identifier)' costs \(amount); shipping cannot be negative")
        }
        self.identifier = identifier
        self.label = label
        self.detail = detail
        self.amount = amount
    }

    /// The method as a summary item, to add to the order's items when chosen.
    public func lineItem() throws -> LineItem {
        try LineItem(label: label, unitAmount: amount)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            identifier: container.decode(String.self, forKey: .identifier),
            label: container.decode(String.self, forKey: .label),
            detail: container.decodeIfPresent(String.self, forKey: .detail) ?? "",
            amount: container.decode(Money.self, forKey: .amount))
    }

    /// Checks that identifiers are unique among `methods`.
    /// - Throws: `MoneyError.invalidItem` naming the duplicate.
    public static func validateUnique(_ methods: [ShippingMethod]) throws {
        var seen = Set<String>()
        for method in methods where !seen.insert(method.identifier).inserted {
            throw MoneyError(.invalidItem, "shipping method identifier '\(method.identifier)' is used twice")
        }
    }
}
