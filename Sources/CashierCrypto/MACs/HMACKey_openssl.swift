internal import COpenSSL
public import Foundation

/// An HMAC key, keyed once and reused for every message.
///
/// ```swift
/// let key = HMACKey(key: Array("secret".utf8))
/// let mac = key.authenticationCode(for: Array("message".utf8))
/// key.isValidAuthenticationCode(mac, for: Array("message".utf8)) // true
/// ```
///
/// The key bytes are copied into OpenSSL, which clears them when the key is released;
/// this type keeps no other copy.
public final class HMACKey: Sendable {
    /// The digest the HMAC is built on.
    public let digest: DigestAlgorithm
    private let template: OwnedPointer
    private let pool: ContextPool

    /// Creates a key.
    /// - Parameters:
    ///   - key: the secret, of any length.
    ///   - digest: the hash function; SHA-256 unless a protocol says otherwise.
    public init(key: some ContiguousBytes, digest: DigestAlgorithm = .sha256) {
        self.digest = digest
        guard let context = EVP_MAC_CTX_new(FetchedAlgorithms.shared.hmac) else {
            fatalError("EVP_MAC_CTX_new failed: \(OpenSSLErrorQueue.drain())")
        }
        let name = Self.openSSLName(digest)
        let ok = key.withUnsafeBytes { keyBytes -> Int32 in
            var placeholder: UInt8 = 0  // OpenSSL wants a non-null pointer even for an empty key
            return withUnsafeMutablePointer(to: &placeholder) { empty in
                let keyPointer = keyBytes.count > 0 ? keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self) : UnsafePointer(empty)
                return OSSL_MAC_PARAM_DIGEST.withCString { paramName in
                    name.withCString { value in
                        var params = [
                            OSSL_PARAM_construct_utf8_string(paramName, UnsafeMutablePointer(mutating: value), 0),
                            OSSL_PARAM_construct_end(),
                        ]
                        return EVP_MAC_init(context, keyPointer, keyBytes.count, &params)
                    }
                }
            }
        }
        precondition(ok == 1, "EVP_MAC_init failed: \(OpenSSLErrorQueue.drain())")
        let template = OwnedPointer(context, free: { EVP_MAC_CTX_free($0) })
        self.template = template
        self.pool = ContextPool(
            make: { EVP_MAC_CTX_dup(template.pointer) },
            free: { EVP_MAC_CTX_free($0) }
        )
    }

    /// The authentication code of `message`, `digest.byteCount` bytes long.
    @inlinable
    public func authenticationCode(for message: some ContiguousBytes) -> [UInt8] {
        message.withUnsafeBytes { authenticationCode(buffer: $0) }
    }

    @usableFromInline
    func authenticationCode(buffer input: UnsafeRawBufferPointer) -> [UInt8] {
        let size = digest.byteCount
        var ok = false
        let out = [UInt8](unsafeUninitializedCapacity: size) { output, count in
            ok =
                (try? pool.withContext { context -> Bool in
                    var length = 0
                    return EVP_MAC_init(context, nil, 0, nil) == 1
                        && EVP_MAC_update(context, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count) == 1
                        && EVP_MAC_final(context, output.baseAddress, &length, size) == 1
                        && length == size
                }) ?? false
            count = ok ? size : 0
        }
        precondition(ok, "HMAC failed: \(OpenSSLErrorQueue.drain())")
        return out
    }

    /// The authentication code of a string's UTF-8 bytes.
    public func authenticationCode(for text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { authenticationCode(for: UnsafeRawBufferPointer($0)) }
    }

    /// `true` when `code` authenticates `message`, compared in constant time.
    public func isValidAuthenticationCode(_ code: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
        ConstantTime.equals(authenticationCode(for: message), code)
    }

    private static func openSSLName(_ digest: DigestAlgorithm) -> String {
        switch digest.kind {
        case .md5: "MD5"
        case .sha1: "SHA1"
        case .sha256: "SHA256"
        case .sha384: "SHA384"
        case .sha512: "SHA512"
        }
    }
}
