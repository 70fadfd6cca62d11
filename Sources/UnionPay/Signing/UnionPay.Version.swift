public import CashierCrypto

extension UnionPay {
    /// The message version (`version`), which decides the digest and how the verifying
    /// certificate is found.
    ///
    /// Both sign the lower-case hex digest of the sorted `k=v&…` string — not the string itself —
    /// with RSASSA-PKCS1-v1_5: UnionPay requires that scheme, named "insecure" here as everywhere
    /// in Cashier because new designs should prefer RSA-PSS.
    public enum Version: String, Hashable, Sendable, CaseIterable {
        /// SHA-256; UnionPay's messages carry their signing certificate (`signPubKeyCert`).
        case v5_1_0 = "5.1.0"
        /// SHA-1; UnionPay's messages name their certificate by `certId`, looked up among those the
        /// merchant configured (`acp_prod_verify_sign.cer`). For verifying older messages.
        case v5_0_0 = "5.0.0"

        /// The digest applied to the content, whose hex is then signed.
        public var digest: DigestAlgorithm {
            switch self {
            case .v5_1_0: .sha256
            case .v5_0_0: .insecureSHA1
            }
        }

        /// The RSA scheme over the hex digest (`SHA256withRSA` / `SHA1withRSA`).
        public var scheme: RSASignatureScheme {
            switch self {
            case .v5_1_0: .insecurePKCS1v1_5SHA256
            case .v5_0_0: .insecurePKCS1v1_5SHA1
            }
        }
    }
}
