/// A message digest: MD5 and SHA-1 for the legacy schemes payment providers still require,
/// SHA-2 for everything else.
///
/// ```swift
/// let digest = DigestAlgorithm.sha256.hash(Array("abc".utf8))
/// Hex.encode(digest) // "ba7816bf…"
/// ```
public struct DigestAlgorithm: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case md5, sha1, sha256, sha384, sha512
    }

    let kind: Kind

    /// MD5. Broken for collision resistance; WeChat Pay v2 still signs with it.
    public static let insecureMD5 = DigestAlgorithm(kind: .md5)
    /// SHA-1. Legacy; Alipay's old `RSA` sign type uses it.
    public static let insecureSHA1 = DigestAlgorithm(kind: .sha1)
    /// SHA-256.
    public static let sha256 = DigestAlgorithm(kind: .sha256)
    /// SHA-384.
    public static let sha384 = DigestAlgorithm(kind: .sha384)
    /// SHA-512.
    public static let sha512 = DigestAlgorithm(kind: .sha512)

    /// The length of a digest in bytes.
    public var byteCount: Int {
        switch kind {
        case .md5: 16
        case .sha1: 20
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    public var description: String {
        switch kind {
        case .md5: "MD5"
        case .sha1: "SHA-1"
        case .sha256: "SHA-256"
        case .sha384: "SHA-384"
        case .sha512: "SHA-512"
        }
    }
}
