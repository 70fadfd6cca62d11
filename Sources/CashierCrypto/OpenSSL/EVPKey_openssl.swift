internal import COpenSSL
import Foundation
import Synchronization

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

    /// What a pooled `EVP_PKEY_CTX` was initialised for.
    struct Operation: Hashable, Sendable {
        enum Kind: Hashable, Sendable { case sign, verify, derive }
        let kind: Kind
        let digest: DigestAlgorithm?
        let rsaPadding: Int32?
    }

    /// Contexts initialised once per operation, reused as `openssl speed` reuses its own:
    /// initialising a context fetches the provider's algorithm, which costs more than a verify.
    private let pools = Mutex<[Operation: ContextPool]>([:])

    func withContext<Result>(for operation: Operation, _ body: (OpaquePointer) throws -> Result) throws -> Result {
        let pool = pools.withLock { pools in
            if let pool = pools[operation] { return pool }
            let pool = ContextPool(
                make: { [unowned self] in makeContext(for: operation) },
                free: { EVP_PKEY_CTX_free($0) })
            pools[operation] = pool
            return pool
        }
        return try pool.withContext(body)
    }

    private func makeContext(for operation: Operation) -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else { return nil }
        let initialised: Int32 =
            switch operation.kind {
            case .sign: EVP_PKEY_sign_init(context)
            case .verify: EVP_PKEY_verify_init(context)
            case .derive: EVP_PKEY_derive_init(context)
            }
        var ok = initialised == 1
        if ok, let padding = operation.rsaPadding { ok = EVP_PKEY_CTX_set_rsa_padding(context, padding) == 1 }
        if ok, let digest = operation.digest {
            ok = EVP_PKEY_CTX_set_signature_md(context, FetchedAlgorithms.shared.digest(digest)) == 1
        }
        guard ok else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }

    /// Hashes `message` with `digest` and signs the hash.
    func sign(_ message: some ContiguousBytes, digest: DigestAlgorithm, rsaPadding: Int32? = nil) throws -> [UInt8] {
        let hash = digest.hash(message)
        return try withContext(for: Operation(kind: .sign, digest: digest, rsaPadding: rsaPadding)) { context in
            var length = 0
            guard EVP_PKEY_sign(context, nil, &length, hash, hash.count) == 1 else {
                throw OpenSSLErrorQueue.error(.invalidKey, "the key cannot sign with \(digest)")
            }
            var out = [UInt8](repeating: 0, count: length)
            guard EVP_PKEY_sign(context, &out, &length, hash, hash.count) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "signing failed")
            }
            return Array(out.prefix(length))
        }
    }

    /// `true` when `signature` verifies over the `digest` hash of `message`; OpenSSL's errors from
    /// a mismatch are cleared.
    func verify(
        _ signature: some ContiguousBytes,
        message: some ContiguousBytes,
        digest: DigestAlgorithm,
        rsaPadding: Int32? = nil
    ) -> Bool {
        let hash = digest.hash(message)
        let result = try? withContext(for: Operation(kind: .verify, digest: digest, rsaPadding: rsaPadding)) { context in
            signature.withUnsafeBytes { sig in
                EVP_PKEY_verify(context, sig.baseAddress?.assumingMemoryBound(to: UInt8.self), sig.count, hash, hash.count)
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
