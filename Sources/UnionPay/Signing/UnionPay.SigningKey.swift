import Cashier
public import CashierCrypto
public import Foundation

extension UnionPay {
    /// The merchant's signing identity: the RSA key and certificate from the `.pfx` UnionPay's
    /// CA (CFCA) issued, and the `certId` every request carries — the certificate's serial
    /// number in decimal (`acp_test_sign.pfx`: serial `0x1002653215`, certId `68759663125`).
    ///
    /// ```swift
    /// let key = try UnionPay.SigningKey(pkcs12: try Data(contentsOf: pfxURL), password: "000000")
    /// key.certID   // "68759663125"
    /// ```
    public struct SigningKey: Sendable {
        public let privateKey: RSAPrivateKey
        public let certificate: X509Certificate

        /// `certId`: the certificate's serial number in decimal.
        public var certID: String { certificate.serialNumberDecimal }

        /// - Throws: `PaymentError.invalidConfiguration` when the certificate's key is not the
        ///   private key's public half.
        public init(privateKey: RSAPrivateKey, certificate: X509Certificate) throws {
            guard let key = try? RSAPublicKey(certificate: certificate), key.derRepresentation == privateKey.publicKey.derRepresentation
            else {
                throw UnionPay.failure(.invalidConfiguration, "the signing certificate does not hold the signing key's public half")
            }
            self.privateKey = privateKey
            self.certificate = certificate
        }

        /// Reads the merchant's `.pfx` (CFCA's, whose certificate bag is RC2-encrypted, included).
        /// - Throws: `PaymentError.invalidConfiguration` for a wrong password, a damaged file, or
        ///   a key that is not RSA.
        public init(pkcs12 der: some ContiguousBytes, password: String) throws {
            let bundle: PKCS12Bundle
            do {
                bundle = try PKCS12Bundle(derRepresentation: der, password: password)
            } catch let error as CryptoError {
                throw UnionPay.failure(.invalidConfiguration, "the signing .pfx cannot be read (\(error.reason))")
            }
            guard case .rsa(let key) = bundle.privateKey else {
                throw UnionPay.failure(.invalidConfiguration, "the signing .pfx holds no RSA key")
            }
            try self.init(privateKey: key, certificate: bundle.certificate)
        }

        /// Reads the key and certificate as PEM (what `openssl pkcs12 -legacy -nodes` writes).
        public init(privateKeyPEM: String, certificatePEM: String) throws {
            guard let key = try? RSAPrivateKey(pemRepresentation: privateKeyPEM) else {
                throw UnionPay.failure(.invalidConfiguration, "the signing key is not an RSA private key in PEM")
            }
            guard let certificate = try? X509Certificate(pemRepresentation: certificatePEM) else {
                throw UnionPay.failure(.invalidConfiguration, "the signing certificate is not a PEM certificate")
            }
            try self.init(privateKey: key, certificate: certificate)
        }
    }
}
