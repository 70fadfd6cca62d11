internal import COpenSSL
public import Foundation

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
    private let template: OwnedPointer
    private let pool: ContextPool

    /// Creates a key from 16, 24 or 32 bytes.
    /// - Throws: `CryptoError.invalidKey` for any other length.
    public init(_ key: some ContiguousBytes) throws {
        let context = try key.withUnsafeBytes { try Self.keyedContext($0, ivLength: Self.standardIVLength) }
        keySizeInBits = key.withUnsafeBytes { $0.count } * 8
        let template = OwnedPointer(context, free: { EVP_CIPHER_CTX_free($0) })
        self.template = template
        pool = ContextPool(
            make: {
                guard let copy = EVP_CIPHER_CTX_new() else { return nil }
                guard EVP_CIPHER_CTX_copy(copy, template.pointer) == 1 else {
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
    @inlinable
    public func seal(
        _ plaintext: some ContiguousBytes,
        iv: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> AESGCMSealedBox {
        try plaintext.withUnsafeBytes { input in
            try iv.withUnsafeBytes { iv in try aad.withUnsafeBytes { aad in try seal(buffer: input, iv: iv, aad: aad) } }
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
    @inlinable
    public func open(
        _ box: AESGCMSealedBox,
        iv: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try iv.withUnsafeBytes { iv in try aad.withUnsafeBytes { aad in try open(box: box, iv: iv, aad: aad) } }
    }

    /// Opens ciphertext ‖ tag as providers send it.
    @inlinable
    public func open(
        combined: some Collection<UInt8>,
        iv: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try open(AESGCMSealedBox(combined: combined), iv: iv, authenticating: aad)
    }

    @usableFromInline
    func seal(buffer input: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer) throws -> AESGCMSealedBox {
        try withContext(ivLength: iv.count) { context in
            try Self.start(context, iv: iv, aad: aad, encrypting: true)
            let ciphertext = try Self.update(context, input)
            try Self.finish(context) { OpenSSLErrorQueue.error(.internalFailure, "AES-GCM encryption failed") }
            var tag = [UInt8](repeating: 0, count: AESGCMSealedBox.tagByteCount)
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tag.count), &tag) == 1 else {
                throw OpenSSLErrorQueue.error(.internalFailure, "AES-GCM could not produce its tag")
            }
            return AESGCMSealedBox(ciphertext: ciphertext, tag: tag)
        }
    }

    @usableFromInline
    func open(box: AESGCMSealedBox, iv: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer) throws -> [UInt8] {
        try box.ciphertext.withUnsafeBytes { ciphertext in
            try box.tag.withUnsafeBytes { tag in
                try withContext(ivLength: iv.count) { context in
                    try Self.open(context, ciphertext: ciphertext, tag: tag, iv: iv, aad: aad)
                }
            }
        }
    }

    /// Opens ciphertext ‖ tag with a key used for one message only (Apple Pay derives one per
    /// token): a single OpenSSL context from key set-up to tag check, and nothing kept.
    /// - Parameters:
    ///   - combined: the ciphertext followed by its 16-byte tag.
    ///   - key: 16, 24 or 32 bytes.
    ///   - iv: the initialisation vector used to seal, 1 to 128 bytes.
    ///   - aad: the associated data used to seal.
    /// - Throws: `CryptoError.invalidKey` for another key length, `.invalidInput` for data
    ///   shorter than its tag or an IV of another length, `.authenticationFailure` when the tag
    ///   does not match.
    public static func open(
        combined: some ContiguousBytes,
        key: some ContiguousBytes,
        iv: some ContiguousBytes,
        authenticating aad: some ContiguousBytes = [UInt8]()
    ) throws -> [UInt8] {
        try combined.withUnsafeBytes { combined in
            try key.withUnsafeBytes { key in
                try iv.withUnsafeBytes { iv in
                    try aad.withUnsafeBytes { aad in try open(combined: combined, key: key, iv: iv, aad: aad) }
                }
            }
        }
    }

    private static func open(
        combined: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer
    ) throws -> [UInt8] {
        let tagStart = combined.count - AESGCMSealedBox.tagByteCount
        guard tagStart >= 0 else { throw CryptoError(.invalidInput, "AES-GCM data is shorter than its 16-byte tag") }
        try checkIVLength(iv.count)
        let context = try keyedContext(key, ivLength: iv.count)
        defer { EVP_CIPHER_CTX_free(context) }
        return try open(
            context, ciphertext: UnsafeRawBufferPointer(rebasing: combined[..<tagStart]),
            tag: UnsafeRawBufferPointer(rebasing: combined[tagStart...]), iv: iv, aad: aad)
    }

    /// Sets the IV, authenticates `aad`, decrypts, and checks `tag` before returning anything.
    private static func open(
        _ context: OpaquePointer, ciphertext: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer, iv: UnsafeRawBufferPointer,
        aad: UnsafeRawBufferPointer
    ) throws -> [UInt8] {
        guard (12...16).contains(tag.count) else {
            throw CryptoError(.invalidInput, "an AES-GCM tag must be 12 to 16 bytes, not \(tag.count)")
        }
        try start(context, iv: iv, aad: aad, encrypting: false)
        let plaintext = try update(context, ciphertext)
        // The control call takes a mutable pointer, though it only reads the tag.
        let accepted = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: tag.count) { copy in
            _ = copy.initialize(from: tag)
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tag.count), copy.baseAddress) == 1
        }
        guard accepted else { throw OpenSSLErrorQueue.error(.invalidInput, "AES-GCM rejected the tag") }
        try finish(context) {
            OpenSSLErrorQueue.clear()
            return CryptoError(.authenticationFailure, "AES-GCM tag mismatch: the data, key, IV or associated data is wrong")
        }
        return plaintext
    }

    /// Pooled contexts keep the standard 12-byte IV length; any other length (Apple Pay's 16
    /// bytes) gets a context of its own, so the common path never queries or resets it.
    private func withContext<Result>(ivLength: Int, _ body: (OpaquePointer) throws -> Result) throws -> Result {
        try Self.checkIVLength(ivLength)
        if ivLength == Self.standardIVLength {
            return try pool.withContext(body)
        }
        guard let context = EVP_CIPHER_CTX_new() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_CIPHER_CTX_new failed")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_CIPHER_CTX_copy(context, template.pointer) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(ivLength), nil) == 1
        else {
            throw OpenSSLErrorQueue.error(.invalidInput, "AES-GCM rejected the IV length")
        }
        return try body(context)
    }

    private static let standardIVLength = 12

    private static func checkIVLength(_ length: Int) throws {
        guard (1...128).contains(length) else { throw CryptoError(.invalidInput, "an AES-GCM IV must be 1 to 128 bytes, not \(length)") }
    }

    /// A new context holding `key` (its schedule made once), for IVs of `ivLength` bytes; the
    /// caller frees it. Each operation then sets its IV and direction (``start(_:iv:aad:encrypting:)``).
    /// - Throws: `CryptoError.invalidKey` unless the key is 16, 24 or 32 bytes.
    private static func keyedContext(_ key: UnsafeRawBufferPointer, ivLength: Int) throws -> OpaquePointer {
        let cipher = try FetchedAlgorithms.shared.aes(.gcm, keyByteCount: key.count)
        guard let context = EVP_CIPHER_CTX_new() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_CIPHER_CTX_new failed")
        }
        guard EVP_CipherInit_ex(context, cipher, nil, nil, nil, 1) == 1,
            ivLength == standardIVLength || EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(ivLength), nil) == 1,
            EVP_CipherInit_ex(context, nil, nil, key.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, 1) == 1
        else {
            EVP_CIPHER_CTX_free(context)
            throw OpenSSLErrorQueue.error(.invalidKey, "AES-GCM key setup failed")
        }
        return context
    }

    private static func start(_ context: OpaquePointer, iv: UnsafeRawBufferPointer, aad: UnsafeRawBufferPointer, encrypting: Bool) throws {
        let ivPointer = iv.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard EVP_CipherInit_ex(context, nil, nil, nil, ivPointer, encrypting ? 1 : 0) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "AES-GCM could not start")
        }
        guard aad.count > 0 else { return }
        var unused: Int32 = 0
        guard EVP_CipherUpdate(context, nil, &unused, aad.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(aad.count)) == 1 else {
            throw OpenSSLErrorQueue.error(.internalFailure, "AES-GCM rejected the associated data")
        }
    }

    /// `EVP_CipherFinal_ex`, which writes nothing for GCM (a stream mode), into a stack buffer.
    private static func finish(_ context: OpaquePointer, failure: () -> CryptoError) throws {
        let ok = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer -> Bool in
            var written: Int32 = 0
            return EVP_CipherFinal_ex(context, buffer.baseAddress, &written) == 1 && written == 0
        }
        guard ok else { throw failure() }
    }

    private static func update(_ context: OpaquePointer, _ input: UnsafeRawBufferPointer) throws -> [UInt8] {
        guard input.count > 0 else { return [] }
        guard input.count < Int(Int32.max) else { throw CryptoError(.invalidInput, "AES-GCM input is too large") }
        var written: Int32 = 0
        var ok: Int32 = 0
        let output = [UInt8](unsafeUninitializedCapacity: input.count) { buffer, count in
            ok = EVP_CipherUpdate(
                context, buffer.baseAddress, &written, input.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(input.count))
            count = ok == 1 ? Int(written) : 0
        }
        guard ok == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "AES-GCM update failed") }
        return output
    }
}
