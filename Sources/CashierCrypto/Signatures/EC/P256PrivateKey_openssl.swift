internal import COpenSSL
internal import COpenSSLShims
public import Foundation

/// A NIST P-256 private key: ECDSA signing and ECDH key agreement.
///
/// ```swift
/// let merchant = try P256PrivateKey(pemRepresentation: processingKeyPEM)
/// let secret = try merchant.sharedSecret(with: try P256PublicKey(derRepresentation: ephemeralKeyDER))
/// ```
public struct P256PrivateKey: Sendable {
    let backing: EVPKey

    init(backing: EVPKey) throws {
        try P256PublicKey.requireP256(backing)
        // Parsing accepts any scalar; a zero or out-of-range one must not become a key.
        guard let context = EVP_PKEY_CTX_new(backing.pointer, nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_new failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_check(context) == 1 else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the P-256 private key is invalid (scalar out of range or wrong public point)")
        }
        self.backing = backing
    }

    /// Reads a key from PEM (`EC PRIVATE KEY` (SEC1) or `PRIVATE KEY` (PKCS#8)) or bare base64 DER.
    public init(pemRepresentation text: String) throws {
        try self.init(backing: EVPKey.privateKey(text: text))
    }

    /// Reads a key from DER (SEC1 or PKCS#8).
    public init(derRepresentation der: some ContiguousBytes) throws {
        try self.init(backing: EVPKey.privateKey(der: der.withUnsafeBytes { Array($0) }))
    }

    /// Reads a raw 32-byte private scalar (big-endian), as test vectors publish them.
    /// - Throws: `CryptoError.invalidKey` for a wrong length or a scalar outside 1…n-1.
    public init(rawRepresentation scalar: some ContiguousBytes) throws {
        let bytes = scalar.withUnsafeBytes { Array($0) }
        guard bytes.count == 32 else { throw CryptoError(.invalidKey, "a P-256 scalar is 32 bytes, not \(bytes.count)") }
        // SEC1 ECPrivateKey { version 1, privateKey, [0] prime256v1 }; OpenSSL derives the public point.
        let sec1: [UInt8] =
            [0x30, 0x31, 0x02, 0x01, 0x01, 0x04, 0x20] + bytes
            + [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        try self.init(derRepresentation: sec1)
    }

    /// Generates a fresh key.
    public init() throws {
        try self.init(backing: EVPKey.generate(algorithm: "EC") { EVP_PKEY_CTX_set_group_name($0, "P-256") })
    }

    /// The matching public key.
    public var publicKey: P256PublicKey { try! P256PublicKey(backing: backing.publicOnly()) }

    /// PKCS#8 DER.
    public var derRepresentation: [UInt8] { try! backing.pkcs8DER() }

    /// PKCS#8 PEM (the `PRIVATE KEY` label).
    public var pemRepresentation: String { PEMDocument(label: "PRIVATE KEY", derBytes: derRepresentation).pemRepresentation }

    /// SEC1 `ECPrivateKey` DER.
    public var sec1DERRepresentation: [UInt8] { try! backing.traditionalPrivateDER() }

    /// ECDSA with SHA-256 over `message`; the signature is DER `ECDSA-Sig-Value`.
    public func signature(for message: some ContiguousBytes) throws -> [UInt8] {
        try backing.sign(message, digest: .sha256)
    }

    /// The ECDH shared secret Z (the x-coordinate, 32 bytes) with another party's public key.
    /// The ECDH shared secret Z with a peer given as its uncompressed point (`04 ‖ X ‖ Y`) or its
    /// SubjectPublicKeyInfo DER, without building a key object for it: the way to derive from a
    /// one-time ephemeral key (an Apple Pay token's), as parsing a key costs more than deriving.
    /// - Throws: `CryptoError.invalidKey` when the bytes are not a point on P-256.
    public func sharedSecret(withPeerPoint encoded: some ContiguousBytes) throws -> [UInt8] {
        let bytes = encoded.withUnsafeBytes { Array($0) }
        let point = bytes.count == 91 && bytes.starts(with: P256PublicKey.spkiPrefix) ? Array(bytes.suffix(65)) : bytes
        var secret = [UInt8](repeating: 0, count: 32)
        guard cashier_p256_ecdh_x963(backing.pointer, point, point.count, &secret) == 32 else {
            OpenSSLErrorQueue.clear()
            throw CryptoError(.invalidKey, "the peer is not an uncompressed P-256 point (or SubjectPublicKeyInfo) on the curve")
        }
        return secret
    }

    public func sharedSecret(with peer: P256PublicKey) throws -> [UInt8] {
        try backing.withContext(for: EVPKey.Operation(kind: .derive, digest: nil, rsaPadding: nil)) { context in
            // The peer point was checked to be on P-256 when it was parsed; P-256 has cofactor 1,
            // so OpenSSL's default re-validation (a full scalar multiplication) is skipped.
            var length = 0
            guard EVP_PKEY_derive_set_peer_ex(context, peer.backing.pointer, 0) == 1, EVP_PKEY_derive(context, nil, &length) == 1 else {
                throw OpenSSLErrorQueue.error(.invalidKey, "ECDH failed: the peer key is not usable with this key")
            }
            var secret = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_derive(context, &secret, &length) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "ECDH derivation failed")
            }
            return Array(secret.prefix(length))
        }
    }
}
