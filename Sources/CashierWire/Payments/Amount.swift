/// An amount as the API writes it: `{"amount": "12.75", "amount_minor": 1275, "currency": "CNY"}`
/// — a decimal string, the same in minor units (fen, cents; never a float) and the ISO 4217 code.
///
/// Only the wire form: `Cashier`'s `Money` does the arithmetic and the checks, and maps to and
/// from this (`Amount(money)`, `Money(amount)`).
///
/// ```swift
/// let order = try JSONDecoder().decode(OrderJSON.self, from: body)
/// print(order.amount.amount, order.amount.currency)  // 12.75 CNY
/// ```
public struct Amount: Codable, Hashable, Sendable {
    /// In the currency's major unit, e.g. `"12.75"`.
    public let amount: String
    /// In minor units, e.g. `1275`.
    public let amount_minor: Int64
    /// ISO 4217 code, e.g. `CNY`.
    public let currency: String

    public init(amount: String, amount_minor: Int64, currency: String) {
        self.amount = amount
        self.amount_minor = amount_minor
        self.currency = currency
    }
}
