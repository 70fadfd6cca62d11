import Foundation

/// A contact from the payment sheet, in Apple Pay JS's `ApplePayPaymentContact` fields (what the
/// PassKit glue reads from `PKContact`). The server keeps the ones that come with the token.
public struct ApplePayContact: Sendable, Equatable, Codable {
    public var givenName: String?
    public var familyName: String?
    public var emailAddress: String?
    public var phoneNumber: String?
    public var addressLines: [String]?
    public var subLocality: String?
    public var locality: String?
    public var subAdministrativeArea: String?
    public var administrativeArea: String?
    public var postalCode: String?
    public var country: String?
    /// ISO 3166 alpha-2.
    public var countryCode: String?

    public init(
        givenName: String? = nil, familyName: String? = nil, emailAddress: String? = nil, phoneNumber: String? = nil,
        addressLines: [String]? = nil, subLocality: String? = nil, locality: String? = nil, subAdministrativeArea: String? = nil,
        administrativeArea: String? = nil, postalCode: String? = nil, country: String? = nil, countryCode: String? = nil
    ) {
        self.givenName = givenName
        self.familyName = familyName
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.addressLines = addressLines
        self.subLocality = subLocality
        self.locality = locality
        self.subAdministrativeArea = subAdministrativeArea
        self.administrativeArea = administrativeArea
        self.postalCode = postalCode
        self.country = country
        self.countryCode = countryCode
    }

    enum CodingKeys: String, CodingKey {
        case givenName, familyName, emailAddress, phoneNumber, addressLines, subLocality, locality, subAdministrativeArea
        case administrativeArea, postalCode, country, countryCode
    }

    /// The fields that are set (an empty text or list is left out), as Apple Pay JS names them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let fields: [(CodingKeys, String?)] = [
            (.givenName, givenName), (.familyName, familyName), (.emailAddress, emailAddress), (.phoneNumber, phoneNumber),
            (.subLocality, subLocality), (.locality, locality), (.subAdministrativeArea, subAdministrativeArea),
            (.administrativeArea, administrativeArea), (.postalCode, postalCode), (.country, country), (.countryCode, countryCode),
        ]
        for (key, value) in fields { if let value, !value.isEmpty { try container.encode(value, forKey: key) } }
        if let addressLines, !addressLines.isEmpty { try container.encode(addressLines, forKey: .addressLines) }
    }

    /// The fields that are set, as Apple Pay JS names them (what ``encode(to:)`` writes).
    public var jsonObject: [String: Any] {
        let data = (try? JSONEncoder().encode(self)) ?? Data()
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }
}
