/// One extension of an X.509 certificate, undecoded.
public struct X509Extension: Hashable, Sendable {
    /// The dotted OID, e.g. `1.2.840.113635.100.6.32` (Apple Pay merchant identifier).
    public let oid: String
    /// Whether the extension is marked critical.
    public let isCritical: Bool
    /// The DER contents of the extension's OCTET STRING (`extnValue`).
    public let value: [UInt8]

    public init(oid: String, isCritical: Bool, value: [UInt8]) {
        self.oid = oid
        self.isCritical = isCritical
        self.value = value
    }
}

/// One attribute of a distinguished name, in the order it appears in the certificate.
public struct X509NameComponent: Hashable, Sendable {
    /// OpenSSL's short name of the attribute type, e.g. `CN`, `OU`, `O`, `C`.
    public let shortName: String
    /// The dotted OID of the attribute type, e.g. `2.5.4.3`.
    public let oid: String
    /// The attribute value as UTF-8 text.
    public let value: String

    public init(shortName: String, oid: String, value: String) {
        self.shortName = shortName
        self.oid = oid
        self.value = value
    }
}
