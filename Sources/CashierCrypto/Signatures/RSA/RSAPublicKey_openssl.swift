internal import COpenSSL
public import Foundation

/// An RSA public key: a provider's platform key, or the merchant's own public half.
///
/// ```swift
/// let alipay = try RSAPublicKey(pemRepresentation: alipayPublicKeyFromConsole)
/// alipay.isValidSignature(signature, for: Array(content.utf8), scheme: .insecurePKCS1v1_5SHA256)
/// ```
public struct RSAPublicKey: Sendable {
    let backing: EVPKey

    init(backing: EVPKey) throws {
        try backing.require(type: EVP_PKEY_RSA, name: "RSA")
        self.backing = backing
    }

    /// Reads a key from PEM (`PUBLIC KEY`, `RSA PUBLIC KEY`, or the key of a `CERTIFICATE`)
    /// or from bare base64 DER as the Alipay console hands it out.
    public init(pemRepresentation text: String) throws {
        try self.init(backing: EVPKey.publicKey(text: text))
    }

    /// Reads a key from DER (SubjectPublicKeyInfo or PKCS#1).
    public init(derRepresentation der: some ContiguousBytes) throws {
        try self.init(backing: EVPKey.publicKey(der: der.withUnsafeBytes { Array($0) }))
    }

    /// The key of an X.509 certificate.
    /// - Throws: `CryptoError.invalidKey` when the certificate holds another kind of key.
    public init(certificate: X509Certificate) throws {
        try self.init(backing: certificate.publicKeyBacking())
    }

    /// The modulus length in bits.
    public var keySizeInBits: Int { backing.bits }

    /// SubjectPublicKeyInfo DER.
    public var derRepresentation: [UInt8] { try! backing.spkiDER() }

    /// SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public var pemRepresentation: String { PEMDocument(label: "PUBLIC KEY", derBytes: derRepresentation).pemRepresentation }

    /// `true` when `signature` was made over `message` by the matching private key.
    /// A malformed signature is simply not valid; nothing throws.
    public func isValidSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes, scheme: RSASignatureScheme) -> Bool {
        backing.verify(signature, message: message, digest: scheme.digest, rsaPadding: RSA_PKCS1_PADDING)
    }

    /// Encrypts with RSA-OAEP (the sandbox's Apple Pay `RSA_v1` minter uses it).
    public func encrypt(_ plaintext: some ContiguousBytes, padding: RSAEncryptionPadding) throws -> [UInt8] {
        try RSAOAEP.run(backing, plaintext, digest: padding.digest, encrypting: true)
    }
}
