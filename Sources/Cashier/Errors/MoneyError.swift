/// An error in money, currency or order arithmetic: bad input, overflow, mixed currencies.
///
/// Its `description` says what to fix and never contains anything secret.
public struct MoneyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The category of a failure; new categories may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidAmount = "invalid amount"
            case tooPrecise = "too many decimal places"
            case overflow
            case currencyMismatch = "currency mismatch"
            case unknownCurrency = "unknown currency"
            case unknownCountry = "unknown country"
            case invalidItem = "invalid item"
            case invalidTotal = "invalid total"
            case invalidTradeNumber = "invalid trade number"
            case illegalTransition = "illegal transition"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Text that is not a decimal amount.
        public static let invalidAmount = Code(.invalidAmount)
        /// More decimal places than the currency has minor units.
        public static let tooPrecise = Code(.tooPrecise)
        /// A result that does not fit in 64 bits of minor units.
        public static let overflow = Code(.overflow)
        /// Arithmetic or comparison across two currencies.
        public static let currencyMismatch = Code(.currencyMismatch)
        /// A code ISO 4217 does not have.
        public static let unknownCurrency = Code(.unknownCurrency)
        /// A code ISO 3166-1 does not have.
        public static let unknownCountry = Code(.unknownCountry)
        /// A line item or shipping method that breaks a rule (empty label, zero quantity …).
        public static let invalidItem = Code(.invalidItem)
        /// A total that is negative, zero where a payment needs more, or not the sum of its items.
        public static let invalidTotal = Code(.invalidTotal)
        /// A merchant trade number a provider would refuse.
        public static let invalidTradeNumber = Code(.invalidTradeNumber)
        /// A payment status change the state machine does not allow.
        public static let illegalTransition = Code(.illegalTransition)

        public var description: String { base.rawValue }
    }

    /// The category.
    public let code: Code
    /// What went wrong and what to do, in one sentence.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
