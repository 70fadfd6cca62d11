import Foundation
internal import COpenSSL

/// Owns one `EVP_PKEY`. OpenSSL 3 keys are safe to use from several threads for
/// signing, verifying and deriving once built.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// OpenSSL's base key type (`EVP_PKEY_RSA`, `EVP_PKEY_EC`, …).
    var baseID: Int32 { EVP_PKEY_get_base_id(pointer) }

    var bits: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// Parses a private key in DER: PKCS#8, or the traditional PKCS#1 (RSA) / SEC1 (EC) forms.
    static func privateKey(der: [UInt8]) throws -> EVPKey {
        try parse(der) { bytes, length in d2i_AutoPrivateKey(nil, bytes, length) }
            .orThrow(.invalidKey, "not a DER private key (PKCS#8, PKCS#1 or SEC1)")
    }

    /// Parses a SubjectPublicKeyInfo (X.509 `PUBLIC KEY`) in DER.
    static func publicKey(spki der: [UInt8]) throws -> EVPKey {
        try parse(der) { bytes, length in d2i_PUBKEY(nil, bytes, length) }
            .orThrow(.invalidKey, "not a DER SubjectPublicKeyInfo public key")
    }

    /// Parses a PKCS#1 `RSAPublicKey` in DER.
    static func rsaPublicKey(pkcs1 der: [UInt8]) throws -> EVPKey {
        try parse(der) { bytes, length in d2i_PublicKey(EVP_PKEY_RSA, nil, bytes, length) }
            .orThrow(.invalidKey, "not a DER PKCS#1 RSA public key")
    }

    private static func parse(
        _ der: [UInt8],
        _ body: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) -> OpaquePointer?
    ) -> EVPKey? {
        der.withUnsafeBufferPointer { buffer -> EVPKey? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let key = body(&cursor, buffer.count) else {
                OpenSSLErrorQueue.clear()
                return nil
            }
            return EVPKey(taking: key)
        }
    }

    /// The private key as PKCS#8 DER.
    func pkcs8DER() throws -> [UInt8] {
        guard let info = EVP_PKEY2PKCS8(pointer) else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the key cannot be written as PKCS#8")
        }
        defer { PKCS8_PRIV_KEY_INFO_free(info) }
        return try Self.encode { i2d_PKCS8_PRIV_KEY_INFO(info, $0) }
    }

    /// The private key in its traditional DER form (PKCS#1 for RSA, SEC1 for EC).
    func traditionalPrivateDER() throws -> [UInt8] {
        try Self.encode { i2d_PrivateKey(pointer, $0) }
    }

    /// The public key as SubjectPublicKeyInfo DER.
    func spkiDER() throws -> [UInt8] {
        try Self.encode { i2d_PUBKEY(pointer, $0) }
    }

    /// Runs an OpenSSL `i2d_*` function twice: once for the length, once to write.
    static func encode(_ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) throws -> [UInt8] {
        let length = i2d(nil)
        guard length > 0 else { throw OpenSSLErrorQueue.error(.internalFailure, "DER encoding failed") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d(&cursor)
        }
        guard written == length else { throw OpenSSLErrorQueue.error(.internalFailure, "DER encoding failed") }
        return out
    }

    /// Generates a key with `EVP_PKEY_keygen` after `configure` sets its parameters.
    static func generate(algorithm: String, configure: (OpaquePointer) -> Int32) throws -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, algorithm, nil) else {
            throw OpenSSLErrorQueue.error(.unsupportedAlgorithm, "OpenSSL cannot generate \(algorithm) keys")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1, EVP_PKEY_generate(context, &key) == 1,
            let key
        else {
            throw OpenSSLErrorQueue.error(.internalFailure, "\(algorithm) key generation failed")
        }
        return EVPKey(taking: key)
    }

    /// Makes a one-shot digest-sign or digest-verify context for this key.
    func withDigestContext<Result>(
        digest: DigestAlgorithm,
        signing: Bool,
        rsaPadding: Int32? = nil,
        _ body: (OpaquePointer) throws -> Result
    ) throws -> Result {
        guard let context = EVP_MD_CTX_new() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_MD_CTX_new failed")
        }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer?
        let md = FetchedAlgorithms.shared.digest(digest)
        let started =
            signing
            ? EVP_DigestSignInit(context, &keyContext, md, nil, pointer)
            : EVP_DigestVerifyInit(context, &keyContext, md, nil, pointer)
        guard started == 1 else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the key cannot be used with \(digest)")
        }
        if let rsaPadding, EVP_PKEY_CTX_set_rsa_padding(keyContext, rsaPadding) != 1 {
            throw OpenSSLErrorQueue.error(.internalFailure, "could not set RSA padding")
        }
        return try body(context)
    }

    /// Signs `message` with a prepared digest-sign context.
    func sign(_ message: some ContiguousBytes, digest: DigestAlgorithm, rsaPadding: Int32? = nil) throws -> [UInt8] {
        try withDigestContext(digest: digest, signing: true, rsaPadding: rsaPadding) { context in
            try message.withUnsafeBytes { input in
                var length = 0
                guard EVP_DigestSign(context, nil, &length, input.baseAddress, input.count) == 1 else {
                    throw OpenSSLErrorQueue.error(.internalFailure, "signing failed")
                }
                var out = [UInt8](repeating: 0, count: length)
                guard EVP_DigestSign(context, &out, &length, input.baseAddress, input.count) == 1 else {
                    throw OpenSSLErrorQueue.error(.internalFailure, "signing failed")
                }
                return Array(out.prefix(length))
            }
        }
    }

    /// `true` when `signature` verifies over `message`; OpenSSL's errors from a mismatch are cleared.
    func verify(
        _ signature: some ContiguousBytes,
        message: some ContiguousBytes,
        digest: DigestAlgorithm,
        rsaPadding: Int32? = nil
    ) -> Bool {
        let result = try? withDigestContext(digest: digest, signing: false, rsaPadding: rsaPadding) { context in
            signature.withUnsafeBytes { sig in
                message.withUnsafeBytes { input in
                    EVP_DigestVerify(
                        context, sig.baseAddress?.assumingMemoryBound(to: UInt8.self), sig.count, input.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        input.count)
                }
            }
        }
        if result != 1 { OpenSSLErrorQueue.clear() }
        return result == 1
    }
}

extension Optional where Wrapped == EVPKey {
    func orThrow(_ code: CryptoError.Code, _ reason: String) throws -> EVPKey {
        guard let self else { throw CryptoError(code, reason) }
        return self
    }
}
