/// An ISO 4217 currency: its code, numeric code and number of minor units.
///
/// ```swift
/// let yuan = try Currency(code: "CNY")      // 2 minor units: amounts are counted in fen
/// let dollars = try Currency(numericCode: "840") // Apple Pay payloads carry numeric codes
/// Currency.jpy.minorUnits                   // 0
/// ```
public struct Currency: Hashable, Sendable, CustomStringConvertible {
    /// The alphabetic code, e.g. `CNY`.
    public let code: String
    /// The numeric code, e.g. 156 for CNY, 840 for USD.
    public let numericCode: Int
    /// Digits after the decimal point: 2 for CNY and USD, 0 for JPY, 3 for KWD.
    public let minorUnits: Int
    /// The English name, e.g. "Yuan Renminbi".
    public let name: String

    init(code: String, numericCode: Int, minorUnits: Int, name: String) {
        self.code = code
        self.numericCode = numericCode
        self.minorUnits = minorUnits
        self.name = name
    }

    /// Looks a currency up by its alphabetic code (case-insensitive).
    /// - Throws: `MoneyError` with code `.unknownCurrency` when ISO 4217 has no such currency.
    public init(code: String) throws {
        guard let currency = Self.byCode[code.uppercased()] else {
            throw MoneyError(.unknownCurrency, "'\(code)' is not an ISO 4217 currency code (e.g. CNY, USD)")
        }
        self = currency
    }

    /// Looks a currency up by its numeric code, as text ("840", "036") or as a number.
    /// - Throws: `MoneyError` with code `.unknownCurrency`.
    public init(numericCode text: String) throws {
        guard text.count == 3, text.allSatisfy(\.isASCIIDigit), let number = Int(text), let currency = Self.byNumber[number] else {
            throw MoneyError(.unknownCurrency, "'\(text)' is not an ISO 4217 numeric currency code (e.g. 156, 840)")
        }
        self = currency
    }

    /// The numeric code as three digits, e.g. "036" for AUD.
    public var numericCodeString: String {
        let digits = String(numericCode)
        return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
    }

    /// 10 to the power of `minorUnits`: how many minor units make one major unit.
    public var minorUnitsPerMajorUnit: Int64 {
        (0..<minorUnits).reduce(1) { value, _ in value * 10 }
    }

    public var description: String { code }

    private static let byCode: [String: Currency] = Dictionary(uniqueKeysWithValues: all.map { ($0.code, $0) })
    private static let byNumber: [Int: Currency] = Dictionary(uniqueKeysWithValues: all.map { ($0.numericCode, $0) })

    /// Chinese yuan (WeChat Pay and Alipay).
    public static let cny = try! Currency(code: "CNY")
    /// Hong Kong dollar.
    public static let hkd = try! Currency(code: "HKD")
    /// US dollar.
    public static let usd = try! Currency(code: "USD")
    /// Euro.
    public static let eur = try! Currency(code: "EUR")
    /// Japanese yen (no minor units).
    public static let jpy = try! Currency(code: "JPY")
}

extension Currency: Codable {
    /// Decodes from the alphabetic code.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        try self.init(code: text)
    }

    /// Encodes as the alphabetic code.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
