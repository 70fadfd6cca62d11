import Cashier
public import CashierCrypto
import Foundation

extension ApplePay {
    /// A payment processing certificate and its private key: EC (P-256) for `EC_v1` tokens, RSA
    /// for `RSA_v1`. Configure several during a key rotation; tokens name theirs by `publicKeyHash`.
    public struct MerchantKey: Sendable {
        public enum PrivateKey: Sendable {
            case p256(P256PrivateKey)
            case rsa(RSAPrivateKey)
        }

        public let certificate: X509Certificate
        public let privateKey: PrivateKey
        /// base64 SHA-256 of the certificate's SubjectPublicKeyInfo, as tokens carry it.
        public let publicKeyHash: String
        /// The merchant id's SHA-256 (from extension 1.2.840.113635.100.6.32): the KDF's PartyV.
        public let merchantIdentifierHash: [UInt8]

        /// - Throws: `PaymentError.invalidConfiguration` when the certificate has no merchant-id
        ///   extension or the key is not the certificate's.
        public init(certificate: X509Certificate, privateKey: PrivateKey) throws {
            func refuse(_ reason: String) -> PaymentError { PaymentError(.invalidConfiguration, provider: .applePay, reason) }
            let hash = try Self.merchantIdentifierHash(of: certificate)
            let matches: Bool
            switch privateKey {
            case .p256(let key):
                matches = (try? P256PublicKey(certificate: certificate))?.derRepresentation == key.publicKey.derRepresentation
            case .rsa(let key):
                matches = (try? RSAPublicKey(certificate: certificate))?.derRepresentation == key.publicKey.derRepresentation
            }
            guard matches else { throw refuse("the private key is not the payment processing certificate's key") }
            self.certificate = certificate
            self.privateKey = privateKey
            self.merchantIdentifierHash = hash
            self.publicKeyHash = Self.publicKeyHash(of: certificate)
        }

        /// base64 SHA-256 of a certificate's SubjectPublicKeyInfo, as tokens name their merchant key.
        public static func publicKeyHash(of certificate: X509Certificate) -> String {
            Base64.encode(DigestAlgorithm.sha256.hash(certificate.subjectPublicKeyInfoDER))
        }

        /// The merchant id's SHA-256 from a processing certificate's extension 1.2.840.113635.100.6.32
        /// (two header bytes, then 64 hex characters).
        /// - Throws: `PaymentError.invalidConfiguration` when the extension is missing or malformed.
        public static func merchantIdentifierHash(of certificate: X509Certificate) throws -> [UInt8] {
            guard let value = certificate.extension(oid: ApplePay.merchantIdentifierOID)?.value, value.count >= 66,
                let hash = try? Hex.decode(String(decoding: value.suffix(64), as: UTF8.self))
            else {
                throw PaymentError(
                    .invalidConfiguration, provider: .applePay,
                    "the certificate has no Apple merchant-id extension (1.2.840.113635.100.6.32): use the payment processing certificate")
            }
            return hash
        }

        /// Reads the certificate and key from PEM (the key as PKCS#8, SEC1 or PKCS#1).
        public init(certificatePEM: String, privateKeyPEM: String) throws {
            guard let certificate = try? X509Certificate(pemRepresentation: certificatePEM) else {
                throw PaymentError(.invalidConfiguration, provider: .applePay, "the merchant certificate is not a PEM certificate")
            }
            if let key = try? P256PrivateKey(pemRepresentation: privateKeyPEM) {
                try self.init(certificate: certificate, privateKey: .p256(key))
            } else if let key = try? RSAPrivateKey(pemRepresentation: privateKeyPEM) {
                try self.init(certificate: certificate, privateKey: .rsa(key))
            } else {
                throw PaymentError(.invalidConfiguration, provider: .applePay, "the merchant key is neither a P-256 nor an RSA private key")
            }
        }
    }
}
