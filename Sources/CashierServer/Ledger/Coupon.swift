public import Cashier
public import Foundation

/// A coupon code the payment sheet accepts (`applepay.coupons` in the configuration): a
/// percentage or a fixed amount off the goods, shown as a negative line.
public struct Coupon: Sendable, Equatable {
    public enum Discount: Sendable, Equatable {
        /// 1 to 100 percent of the goods, rounded down to the minor unit.
        case percentOff(Int)
        /// A decimal string in the order's currency (`"5.00"`), never more than the goods.
        case amountOff(String)
    }

    /// Matched without regard to case.
    public var code: String
    /// The sheet's line, e.g. "Welcome 10% off".
    public var label: String
    public var discount: Discount
    /// After this moment the code is refused as expired.
    public var expiresAt: Date?

    public init(code: String, label: String, discount: Discount, expiresAt: Date? = nil) {
        self.code = code
        self.label = label
        self.discount = discount
        self.expiresAt = expiresAt
    }

    /// The discount on `goods`, as a negative amount (zero or more off, never more than the goods).
    /// - Throws: `MoneyError` when an amount-off is not a decimal in the goods' currency.
    public func amount(on goods: Money) throws -> Money {
        let off: Int64
        switch discount {
        case .percentOff(let percent):
            // goods × percent / 100, rounded down, without forming goods × percent (which could overflow).
            off = goods.minorUnits / 100 * Int64(percent) + goods.minorUnits % 100 * Int64(percent) / 100
        case .amountOff(let text): off = min(goods.minorUnits, try Money(decimal: text, currency: goods.currency).minorUnits)
        }
        return Money(minorUnits: -max(0, off), currency: goods.currency)
    }
}
