internal import COpenSSL
public import Foundation

/// A NIST P-256 public key: ECDSA verification and the peer side of ECDH.
public struct P256PublicKey: Sendable {

    let backing: EVPKey

    /// The fixed SubjectPublicKeyInfo prefix of an uncompressed P-256 point
    /// (id-ecPublicKey, prime256v1, BIT STRING of 66 bytes).
    static let spkiPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
        0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
    ]

    init(backing: EVPKey) throws {
        try Self.requireP256(backing)
        guard let context = EVP_PKEY_CTX_new(backing.pointer, nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_new failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check_quick(context) == 1 else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the P-256 public key is not a point on the curve")
        }
        self.backing = backing
    }

    static func requireP256(_ key: EVPKey) throws {
        try key.require(type: EVP_PKEY_EC, name: "EC")
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(key.pointer, &name, name.count, &length) == 1,
            String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) == "prime256v1"
        else {
            OpenSSLErrorQueue.clear()
            throw CryptoError(.invalidKey, "the EC key is not on the P-256 curve")
        }
    }

    /// Reads a key from SubjectPublicKeyInfo DER (as Apple Pay's `ephemeralPublicKey`).
    public init(derRepresentation der: some ContiguousBytes) throws {
        try self.init(backing: EVPKey.publicKey(spki: der.withUnsafeBytes { Array($0) }))
    }

    /// Reads a key from PEM (`PUBLIC KEY` or a `CERTIFICATE`).
    public init(pemRepresentation text: String) throws {
        try self.init(backing: EVPKey.publicKey(text: text))
    }

    /// Reads an uncompressed point `04 ‖ X ‖ Y` (65 bytes, ANSI X9.63).
    public init(x963Representation point: some ContiguousBytes) throws {
        let bytes = point.withUnsafeBytes { Array($0) }
        guard bytes.count == 65, bytes[0] == 0x04 else {
            throw CryptoError(.invalidKey, "a P-256 point must be 65 bytes starting with 04")
        }
        try self.init(derRepresentation: Self.spkiPrefix + bytes)
    }

    /// The key of an X.509 certificate.
    public init(certificate: X509Certificate) throws {
        try self.init(backing: certificate.publicKeyBacking())
    }

    /// SubjectPublicKeyInfo DER.
    public var derRepresentation: [UInt8] { try! backing.spkiDER() }

    /// SubjectPublicKeyInfo PEM.
    public var pemRepresentation: String { PEMDocument(label: "PUBLIC KEY", derBytes: derRepresentation).pemRepresentation }

    /// The uncompressed point `04 ‖ X ‖ Y`.
    public var x963Representation: [UInt8] { Array(derRepresentation.suffix(65)) }

    /// `true` when the DER ECDSA `signature` (SHA-256) was made over `message` by the matching key.
    public func isValidSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
        backing.verify(signature, message: message, digest: .sha256)
    }
}
