/// An exact amount of money: an integer count of minor units in one currency.
///
/// There is no floating point anywhere in it. Arithmetic checks for overflow and for mixed
/// currencies and throws rather than wrapping or guessing.
///
/// ```swift
/// let price = try Money(decimal: "12.75", currency: .cny)  // 1275 fen
/// let total = try price * 3 + Money(minorUnits: -500, currency: .cny)
/// total.decimalString  // "33.25"
/// total.minorUnits     // 3325, WeChat Pay's total_fee
/// ```
public struct Money: Hashable, Sendable {
    /// The amount in minor units (fen, cents); negative for discounts and refunds.
    public let minorUnits: Int64
    /// The currency.
    public let currency: Currency

    /// An amount of minor units.
    public init(minorUnits: Int64, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// Zero in `currency`.
    public static func zero(_ currency: Currency) -> Money {
        Money(minorUnits: 0, currency: currency)
    }

    /// `true` for amounts below zero (discounts).
    public var isNegative: Bool { minorUnits < 0 }

    /// `true` for amounts above zero.
    public var isPositive: Bool { minorUnits > 0 }

    // MARK: Arithmetic

    /// The sum. - Throws: `.currencyMismatch` or `.overflow`.
    public func adding(_ other: Money) throws -> Money {
        try requireSameCurrency(other, doing: "add")
        let (sum, overflow) = minorUnits.addingReportingOverflow(other.minorUnits)
        guard !overflow else { throw MoneyError(.overflow, "\(self) + \(other) does not fit in 64 bits of minor units") }
        return Money(minorUnits: sum, currency: currency)
    }

    /// The difference. - Throws: `.currencyMismatch` or `.overflow`.
    public func subtracting(_ other: Money) throws -> Money {
        try requireSameCurrency(other, doing: "subtract")
        let (difference, overflow) = minorUnits.subtractingReportingOverflow(other.minorUnits)
        guard !overflow else { throw MoneyError(.overflow, "\(self) - \(other) does not fit in 64 bits of minor units") }
        return Money(minorUnits: difference, currency: currency)
    }

    /// The amount times a whole number (a quantity). - Throws: `.overflow`.
    public func multiplied(by factor: Int) throws -> Money {
        let (product, overflow) = minorUnits.multipliedReportingOverflow(by: Int64(factor))
        guard !overflow else { throw MoneyError(.overflow, "\(self) × \(factor) does not fit in 64 bits of minor units") }
        return Money(minorUnits: product, currency: currency)
    }

    /// The amount with its sign flipped. - Throws: `.overflow` for the most negative amount.
    public func negated() throws -> Money {
        try multiplied(by: -1)
    }

    /// Compares two amounts of the same currency.
    /// - Returns: a negative number, zero or a positive number as `self` is less than, equal to
    ///   or greater than `other`.
    /// - Throws: `.currencyMismatch`.
    public func compare(_ other: Money) throws -> Int {
        try requireSameCurrency(other, doing: "compare")
        return minorUnits < other.minorUnits ? -1 : (minorUnits == other.minorUnits ? 0 : 1)
    }

    /// The sum of `amounts`, all in `currency`. - Throws: `.currencyMismatch` or `.overflow`.
    public static func sum(_ amounts: some Sequence<Money>, currency: Currency) throws -> Money {
        try amounts.reduce(zero(currency)) { try $0.adding($1) }
    }

    public static func + (lhs: Money, rhs: Money) throws -> Money { try lhs.adding(rhs) }
    public static func - (lhs: Money, rhs: Money) throws -> Money { try lhs.subtracting(rhs) }
    public static func * (lhs: Money, rhs: Int) throws -> Money { try lhs.multiplied(by: rhs) }

    private func requireSameCurrency(_ other: Money, doing verb: String) throws {
        guard currency == other.currency else {
            throw MoneyError(.currencyMismatch, "cannot \(verb) \(currency.code) and \(other.currency.code) amounts")
        }
    }
}

extension Money: CustomStringConvertible {
    /// "12.75 CNY".
    public var description: String { "\(decimalString) \(currency.code)" }
}
