extension Money {
    /// Parses a decimal amount exactly: `"12.75"`, `"-3.50"`, `"0.01"`, `"100"`.
    ///
    /// Accepted: an optional `-`, one or more ASCII digits, and optionally `.` followed by one
    /// or more digits. Digits past the currency's minor units are accepted only if they are
    /// zeros (`"1.500"` is 1.50 CNY; `"1.505"` is an error, never rounded). No exponent, no
    /// `+`, no spaces, no thousands separators.
    ///
    /// - Parameters:
    ///   - text: the amount in major units.
    ///   - currency: the currency, which says how many decimal places are allowed.
    /// - Throws: `MoneyError` `.invalidAmount`, `.tooPrecise` or `.overflow`.
    public init(decimal text: some StringProtocol, currency: Currency) throws {
        var bytes = Substring(text).utf8[...]
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes = bytes.dropFirst() }
        let integerPart = bytes.prefix { $0 != UInt8(ascii: ".") }
        var fraction = bytes.dropFirst(integerPart.count)
        let hasPoint = !fraction.isEmpty
        if hasPoint { fraction = fraction.dropFirst() }
        let isDigit: (UInt8) -> Bool = { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        guard !integerPart.isEmpty, integerPart.allSatisfy(isDigit), !(hasPoint && fraction.isEmpty), fraction.allSatisfy(isDigit) else {
            throw MoneyError(.invalidAmount, "'\(text)' is not a decimal amount like \"12.75\"")
        }
        let kept = fraction.prefix(currency.minorUnits)
        guard fraction.dropFirst(kept.count).allSatisfy({ $0 == UInt8(ascii: "0") }) else {
            throw MoneyError(
                .tooPrecise, "'\(text)' has more than \(currency.minorUnits) decimal places, which \(currency.code) does not allow")
        }
        var magnitude: UInt64 = 0
        let digits = Array(integerPart) + Array(kept) + Array(repeating: UInt8(ascii: "0"), count: currency.minorUnits - kept.count)
        for digit in digits {
            let (shifted, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (next, o2) = shifted.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !o1, !o2 else { throw MoneyError(.overflow, "'\(text)' is too large an amount") }
            magnitude = next
        }
        let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        guard magnitude <= limit else { throw MoneyError(.overflow, "'\(text)' is too large an amount") }
        let value = negative ? (magnitude == limit ? Int64.min : -Int64(magnitude)) : Int64(magnitude)
        self.init(minorUnits: value, currency: currency)
    }

    /// The amount as a decimal string with exactly the currency's minor units:
    /// `"12.75"` (CNY), `"100"` (JPY), `"1.250"` (KWD), `"-0.05"`.
    public var decimalString: String {
        let magnitude = minorUnits.magnitude
        let scale = UInt64(currency.minorUnitsPerMajorUnit)
        let major = String(magnitude / scale)
        let sign = minorUnits < 0 ? "-" : ""
        guard currency.minorUnits > 0 else { return sign + major }
        let minor = String(magnitude % scale)
        return sign + major + "." + String(repeating: "0", count: currency.minorUnits - minor.count) + minor
    }
}

extension Money {
    /// A decimal written with more places than the currency has, rounded half away from zero to
    /// its minor unit — as providers print fees (WeChat Pay's bills give 手续费 to five places).
    /// - Throws: `MoneyError` when the text is not a decimal amount.
    public init(roundingDecimal text: some StringProtocol, currency: Currency) throws {
        let string = String(text)
        guard let point = string.firstIndex(of: "."), string.distance(from: point, to: string.endIndex) - 1 > currency.minorUnits else {
            try self.init(decimal: string, currency: currency)
            return
        }
        let keptEnd = string.index(point, offsetBy: currency.minorUnits + 1)
        let rest = string[keptEnd...]
        guard rest.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw MoneyError(.invalidAmount, "'\(text)' is not a decimal amount like \"0.06000\"")
        }
        let kept = currency.minorUnits == 0 ? string[..<point] : string[..<keptEnd]
        let truncated = try Money(decimal: kept, currency: currency)
        guard let next = rest.utf8.first, next >= UInt8(ascii: "5") else {
            self = truncated
            return
        }
        let away: Int64 = string.hasPrefix("-") ? -1 : 1
        let (rounded, overflow) = truncated.minorUnits.addingReportingOverflow(away)
        guard !overflow else { throw MoneyError(.overflow, "'\(text)' is too large an amount") }
        self.init(minorUnits: rounded, currency: currency)
    }
}
