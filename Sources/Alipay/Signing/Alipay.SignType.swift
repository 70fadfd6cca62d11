public import CashierCrypto

extension Alipay {
    /// `RSA2` (SHA256withRSA, what Alipay asks for) or the legacy `RSA` (SHA1withRSA).
    public enum SignType: String, Hashable, Sendable, CaseIterable {
        case rsa2 = "RSA2"
        case rsa = "RSA"

        /// The RSA scheme behind the sign type.
        public var scheme: RSASignatureScheme {
            switch self {
            case .rsa2: .insecurePKCS1v1_5SHA256
            case .rsa: .insecurePKCS1v1_5SHA1
            }
        }
    }
}
