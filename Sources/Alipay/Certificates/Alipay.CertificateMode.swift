import Cashier
public import CashierCrypto

extension Alipay {
    /// An app in certificate mode (公钥证书): requests carry `app_cert_sn` and
    /// `alipay_root_cert_sn`; answers carry `alipay_cert_sn`, which must name the Alipay
    /// public-key certificate loaded here, whose key then verifies them.
    ///
    /// ```swift
    /// let mode = try Alipay.CertificateMode(appCertificatePEM: appCert, alipayCertificatePEM: alipayCert, rootBundlePEM: root)
    /// let client = try Alipay.Client(appID: appID, signer: signer, certificates: mode)
    /// ```
    public struct CertificateMode: Sendable {
        /// `app_cert_sn`: the SN of the app's public-key certificate.
        public let appCertSN: String
        /// `alipay_root_cert_sn`: the SNs of the root bundle's RSA-signed certificates.
        public let rootCertSN: String
        /// Alipay's public-key certificate (`alipayCertPublicKey_RSA2.crt`).
        public let alipayCertificate: X509Certificate
        /// Its key, which verifies answers and notifications.
        public let alipayPublicKey: RSAPublicKey

        /// - Throws: `PaymentError.invalidConfiguration` naming the file that does not parse or
        ///   holds no RSA key.
        public init(appCertificatePEM: String, alipayCertificatePEM: String, rootBundlePEM: String) throws {
            func certificate(_ pem: String, _ name: String) throws -> X509Certificate {
                guard let certificate = try? X509Certificate(pemRepresentation: pem) else {
                    throw PaymentError(.invalidConfiguration, provider: .alipay, "the \(name) is not a PEM certificate")
                }
                return certificate
            }
            appCertSN = CertificateSN.of(try certificate(appCertificatePEM, "app public-key certificate (appCertPublicKey)"))
            alipayCertificate = try certificate(alipayCertificatePEM, "Alipay public-key certificate (alipayCertPublicKey_RSA2)")
            guard let key = try? RSAPublicKey(certificate: alipayCertificate) else {
                throw PaymentError(.invalidConfiguration, provider: .alipay, "the Alipay public-key certificate holds no RSA key")
            }
            alipayPublicKey = key
            rootCertSN = try CertificateSN.ofRootBundle(rootBundlePEM)
        }

        /// The request parameters certificate mode adds.
        public var parameters: [String: String] { ["app_cert_sn": appCertSN, "alipay_root_cert_sn": rootCertSN] }

        /// Checks an answer's or notification's `alipay_cert_sn`.
        /// - Throws: `PaymentError.unknownKey` when it is missing or names another certificate.
        public func check(alipayCertSN: String?) throws {
            try CertificateSN.check(alipayCertSN, against: alipayCertificate)
        }
    }
}
