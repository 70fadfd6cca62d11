/// A billing or shipping contact the payer chose on the sheet (Apple Pay's
/// `ApplePayPaymentContact` / `PKContact`), kept on the payment so the merchant can ship and
/// bill. Never card data: the sheet gives none here. Fields are bounded when read.
public struct PaymentContact: Hashable, Sendable, Codable {
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

    public init() {}

    /// The longest text kept in one field, in Unicode scalars.
    public static let fieldLimit = 200

    /// Reads Apple Pay JS's contact object, keeping the known fields (text trimmed to
    /// ``fieldLimit``, at most five address lines); `nil` when nothing usable is there.
    public init?(json: Any?) {
        guard let object = json as? [String: Any] else { return nil }
        func bounded(_ value: String) -> String { String(String.UnicodeScalarView(value.unicodeScalars.prefix(Self.fieldLimit))) }
        func text(_ name: String) -> String? {
            guard let value = object[name] as? String, !value.isEmpty else { return nil }
            return bounded(value)
        }
        givenName = text("givenName")
        familyName = text("familyName")
        emailAddress = text("emailAddress")
        phoneNumber = text("phoneNumber")
        let lines = ((object["addressLines"] as? [Any]) ?? []).compactMap { $0 as? String }.filter { !$0.isEmpty }.prefix(5).map(bounded)
        addressLines = lines.isEmpty ? nil : lines
        subLocality = text("subLocality")
        locality = text("locality")
        subAdministrativeArea = text("subAdministrativeArea")
        administrativeArea = text("administrativeArea")
        postalCode = text("postalCode")
        country = text("country")
        countryCode = text("countryCode")
        if self == PaymentContact() { return nil }
    }
}
