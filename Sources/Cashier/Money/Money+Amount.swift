public import CashierWire

extension Amount {
    /// `money` as the API writes it: `{"amount": "12.75", "amount_minor": 1275, "currency": "CNY"}`.
    public init(_ money: Money) {
        self.init(amount: money.decimalString, amount_minor: money.minorUnits, currency: money.currency.code)
    }
}

extension Money {
    /// The amount `amount` carries, in minor units; its decimal string must agree.
    /// - Throws: ``MoneyError`` for an unknown currency, or a decimal string that says another amount.
    public init(_ amount: Amount) throws {
        let currency = try Currency(code: amount.currency)
        let money = Money(minorUnits: amount.amount_minor, currency: currency)
        guard try Money(decimal: amount.amount, currency: currency) == money else {
            throw MoneyError(.invalidAmount, "amount \"\(amount.amount)\" and amount_minor \(amount.amount_minor) disagree")
        }
        self = money
    }
}
