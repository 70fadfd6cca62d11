/// The public half a certificate carries.
public enum CertificatePublicKey: Sendable {
    case p256(P256PublicKey)
    case rsa(RSAPublicKey)

    var backing: EVPKey {
        switch self {
        case .p256(let key): key.backing
        case .rsa(let key): key.backing
        }
    }
}
