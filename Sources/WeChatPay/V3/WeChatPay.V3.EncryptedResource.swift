import Cashier
import CashierCrypto

extension WeChatPay.V3 {
    /// An `AEAD_AES_256_GCM` resource, as in notifications and `/v3/certificates`.
    public struct EncryptedResource: Codable, Hashable, Sendable {
        public let algorithm: String
        public let ciphertext: String
        public let associatedData: String?
        public let nonce: String
        public let originalType: String?

        enum CodingKeys: String, CodingKey {
            case algorithm, ciphertext, nonce
            case associatedData = "associated_data"
            case originalType = "original_type"
        }

        public init(
            algorithm: String = "AEAD_AES_256_GCM", ciphertext: String, associatedData: String?, nonce: String, originalType: String?
        ) {
            self.algorithm = algorithm
            self.ciphertext = ciphertext
            self.associatedData = associatedData
            self.nonce = nonce
            self.originalType = originalType
        }

        /// Decrypts with the APIv3 key (key = its 32 bytes, IV = the nonce's bytes, AAD =
        /// `associated_data`, ciphertext = base64 of ciphertext ‖ 16-byte tag).
        /// - Throws: `PaymentError.decryptionFailure` for a wrong key or tampered data.
        public func decrypt(apiV3Key: String) throws -> [UInt8] {
            guard algorithm == "AEAD_AES_256_GCM" else {
                throw PaymentError(.malformedMessage, provider: .wechatV3, "unsupported resource algorithm \(algorithm.prefix(40))")
            }
            do {
                // The API v3 key comes as text with each call: one context for this message, nothing kept.
                return try AESGCMKey.open(
                    combined: Base64.decodeBytes(ciphertext), key: Array(apiV3Key.utf8), iv: Array(nonce.utf8),
                    authenticating: Array((associatedData ?? "").utf8))
            } catch {
                throw PaymentError(.decryptionFailure, provider: .wechatV3, "the resource does not decrypt with this APIv3 key")
            }
        }
    }
}
