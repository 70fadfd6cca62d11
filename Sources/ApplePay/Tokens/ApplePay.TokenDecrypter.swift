import Cashier
import CashierCrypto
import Foundation

extension ApplePay {
    /// Verifies, then decrypts, payment tokens with the merchant's processing keys.
    ///
    /// ```swift
    /// let decrypter = ApplePay.TokenDecrypter(merchantKeys: [current, previous], verifier: try ApplePay.TokenVerifier())
    /// let payment = try decrypter.decrypt(try ApplePay.PaymentToken(json: body))
    /// try payment.check(total: order.total)
    /// ```
    public struct TokenDecrypter: Sendable {
        public let merchantKeys: [MerchantKey]
        public let verifier: TokenVerifier

        public init(merchantKeys: [MerchantKey], verifier: TokenVerifier) {
            self.merchantKeys = merchantKeys
            self.verifier = verifier
        }

        /// Verifies `token` (see ``TokenVerifier/verify(_:applicationData:)``), picks the merchant
        /// key by `publicKeyHash`, derives the symmetric key and decrypts.
        /// - Throws: `PaymentError` whose message starts with the failed ``TokenCheck``.
        public func decrypt(_ token: PaymentToken, applicationData: [UInt8]? = nil) throws -> DecryptedPayment {
            let decoded = try token.decoded()
            _ = try verifier.verify(token, decoded: decoded, applicationData: applicationData)
            let plaintext = try decrypt(token, decoded: decoded)
            guard let payment = DecryptedPayment(json: plaintext) else {
                throw TokenCheck.decryption.failure("the decrypted data is not Apple's payment data JSON")
            }
            return payment
        }

        /// The plaintext bytes. Only for callers that have verified the token themselves.
        public func decryptWithoutVerifying(_ token: PaymentToken) throws -> [UInt8] {
            try decrypt(token, decoded: try token.decoded(signature: false))
        }

        private func decrypt(_ token: PaymentToken, decoded: PaymentToken.Decoded) throws -> [UInt8] {
            guard let key = merchantKeys.first(where: { $0.publicKeyHash == token.header.publicKeyHash }) else {
                throw TokenCheck.keyHash.failure(
                    "no configured merchant certificate has publicKeyHash \(token.header.publicKeyHash.prefix(44))")
            }
            let symmetricKey: [UInt8]
            switch (token.version, key.privateKey) {
            case (.ecV1, .p256(let privateKey)):
                guard let secret = try? privateKey.sharedSecret(withPeerPoint: decoded.key) else {
                    throw TokenCheck.format.failure("header.ephemeralPublicKey is not a P-256 public key on the curve")
                }
                symmetricKey = ApplePay.ecSymmetricKey(sharedSecret: secret, merchantIdentifierHash: key.merchantIdentifierHash)
            case (.rsaV1, .rsa(let privateKey)):
                guard let unwrapped = try? privateKey.decrypt(decoded.key, padding: .oaepSHA256) else {
                    throw TokenCheck.decryption.failure("the wrapped key does not unwrap with the merchant's RSA key (OAEP-SHA256)")
                }
                symmetricKey = unwrapped
            default:
                throw TokenCheck.keyHash.failure("a \(token.version.rawValue) token names a merchant key of the other kind")
            }
            return try ApplePay.decryptData(decoded.data, symmetricKey: symmetricKey)
        }
    }

    /// EC_v1's key: SHA-256(00000001 ‖ Z ‖ 0x0D ‖ "id-aes256-GCM" ‖ "Apple" ‖ SHA-256(merchant id))
    /// (NIST SP 800-56A single-step KDF, one round).
    public static func ecSymmetricKey(sharedSecret: [UInt8], merchantIdentifierHash: [UInt8]) -> [UInt8] {
        let info: [UInt8] = [0x0D] + Array("id-aes256-GCM".utf8) + Array("Apple".utf8) + merchantIdentifierHash
        return DigestAlgorithm.sha256.hash([0, 0, 0, 1] + sharedSecret + info)
    }

    private static let zeroIV = [UInt8](repeating: 0, count: 16)

    /// AES-GCM with a 16-byte zero IV and the tag in the last 16 bytes, as Apple encrypts `data`.
    /// - Throws: `PaymentError` (decryption) when the key is wrong or the data was changed.
    public static func decryptData(_ data: [UInt8], symmetricKey: [UInt8]) throws -> [UInt8] {
        guard [16, 32].contains(symmetricKey.count) else {
            throw TokenCheck.decryption.failure("the symmetric key has \(symmetricKey.count) bytes, not 16 or 32")
        }
        guard let plaintext = try? AESGCMKey.open(combined: data, key: symmetricKey, iv: zeroIV) else {
            throw TokenCheck.decryption.failure("AES-GCM authentication failed: wrong key or altered data")
        }
        return plaintext
    }
}
