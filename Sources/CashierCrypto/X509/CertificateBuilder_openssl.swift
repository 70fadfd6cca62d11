internal import COpenSSL
public import Foundation

/// Issues X.509 v3 certificates: for test CAs (the Apple Pay sandbox's root, intermediate and
/// leaf, merchant certificates) — never for anything a real relying party trusts.
///
/// ```swift
/// let rootKey = try P256PrivateKey()
/// let root = try CertificateBuilder(subject: [("CN", "Test Root")], serialNumber: 1, isCertificateAuthority: true)
///     .issue(publicKey: .p256(rootKey.publicKey), signedBy: .p256(rootKey))
/// ```
public struct CertificateBuilder: Sendable {
    /// Subject attributes, most general first: `("C", "US")`, `("O", …)`, `("CN", …)`.
    public var subject: [(String, String)]
    public var serialNumber: UInt64
    public var notValidBefore: Date
    public var notValidAfter: Date
    /// Adds a critical `basicConstraints` with `cA` true.
    public var isCertificateAuthority: Bool
    /// More extensions, each with its DER value (the contents of the extension's OCTET STRING).
    public var extensions: [X509Extension]

    public init(
        subject: [(String, String)], serialNumber: UInt64, notValidBefore: Date = Date(timeIntervalSinceNow: -86_400),
        notValidAfter: Date = Date(timeIntervalSinceNow: 365 * 86_400), isCertificateAuthority: Bool = false,
        extensions: [X509Extension] = []
    ) {
        self.subject = subject
        self.serialNumber = serialNumber
        self.notValidBefore = notValidBefore
        self.notValidAfter = notValidAfter
        self.isCertificateAuthority = isCertificateAuthority
        self.extensions = extensions
    }

    /// Signs the certificate (SHA-256) with `signer`, naming `issuer` as its issuer; a
    /// self-signed certificate when `issuer` is `nil`.
    /// - Throws: `CryptoError` when OpenSSL refuses a name, an extension or the signature.
    public func issue(publicKey: CertificatePublicKey, issuer: X509Certificate? = nil, signedBy signer: CertificateKey) throws
        -> X509Certificate
    {
        guard let certificate = X509_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_new failed") }
        defer { X509_free(certificate) }
        guard let name = X509_NAME_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "X509_NAME_new failed") }
        defer { X509_NAME_free(name) }
        for (field, value) in subject {
            guard X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, value, -1, -1, 0) == 1 else {
                throw OpenSSLErrorQueue.error(.invalidCertificate, "the subject attribute \(field) is not accepted")
            }
        }
        var ok = X509_set_version(certificate, 2) == 1
        ok = ok && ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serialNumber) == 1
        ok = ok && ASN1_TIME_set(X509_getm_notBefore(certificate), time_t(notValidBefore.timeIntervalSince1970)) != nil
        ok = ok && ASN1_TIME_set(X509_getm_notAfter(certificate), time_t(notValidAfter.timeIntervalSince1970)) != nil
        ok = ok && X509_set_subject_name(certificate, name) == 1
        if let issuer {
            ok = ok && X509_set_issuer_name(certificate, X509_get_subject_name(issuer.backing.pointer)) == 1
        } else {
            ok = ok && X509_set_issuer_name(certificate, name) == 1
        }
        ok = ok && X509_set_pubkey(certificate, publicKey.backing.pointer) == 1
        guard ok else { throw OpenSSLErrorQueue.error(.invalidCertificate, "the certificate's fields are not accepted") }
        var all = extensions
        if isCertificateAuthority {
            all.insert(X509Extension(oid: "2.5.29.19", isCritical: true, value: [0x30, 0x03, 0x01, 0x01, 0xFF]), at: 0)
        }
        for item in all { try Self.add(item, to: certificate) }
        guard X509_sign(certificate, signer.backing.pointer, EVP_sha256()) > 0 else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the issuer's key cannot sign the certificate")
        }
        return try X509Certificate(retaining: certificate)
    }

    private static func add(_ item: X509Extension, to certificate: OpaquePointer) throws {
        guard let object = OBJ_txt2obj(item.oid, 1) else {
            throw OpenSSLErrorQueue.error(.invalidCertificate, "\(item.oid) is not an object identifier")
        }
        defer { ASN1_OBJECT_free(object) }
        guard let octets = ASN1_OCTET_STRING_new() else { throw OpenSSLErrorQueue.error(.internalFailure, "ASN1_OCTET_STRING_new failed") }
        defer { ASN1_OCTET_STRING_free(octets) }
        guard ASN1_OCTET_STRING_set(octets, item.value, Int32(item.value.count)) == 1,
            let created = X509_EXTENSION_create_by_OBJ(nil, object, item.isCritical ? 1 : 0, octets)
        else { throw OpenSSLErrorQueue.error(.invalidCertificate, "the extension \(item.oid) cannot be built") }
        defer { X509_EXTENSION_free(created) }
        guard X509_add_ext(certificate, created, -1) == 1 else {
            throw OpenSSLErrorQueue.error(.invalidCertificate, "the extension \(item.oid) cannot be added")
        }
    }
}
