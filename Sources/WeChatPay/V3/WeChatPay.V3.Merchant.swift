public import CashierCrypto

extension WeChatPay.V3 {
    /// A merchant's v3 identity: merchant id, the API certificate's serial and private key, and
    /// the APIv3 key that encrypts notification resources. Printing it never shows a key.
    public struct Merchant: Sendable, CustomStringConvertible {
        /// `mchid`.
        public let mchID: String
        /// The serial number of the merchant API certificate (`serial_no` in `Authorization`).
        public let certificateSerial: String
        /// The merchant API private key (`apiclient_key.pem`).
        public let privateKey: RSAPrivateKey
        /// The 32-byte APIv3 key (secret).
        public let apiV3Key: String

        /// - Throws: `CryptoError.invalidKey` when the APIv3 key is not 32 bytes.
        public init(mchID: String, certificateSerial: String, privateKey: RSAPrivateKey, apiV3Key: String) throws {
            guard apiV3Key.utf8.count == 32 else {
                throw CryptoError(.invalidKey, "the APIv3 key must be 32 bytes, not \(apiV3Key.utf8.count)")
            }
            self.mchID = mchID
            self.certificateSerial = certificateSerial
            self.privateKey = privateKey
            self.apiV3Key = apiV3Key
        }

        public var description: String { "WeChatPay.V3.Merchant(mchid: \(mchID), serial_no: \(certificateSerial))" }
    }
}
