/// How an RSA signature is made.
///
/// Only RSASSA-PKCS1-v1_5 is offered because it is what WeChat Pay (`SHA256withRSA`),
/// Alipay (`RSA2` = SHA-256, legacy `RSA` = SHA-1) and Apple Pay's RSA chain use. New
/// designs should prefer RSA-PSS or ECDSA; the names say "insecure" as swift-crypto does.
public struct RSASignatureScheme: Hashable, Sendable, CustomStringConvertible {
    /// The digest hashed before signing.
    public let digest: DigestAlgorithm

    /// RSASSA-PKCS1-v1_5 with SHA-256 (`SHA256withRSA`; WeChat Pay v3, Alipay `RSA2`).
    public static let insecurePKCS1v1_5SHA256 = RSASignatureScheme(digest: .sha256)
    /// RSASSA-PKCS1-v1_5 with SHA-1 (`SHA1withRSA`; Alipay's legacy `RSA` sign type).
    public static let insecurePKCS1v1_5SHA1 = RSASignatureScheme(digest: .insecureSHA1)

    public var description: String { "RSASSA-PKCS1-v1_5 with \(digest)" }
}

/// How RSA encrypts: OAEP with SHA-256 for the label hash and MGF1 (Apple Pay `RSA_v1`), or
/// with SHA-1 where a provider requires it (WeChat Pay v3's sensitive fields).
public struct RSAEncryptionPadding: Hashable, Sendable {
    let digest: DigestAlgorithm

    /// RSAES-OAEP with SHA-256 and MGF1-SHA-256.
    public static let oaepSHA256 = RSAEncryptionPadding(digest: .sha256)
    /// RSAES-OAEP with SHA-1 and MGF1-SHA-1: what WeChat Pay v3 encrypts sensitive fields with
    /// (a complaint's `payer_phone`, a transfer's receiver name). SHA-1 is weak for signatures;
    /// in OAEP it is still sound, but the name says it is there only because WeChat requires it.
    public static let insecureOAEPSHA1 = RSAEncryptionPadding(digest: .insecureSHA1)
}
