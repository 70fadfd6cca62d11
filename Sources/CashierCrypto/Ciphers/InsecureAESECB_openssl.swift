internal import COpenSSL
public import Foundation

/// AES in ECB mode with PKCS#7 padding.
///
/// ECB leaks patterns and authenticates nothing. It exists here because WeChat Pay v2
/// encrypts refund notifications (`req_info`) with AES-256-ECB, keyed by the lower-case
/// hex MD5 of the merchant's API key. Do not use it for anything new.
public enum InsecureAESECB {
    /// Encrypts with PKCS#7 padding.
    /// - Parameters:
    ///   - plaintext: the message.
    ///   - key: 16, 24 or 32 bytes.
    public static func encrypt(_ plaintext: some ContiguousBytes, key: some ContiguousBytes) throws -> [UInt8] {
        try run(plaintext, key: key, encrypting: true)
    }

    /// Decrypts and removes PKCS#7 padding.
    /// - Throws: `CryptoError.authenticationFailure` when the padding is wrong, which is what a
    ///   wrong key or corrupted ciphertext looks like; `.invalidInput` when the length is not a
    ///   multiple of 16.
    public static func decrypt(_ ciphertext: some ContiguousBytes, key: some ContiguousBytes) throws -> [UInt8] {
        let count = ciphertext.withUnsafeBytes { $0.count }
        guard count > 0, count % 16 == 0 else {
            throw CryptoError(.invalidInput, "AES-ECB ciphertext must be a non-empty multiple of 16 bytes, not \(count)")
        }
        return try run(ciphertext, key: key, encrypting: false)
    }

    private static func run(_ input: some ContiguousBytes, key: some ContiguousBytes, encrypting: Bool) throws -> [UInt8] {
        let cipher = try FetchedAlgorithms.shared.aes(.ecb, keyByteCount: key.withUnsafeBytes { $0.count })
        guard let context = EVP_CIPHER_CTX_new() else {
            throw OpenSSLErrorQueue.error(.internalFailure, "EVP_CIPHER_CTX_new failed")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        let started = key.withUnsafeBytes { keyBytes in
            EVP_CipherInit_ex(
                context, cipher, nil, keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, encrypting ? 1 : 0)
        }
        guard started == 1 else { throw OpenSSLErrorQueue.error(.invalidKey, "AES-ECB key setup failed") }
        return try input.withUnsafeBytes { inputBytes in
            var output = [UInt8](repeating: 0, count: inputBytes.count + 16)
            var written: Int32 = 0
            var finalWritten: Int32 = 0
            let updated = output.withUnsafeMutableBufferPointer { out in
                EVP_CipherUpdate(
                    context, out.baseAddress, &written, inputBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    Int32(inputBytes.count))
            }
            guard updated == 1 else { throw OpenSSLErrorQueue.error(.internalFailure, "AES-ECB update failed") }
            let finished = output.withUnsafeMutableBufferPointer { out in
                EVP_CipherFinal_ex(context, out.baseAddress! + Int(written), &finalWritten)
            }
            guard finished == 1 else {
                OpenSSLErrorQueue.clear()
                throw CryptoError(.authenticationFailure, "AES-ECB padding is wrong: the key or ciphertext is not genuine")
            }
            return Array(output.prefix(Int(written + finalWritten)))
        }
    }
}
