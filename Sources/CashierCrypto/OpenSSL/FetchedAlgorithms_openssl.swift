internal import COpenSSL

/// OpenSSL 3 algorithm objects, fetched once per process.
///
/// Fetching by name (`EVP_MD_fetch`, `EVP_CIPHER_fetch`, `EVP_MAC_fetch`) takes a lock and a
/// table look-up; doing it per operation costs more than hashing a kilobyte. The fetched
/// objects are immutable and safe to share between threads.
final class FetchedAlgorithms: @unchecked Sendable {
    static let shared = FetchedAlgorithms()

    let md5: OpaquePointer
    let sha1: OpaquePointer
    let sha256: OpaquePointer
    let sha384: OpaquePointer
    let sha512: OpaquePointer
    let aes128GCM: OpaquePointer
    let aes192GCM: OpaquePointer
    let aes256GCM: OpaquePointer
    let aes128ECB: OpaquePointer
    let aes192ECB: OpaquePointer
    let aes256ECB: OpaquePointer
    let hmac: OpaquePointer

    private init() {
        func digest(_ name: String) -> OpaquePointer {
            guard let md = EVP_MD_fetch(nil, name, nil) else {
                fatalError("OpenSSL has no \(name) digest: \(OpenSSLErrorQueue.drain())")
            }
            return md
        }
        func cipher(_ name: String) -> OpaquePointer {
            guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else {
                fatalError("OpenSSL has no \(name) cipher: \(OpenSSLErrorQueue.drain())")
            }
            return cipher
        }
        md5 = digest("MD5")
        sha1 = digest("SHA1")
        sha256 = digest("SHA256")
        sha384 = digest("SHA384")
        sha512 = digest("SHA512")
        aes128GCM = cipher("AES-128-GCM")
        aes192GCM = cipher("AES-192-GCM")
        aes256GCM = cipher("AES-256-GCM")
        aes128ECB = cipher("AES-128-ECB")
        aes192ECB = cipher("AES-192-ECB")
        aes256ECB = cipher("AES-256-ECB")
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else {
            fatalError("OpenSSL has no HMAC: \(OpenSSLErrorQueue.drain())")
        }
        hmac = mac
    }

    enum AESMode { case gcm, ecb }

    /// The AES cipher for a key of `keyByteCount` bytes.
    /// - Throws: `CryptoError.invalidKey` unless the key is 16, 24 or 32 bytes.
    func aes(_ mode: AESMode, keyByteCount: Int) throws -> OpaquePointer {
        switch (mode, keyByteCount) {
        case (.gcm, 16): aes128GCM
        case (.gcm, 24): aes192GCM
        case (.gcm, 32): aes256GCM
        case (.ecb, 16): aes128ECB
        case (.ecb, 24): aes192ECB
        case (.ecb, 32): aes256ECB
        default: throw CryptoError(.invalidKey, "an AES key must be 16, 24 or 32 bytes, not \(keyByteCount)")
        }
    }

    func digest(_ algorithm: DigestAlgorithm) -> OpaquePointer {
        switch algorithm.kind {
        case .md5: md5
        case .sha1: sha1
        case .sha256: sha256
        case .sha384: sha384
        case .sha512: sha512
        }
    }
}
