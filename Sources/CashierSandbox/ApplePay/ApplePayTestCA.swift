public import ApplePay
public import CashierCrypto
import Foundation

/// A certificate authority shaped like Apple's, for the sandbox and tests: a root, an
/// intermediate carrying 1.2.840.113635.100.6.2.14 and a leaf carrying 1.2.840.113635.100.6.29
/// that signs tokens, plus merchant processing certificates with the merchant-id extension.
/// Trust its ``root`` (never Apple's) in a ``ApplePay/TokenVerifier`` to accept its tokens.
public struct ApplePayTestCA: Sendable {
    public let root: X509Certificate
    public let intermediate: X509Certificate
    public let leaf: X509Certificate
    let rootKey: P256PrivateKey
    let intermediateKey: P256PrivateKey
    let leafKey: P256PrivateKey

    /// A fresh CA. `leafHasOID` and `intermediateHasOID` exist to make the negative cases.
    public init(leafHasOID: Bool = true, intermediateHasOID: Bool = true) throws {
        let marker: [UInt8] = [0x05, 0x00]  // ASN.1 NULL, as Apple's extensions carry
        rootKey = try P256PrivateKey()
        intermediateKey = try P256PrivateKey()
        leafKey = try P256PrivateKey()
        root = try CertificateBuilder(
            subject: [("C", "US"), ("O", "Cashier Sandbox"), ("OU", "Sandbox Certification Authority"), ("CN", "Sandbox Root CA - G3")],
            serialNumber: 1, notValidAfter: Date(timeIntervalSinceNow: 10 * 365 * 86_400), isCertificateAuthority: true
        ).issue(publicKey: .p256(rootKey.publicKey), signedBy: .p256(rootKey))
        intermediate = try CertificateBuilder(
            subject: [("C", "US"), ("O", "Cashier Sandbox"), ("CN", "Sandbox Application Integration CA - G3")], serialNumber: 2,
            isCertificateAuthority: true,
            extensions: intermediateHasOID ? [X509Extension(oid: ApplePay.intermediateOID, isCritical: false, value: marker)] : []
        ).issue(publicKey: .p256(intermediateKey.publicKey), issuer: root, signedBy: .p256(rootKey))
        leaf = try CertificateBuilder(
            subject: [("C", "US"), ("O", "Cashier Sandbox"), ("CN", "ecc-smp-broker-sign_UC4-SANDBOX")], serialNumber: 3,
            extensions: leafHasOID ? [X509Extension(oid: ApplePay.leafOID, isCritical: false, value: marker)] : []
        ).issue(publicKey: .p256(leafKey.publicKey), issuer: intermediate, signedBy: .p256(intermediateKey))
    }

    /// A payment processing certificate for `merchantIdentifier` (e.g. `merchant.com.example`),
    /// with a fresh key: P-256 for EC_v1, RSA-2048 for RSA_v1.
    public func issueMerchantKey(merchantIdentifier: String, rsa: Bool = false) throws -> ApplePay.MerchantKey {
        // The extension's value: a UTF8String of the hex SHA-256 of the merchant id (0x0C 0x40 …).
        let hex = Array(Hex.encode(DigestAlgorithm.sha256.hash(Array(merchantIdentifier.utf8))).utf8)
        let builder = CertificateBuilder(
            subject: [("UID", merchantIdentifier), ("CN", "Apple Pay Payment Processing:\(merchantIdentifier)"), ("C", "US")],
            serialNumber: UInt64.random(in: 1000...UInt64(Int64.max)),
            extensions: [X509Extension(oid: ApplePay.merchantIdentifierOID, isCritical: false, value: [0x0C, 0x40] + hex)])
        if rsa {
            let key = try RSAPrivateKey(generatingKeySizeInBits: 2048)
            let certificate = try builder.issue(publicKey: .rsa(key.publicKey), issuer: intermediate, signedBy: .p256(intermediateKey))
            return try ApplePay.MerchantKey(certificate: certificate, privateKey: .rsa(key))
        }
        let key = try P256PrivateKey()
        let certificate = try builder.issue(publicKey: .p256(key.publicKey), issuer: intermediate, signedBy: .p256(intermediateKey))
        return try ApplePay.MerchantKey(certificate: certificate, privateKey: .p256(key))
    }
}
