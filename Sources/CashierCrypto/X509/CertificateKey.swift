/// The keys a certificate can hold or be signed with.
public enum CertificateKey: Sendable {
    case p256(P256PrivateKey)
    case rsa(RSAPrivateKey)

    var backing: EVPKey {
        switch self {
        case .p256(let key): key.backing
        case .rsa(let key): key.backing
        }
    }
}
