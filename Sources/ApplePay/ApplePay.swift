/// Apple Pay on the merchant's server: payment requests, and payment tokens verified (signature,
/// chain to Apple Root CA - G3, Apple's OIDs, signing time) before they are decrypted.
public enum ApplePay {
    /// On the leaf certificate that signs tokens.
    public static let leafOID = "1.2.840.113635.100.6.29"
    /// On the intermediate (Apple Application Integration CA - G3).
    public static let intermediateOID = "1.2.840.113635.100.6.2.14"
    /// On merchant identity and payment processing certificates: the merchant id's SHA-256 in hex.
    public static let merchantIdentifierOID = "1.2.840.113635.100.6.32"
}
