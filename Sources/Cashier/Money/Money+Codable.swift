extension Money: Codable {
    enum CodingKeys: String, CodingKey {
        case amount
        case amountMinor = "amount_minor"
        case currency
    }

    /// Decodes `{"amount": "12.75", "currency": "CNY"}` or `{"amount_minor": 1275, "currency": "CNY"}`;
    /// when both are given they must agree.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let currency = try container.decode(Currency.self, forKey: .currency)
        let decimal = try container.decodeIfPresent(String.self, forKey: .amount).map { try Money(decimal: $0, currency: currency) }
        let minor = try container.decodeIfPresent(Int64.self, forKey: .amountMinor).map { Money(minorUnits: $0, currency: currency) }
        switch (decimal, minor) {
        case (let decimal?, let minor?) where decimal != minor:
            throw MoneyError(.invalidAmount, "amount \"\(decimal.decimalString)\" and amount_minor \(minor.minorUnits) disagree")
        case (let money?, _), (nil, let money?):
            self = money
        case (nil, nil):
            throw MoneyError(.invalidAmount, "an amount needs \"amount\" (a decimal string) or \"amount_minor\" (an integer)")
        }
    }

    /// Encodes `{"amount": "12.75", "amount_minor": 1275, "currency": "CNY"}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(decimalString, forKey: .amount)
        try container.encode(minorUnits, forKey: .amountMinor)
        try container.encode(currency, forKey: .currency)
    }
}
