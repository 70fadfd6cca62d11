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
        // Key identifiers, as real CAs write them: chain building picks among issuers with the
        // same name (two sandboxes' roots, say) by the authority key identifier.
        let keyIdentifier = try Self.keyIdentifier(publicKey)
        all.append(
            X509Extension(
                oid: Self.subjectKeyIdentifierOID, isCritical: false, value: BERReader.header(tag: 0x04, length: 20) + keyIdentifier))
        let authorityKey = issuer.map { $0.extension(oid: Self.subjectKeyIdentifierOID)?.value.suffix(from: 2) } ?? keyIdentifier[...]
        if let authorityKey, authorityKey.count == 20 {
            let keyIdentifier = BERReader.header(tag: 0x80, length: 20) + authorityKey
            all.append(
                X509Extension(
                    oid: "2.5.29.35", isCritical: false, value: BERReader.header(tag: 0x30, length: keyIdentifier.count) + keyIdentifier))
        }
        for item in all { try Self.add(item, to: certificate) }
        guard X509_sign(certificate, signer.backing.pointer, EVP_sha256()) > 0 else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the issuer's key cannot sign the certificate")
        }
        return try X509Certificate(retaining: certificate)
    }

    static let subjectKeyIdentifierOID = "2.5.29.14"

    /// RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey BIT STRING's value.
    static func keyIdentifier(_ publicKey: CertificatePublicKey) throws -> [UInt8] {
        let spki = try publicKey.backing.spkiDER()
        let reader = BERReader(bytes: spki)
        guard let parts = try? reader.children(of: try reader.element(at: 0, limit: spki.count)), parts.count == 2,
            parts[1].tag == 0x03, parts[1].contents.count > 1
        else { throw CryptoError(.invalidKey, "the public key's SubjectPublicKeyInfo is malformed") }
        return DigestAlgorithm.insecureSHA1.hash(spki[(parts[1].contents.lowerBound + 1)..<parts[1].contents.upperBound])
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
