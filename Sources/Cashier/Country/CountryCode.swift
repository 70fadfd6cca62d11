/// An ISO 3166-1 country.
///
/// ```swift
/// let china = try CountryCode(alpha2: "CN")
/// china.alpha3 // "CHN"
/// ```
public struct CountryCode: Hashable, Sendable, CustomStringConvertible {
    /// The two-letter code (Apple Pay `countryCode`), e.g. `CN`.
    public let alpha2: String
    /// The three-letter code, e.g. `CHN`.
    public let alpha3: String
    /// The numeric code, e.g. 156.
    public let numericCode: Int
    /// The English short name.
    public let name: String

    init(alpha2: String, alpha3: String, numericCode: Int, name: String) {
        self.alpha2 = alpha2
        self.alpha3 = alpha3
        self.numericCode = numericCode
        self.name = name
    }

    /// Looks a country up by its two-letter code (case-insensitive).
    /// - Throws: `MoneyError` with code `.unknownCountry`.
    public init(alpha2 code: String) throws {
        guard let country = Self.byAlpha2[code.uppercased()] else {
            throw MoneyError(.unknownCountry, "'\(code)' is not an ISO 3166-1 alpha-2 country code (e.g. CN, US)")
        }
        self = country
    }

    public var description: String { alpha2 }

    private static let byAlpha2: [String: CountryCode] = Dictionary(uniqueKeysWithValues: all.map { ($0.alpha2, $0) })
}

extension CountryCode: Codable {
    public init(from decoder: any Decoder) throws {
        try self.init(alpha2: decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(alpha2)
    }
}
