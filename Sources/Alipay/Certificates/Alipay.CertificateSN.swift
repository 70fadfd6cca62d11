import Cashier
public import CashierCrypto

extension Alipay {
    /// Certificate mode: the serial-number strings Alipay expects in `app_cert_sn`,
    /// `alipay_root_cert_sn`, and answers in `alipay_cert_sn`.
    ///
    /// A certificate's SN is the lower-case hex MD5 of its issuer written as `CN=…,OU=…,O=…,C=…`
    /// (the name's attributes, most specific first, joined by commas, values unescaped)
    /// followed by its serial number in decimal. The root SN is the SNs of the RSA-signed
    /// certificates in Alipay's root bundle, joined by `_`.
    public enum CertificateSN {
        /// The SN of one certificate.
        public static func of(_ certificate: X509Certificate) -> String {
            let issuer = certificate.issuerComponents.reversed().map { "\($0.shortName)=\($0.value)" }.joined(separator: ",")
            return Hex.encode(DigestAlgorithm.insecureMD5.hash(issuer + certificate.serialNumberDecimal))
        }

        /// The SN of Alipay's root bundle: its RSA-signed certificates' SNs joined by `_`.
        /// - Throws: `PaymentError.invalidConfiguration` when the bundle holds no RSA-signed certificate.
        public static func ofRootBundle(_ pem: String) throws -> String {
            let certificates: [X509Certificate]
            do {
                certificates = try X509Certificate.certificates(pemRepresentation: pem)
            } catch {
                throw PaymentError(.invalidConfiguration, provider: .alipay, "the Alipay root certificate bundle does not parse")
            }
            let rsa = certificates.filter(\.isSignedWithRSA)
            guard !rsa.isEmpty else {
                throw PaymentError(.invalidConfiguration, provider: .alipay, "the Alipay root bundle has no RSA-signed certificate")
            }
            return rsa.map(of).joined(separator: "_")
        }

        /// Checks that an answer's `alipay_cert_sn` names the loaded Alipay public-key certificate.
        /// - Throws: `PaymentError.unknownKey` when it names another certificate (rotated or forged).
        public static func check(_ answered: String?, against certificate: X509Certificate) throws {
            guard let answered, answered == of(certificate) else {
                throw PaymentError(
                    .unknownKey, provider: .alipay,
                    "alipay_cert_sn \(answered?.prefix(40) ?? "(missing)") is not the loaded Alipay certificate's; load the new certificate"
                )
            }
        }
    }
}
