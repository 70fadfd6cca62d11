internal import COpenSSL
public import Foundation

/// An RSA private key, used on the server only.
///
/// ```swift
/// let key = try RSAPrivateKey(pemRepresentation: try String(contentsOfFile: "apiclient_key.pem"))
/// let signature = try key.signature(for: Array(message.utf8), scheme: .insecurePKCS1v1_5SHA256)
/// ```
public struct RSAPrivateKey: Sendable {
    let backing: EVPKey

    init(backing: EVPKey) throws {
        try backing.require(type: EVP_PKEY_RSA, name: "RSA")
        guard backing.bits >= 1024 else {
            throw CryptoError(.invalidKey, "RSA keys shorter than 1024 bits are refused (got \(backing.bits))")
        }
        self.backing = backing
    }

    /// Reads a key from PEM (`PRIVATE KEY` or `RSA PRIVATE KEY`, with or without a preamble)
    /// or from bare base64 DER as the Alipay console hands it out.
    /// - Throws: `CryptoError.invalidKey` or `.invalidEncoding` saying what was wrong.
    public init(pemRepresentation text: String) throws {
        try self.init(backing: EVPKey.privateKey(text: text))
    }

    /// Reads a key from DER (PKCS#8 or PKCS#1).
    public init(derRepresentation der: some ContiguousBytes) throws {
        try self.init(backing: EVPKey.privateKey(der: der.withUnsafeBytes { Array($0) }))
    }

    /// Generates a fresh key (for sandboxes and tests; real keys come from the provider console).
    public init(generatingKeySizeInBits bits: Int = 2048) throws {
        try self.init(backing: EVPKey.generate(algorithm: "RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) })
    }

    /// The modulus length in bits.
    public var keySizeInBits: Int { backing.bits }

    /// The matching public key.
    public var publicKey: RSAPublicKey {
        // A key OpenSSL parsed or generated always has a writable public half.
        try! RSAPublicKey(backing: backing.publicOnly())
    }

    /// PKCS#8 `PrivateKeyInfo` DER.
    public var derRepresentation: [UInt8] { try! backing.pkcs8DER() }

    /// PKCS#8 PEM (the `PRIVATE KEY` label).
    public var pemRepresentation: String { PEMDocument(label: "PRIVATE KEY", derBytes: derRepresentation).pemRepresentation }

    /// PKCS#1 `RSAPrivateKey` DER.
    public var pkcs1DERRepresentation: [UInt8] { try! backing.traditionalPrivateDER() }

    /// PKCS#1 PEM (the `RSA PRIVATE KEY` label).
    public var pkcs1PEMRepresentation: String {
        PEMDocument(label: "RSA PRIVATE KEY", derBytes: pkcs1DERRepresentation).pemRepresentation
    }

    /// Signs a message (it is hashed with the scheme's digest first).
    /// - Parameters:
    ///   - message: the bytes to sign.
    ///   - scheme: the signature scheme the protocol requires.
    /// - Returns: the signature, as long as the modulus.
    public func signature(for message: some ContiguousBytes, scheme: RSASignatureScheme) throws -> [UInt8] {
        try backing.sign(message, digest: scheme.digest, rsaPadding: RSA_PKCS1_PADDING)
    }

    /// Signs the UTF-8 bytes of a string.
    public func signature(for text: String, scheme: RSASignatureScheme) throws -> [UInt8] {
        try signature(for: Array(text.utf8), scheme: scheme)
    }

    /// Decrypts an RSA-OAEP ciphertext (Apple Pay `RSA_v1` wrapped keys).
    /// - Throws: `CryptoError.authenticationFailure` when the ciphertext was not made for this key.
    public func decrypt(_ ciphertext: some ContiguousBytes, padding: RSAEncryptionPadding) throws -> [UInt8] {
        try RSAOAEP.run(backing, ciphertext, digest: padding.digest, encrypting: false)
    }
}

/// RSA-OAEP through `EVP_PKEY_encrypt`/`EVP_PKEY_decrypt`.
enum RSAOAEP {
    static func run(_ key: EVPKey, _ input: some ContiguousBytes, digest: DigestAlgorithm, encrypting: Bool) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new(key.pointer, nil) else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_PKEY_CTX_new failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        let md = FetchedAlgorithms.shared.digest(digest)
        let initialised = encrypting ? EVP_PKEY_encrypt_init(context) : EVP_PKEY_decrypt_init(context)
        guard initialised == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_OAEP_PADDING) == 1,
            EVP_PKEY_CTX_set_rsa_oaep_md(context, md) == 1, EVP_PKEY_CTX_set_rsa_mgf1_md(context, md) == 1
        else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the key cannot be used for RSA-OAEP")
        }
        return try input.withUnsafeBytes { bytes in
            let inputPointer = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var length = 0
            let sized =
                encrypting
                ? EVP_PKEY_encrypt(context, nil, &length, inputPointer, bytes.count)
                : EVP_PKEY_decrypt(context, nil, &length, inputPointer, bytes.count)
            guard sized == 1 else { throw OpenSSLErrorQueue.error(.invalidInput, "RSA-OAEP input has the wrong size") }
            var out = [UInt8](repeating: 0, count: length)
            let done =
                encrypting
                ? EVP_PKEY_encrypt(context, &out, &length, inputPointer, bytes.count)
                : EVP_PKEY_decrypt(context, &out, &length, inputPointer, bytes.count)
            guard done == 1 else {
                if encrypting { throw OpenSSLErrorQueue.error(.invalidInput, "RSA-OAEP encryption failed (message too long?)") }
                OpenSSLErrorQueue.clear()
                throw CryptoError(.authenticationFailure, "RSA-OAEP decryption failed: wrong key or corrupted ciphertext")
            }
            return Array(out.prefix(length))
        }
    }
}
