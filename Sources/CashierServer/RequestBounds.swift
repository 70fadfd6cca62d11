/// The bounds on every number the merchant API reads: anything outside is refused (400) before
/// it reaches arithmetic, the store or a provider.
enum RequestBounds {
    /// `expires_in`: one second to 30 days.
    static let expiresIn: ClosedRange<Int64> = 1...2_592_000
    /// An item's `amount_minor` (negative for a discount): at most 10¹² minor units either way.
    static let itemMinorUnits: ClosedRange<Int64> = -1_000_000_000_000...1_000_000_000_000
    /// An order's total: more than zero and at most 10¹² minor units.
    static let totalMinorUnits: ClosedRange<Int64> = 1...1_000_000_000_000
    /// An item's `quantity`.
    static let quantity: ClosedRange<Int64> = 1...100_000
    /// Items in one order.
    static let items = 100
    /// A refund's `amount_minor`.
    static let refundMinorUnits: ClosedRange<Int64> = 1...1_000_000_000_000
    /// `limit` on lists.
    static let listLimit: ClosedRange<Int> = 1...100
    /// An `Idempotency-Key`'s length.
    static let idempotencyKeyLength: ClosedRange<Int> = 1...255
}
