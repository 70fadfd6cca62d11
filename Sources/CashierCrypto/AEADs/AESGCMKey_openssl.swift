public import Foundation
internal import COpenSSL

/// An AES-GCM key (128, 192 or 256 bits), keyed once and reused.
///
/// Any IV length is accepted (12 bytes is standard; Apple Pay uses 16 zero bytes), with
/// optional associated data. Opening checks the tag before returning anything.
///
/// ```swift
/// let key = try AESGCMKey(apiV3Key)
/// let box = try key.seal(plaintext, iv: nonce, authenticating: aad)
/// let opened = try key.open(box, iv: nonce, authenticating: aad)
/// ```
public final class AESGCMKey: Sendable {
    /// The key size in bits.
    public let keySizeInBits: Int
    private let template: Template
    private let pool: ContextPool

    private final class Template: @unchecked Sendable {
        let context: OpaquePointer
        init(_ context: OpaquePointer) { self.context = context }
        deinit { EVP_CIPHER_CTX_free(context) }
    }

    /// Creates a key from 16, 24 or 32 bytes.
    /// - Throws: `CryptoError.invalidKey` for any other length.
    public init(_ key: some ContiguousBytes) throws {
        let cipher: OpaquePointer
        let byteCount = key.withUnsafeBytes { $0.count }
        switch byteCount {
        case 16: cipher = FetchedAlgorithms.shared.aes128GCM
        case 24: cipher = FetchedAlgorithms.shared.aes192GCM
        case 32: cipher = FetchedAlgorithms.shared.aes256GCM
        default: throw CryptoError(.invalidKey, "an AES key must be 16, 24 or 32 bytes, not \(byteCount)")
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_CIPHER_CTX_new failed")
        }
        let ok = key.withUnsafeBytes { keyBytes in
            EVP_CipherInit_ex(context, cipher, nil, keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, 1)
        }
        guard ok == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw OpenSSLErrorQueue.error(.invalidKey, "AES-GCM key setup failed")
        }
        keySizeInBits = byteCount * 8
        let template = Template(context)
        self.template = template
        pool = ContextPool(
            make: {
                guard let copy = EVP_CIPHER_CTX_new() else { return nil }
                guard EVP_CIPHER_CTX_copy(copy, template.context) == 1 else {
                    EVP_CIPHER_CTX_free(copy)
                    return nil
                }
                return copy
            },
            free: { EVP_CIPHER_CTX_free($0) }
        )
    }

    /// Encrypts and authenticates.
    /// - Parameters:
    ///   - plaintext: the message.
    ///   - iv: the initialisation vector (nonce), 1 to 128 bytes; never reuse one with the same key.
    ///   - aad: associated data that is authenticated but not encrypted.
    /// - Returns: the ciphertext and its tag.
    public func seal(
        _ plaintext: some ContiguousBytes,
        iv: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> AESGCMSealedBox {
        try pool.withContext { context in
            try start(context, iv: iv, aad: aad, encrypting: true)
            var ciphertext = try update(context, plaintext)
            var tail = [UInt8](repeating: 0, count: 16)
            var tailLength: Int32 = 0
            guard EVP_CipherFinal_ex(context, &tail, &tailLength) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "AES-GCM encryption failed")
            }
            ciphertext += tail.prefix(Int(tailLength))
            var tag = [UInt8](repeating: 0, count: AESGCMSealedBox.tagByteCount)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tag.count), &tag) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "AES-GCM could not produce its tag")
            }
            return AESGCMSealedBox(ciphertext: ciphertext, tag: tag)
        }
    }

    /// Checks the tag and decrypts.
    /// - Parameters:
    ///   - box: ciphertext and tag (a tag of 12 to 16 bytes is accepted).
    ///   - iv: the initialisation vector used to seal.
    ///   - aad: the associated data used to seal.
    /// - Returns: the plaintext.
    /// - Throws: `CryptoError.authenticationFailure` when the tag does not match: the
    ///   ciphertext, tag, IV, associated data or key is not the genuine one.
    public func open(
        _ box: AESGCMSealedBox,
        iv: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        guard (12...16).contains(box.tag.count) else {
            throw CryptoError(.invalidInput, "an AES-GCM tag must be 12 to 16 bytes, not \(box.tag.count)")
        }
        return try pool.withContext { context in
            try start(context, iv: iv, aad: aad, encrypting: false)
            var plaintext = try update(context, box.ciphertext)
            var tag = box.tag
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), &tag) == 1 else {
                throw OpenSSLErrorQueue.error(.invalidInput, "AES-GCM rejected the tag")
            }
            var tail = [UInt8](repeating: 0, count: 16)
            var tailLength: Int32 = 0
            guard EVP_CipherFinal_ex(context, &tail, &tailLength) == 1 else {
                OpenSSLErrorQueue.clear()
                throw CryptoError(.authenticationFailure, "AES-GCM tag mismatch: the data, key, IV or associated data is wrong")
            }
            plaintext += tail.prefix(Int(tailLength))
            return plaintext
        }
    }

    /// Opens ciphertext ‖ tag as providers send it.
    public func open(
        combined: some Collection<UInt8>,
        iv: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try open(AESGCMSealedBox(combined: combined), iv: iv, authenticating: aad)
    }

    private func start(_ context: OpaquePointer, iv: some ContiguousBytes, aad: some ContiguousBytes, encrypting: Bool) throws {
        let direction: Int32 = encrypting ? 1 : 0
        try iv.withUnsafeBytes { ivBytes in
            guard (1...128).contains(ivBytes.count) else {
                throw CryptoError(.invalidInput, "an AES-GCM IV must be 1 to 128 bytes, not \(ivBytes.count)")
            }
            if EVP_CIPHER_CTX_get_iv_length(context) != Int32(ivBytes.count) {
                guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(ivBytes.count), nil) == 1 else {
                    throw OpenSSLErrorQueue.error(.invalidInput, "AES-GCM rejected the IV length")
                }
            }
            let ivPointer = ivBytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            guard EVP_CipherInit_ex(context, nil, nil, nil, ivPointer, direction) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "AES-GCM could not start")
            }
        }
        try aad.withUnsafeBytes { aadBytes in
            guard aadBytes.count > 0 else { return }
            var unused: Int32 = 0
            guard
                EVP_CipherUpdate(
                    context, nil, &unused, aadBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(aadBytes.count)
                ) == 1
            else {
                throw OpenSSLErrorQueue.error(.internalFailure, "AES-GCM rejected the associated data")
            }
        }
    }

    private func update(_ context: OpaquePointer, _ input: some ContiguousBytes) throws -> [UInt8] {
        try input.withUnsafeBytes { inputBytes in
            guard inputBytes.count > 0 else { return [] }
            guard inputBytes.count < Int(Int32.max) else {
                throw CryptoError(.invalidInput, "AES-GCM input is too large")
            }
            var output = [UInt8](repeating: 0, count: inputBytes.count)
            var written: Int32 = 0
            let ok = output.withUnsafeMutableBufferPointer { out in
                EVP_CipherUpdate(
                    context, out.baseAddress, &written, inputBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    Int32(inputBytes.count))
            }
            guard ok == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "AES-GCM update failed") }
            return Array(output.prefix(Int(written)))
        }
    }
}
