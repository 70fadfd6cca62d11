internal import COpenSSL
internal import COpenSSLShims
public import Foundation

/// A PKCS#12 file (`.pfx`, `.p12`): a private key, its certificate and any CA certificates.
///
/// Files sealed with the legacy algorithms older tools still write — CFCA's UnionPay merchant
/// files encrypt the certificate bag with `pbeWithSHA1And40BitRC2-CBC` — are read through a
/// library context of their own that has OpenSSL's legacy provider (see
/// `LegacyLibraryContext`); the key and certificates are then re-read in the default context,
/// so nothing else in the process uses the legacy provider.
///
/// ```swift
/// let bundle = try PKCS12Bundle(derRepresentation: try Data(contentsOf: pfxURL), password: "000000")
/// bundle.certificate.serialNumberDecimal   // UnionPay's certId
/// ```
public struct PKCS12Bundle: Sendable {
    /// The private key.
    public let privateKey: CertificateKey
    /// The certificate of the private key.
    public let certificate: X509Certificate
    /// The other certificates in the file (CA certificates), in file order.
    public let additionalCertificates: [X509Certificate]

    /// Reads a DER PKCS#12 file.
    /// - Parameters:
    ///   - der: the file's bytes.
    ///   - password: the file's password (checked against its MAC).
    /// - Throws: `CryptoError.invalidEncoding` when the bytes are not PKCS#12,
    ///   `.authenticationFailure` for a wrong password, `.invalidKey` when the file has no key or
    ///   certificate, or a key other than RSA or P-256, `.unsupportedAlgorithm` when the legacy
    ///   provider is missing.
    public init(derRepresentation der: some ContiguousBytes, password: String) throws {
        let bytes = der.withUnsafeBytes { Array($0) }
        var keyDER: [UInt8] = []
        defer { keyDER.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        var certificateDER: [UInt8] = []
        var caDER: [[UInt8]] = []
        try LegacyLibraryContext.withDefault {
            let parsed = bytes.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
                return d2i_PKCS12(nil, &cursor, buffer.count)
            }
            guard let archive = parsed else {
                throw OpenSSLErrorQueue.error(.invalidEncoding, "not a DER PKCS#12 file")
            }
            defer { PKCS12_free(archive) }
            guard PKCS12_verify_mac(archive, password, -1) == 1 else {
                OpenSSLErrorQueue.clear()
                throw CryptoError(.authenticationFailure, "the PKCS#12 password is wrong (its MAC does not verify)")
            }
            var key: OpaquePointer?
            var certificate: OpaquePointer?
            var others: OpaquePointer?
            guard PKCS12_parse(archive, password, &key, &certificate, &others) == 1 else {
                throw OpenSSLErrorQueue.error(.unsupportedAlgorithm, "the PKCS#12 file's bags cannot be decrypted")
            }
            defer {
                if let key { EVP_PKEY_free(key) }
                if let certificate { X509_free(certificate) }
                if let others { cashier_sk_X509_pop_free(others) }
            }
            guard let key, let certificate else {
                throw CryptoError(.invalidKey, "the PKCS#12 file holds no private key with its certificate")
            }
            guard let info = EVP_PKEY2PKCS8(key) else {
                throw OpenSSLErrorQueue.error(.invalidKey, "the PKCS#12 key cannot be written as PKCS#8")
            }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            keyDER = try EVPKey.encode { i2d_PKCS8_PRIV_KEY_INFO(info, $0) }
            certificateDER = try EVPKey.encode { i2d_X509(certificate, $0) }
            if let others {
                caDER = try (0..<cashier_sk_X509_num(others)).compactMap { index in
                    guard let item = cashier_sk_X509_value(others, index) else { return nil }
                    return try EVPKey.encode { i2d_X509(item, $0) }
                }
            }
        }
        let backing = try EVPKey.privateKey(der: keyDER)
        switch backing.baseID {
        case EVP_PKEY_RSA: privateKey = .rsa(try RSAPrivateKey(backing: backing))
        case EVP_PKEY_EC: privateKey = .p256(try P256PrivateKey(backing: backing))
        default: throw CryptoError(.invalidKey, "the PKCS#12 key is neither RSA nor P-256")
        }
        certificate = try X509Certificate(derRepresentation: certificateDER)
        additionalCertificates = try caDER.map { try X509Certificate(derRepresentation: $0) }
    }
}
