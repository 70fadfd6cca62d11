import Cashier
public import CashierCrypto

extension WeChatPay.V3 {
    /// A sensitive field (敏感信息: a payee's or receiver's real name) as WeChat Pay v3 wants it
    /// sent: encrypted for the platform key with RSA-OAEP (SHA-1, MGF1-SHA-1), base64, with that
    /// key's serial (a certificate serial or `PUB_KEY_ID_…`) in `Wechatpay-Serial`.
    ///
    /// ```swift
    /// let cipher = try WeChatPay.V3.SensitiveField.encrypt("张三", for: platformKey)
    /// ```
    public enum SensitiveField {
        /// `plaintext` encrypted for `key`, base64.
        /// - Throws: `PaymentError.invalidRequest` without a key (a name is never sent in clear).
        public static func encrypt(_ plaintext: String, for key: RSAPublicKey?, field: String) throws -> String {
            guard let key else {
                throw PaymentError(.invalidRequest, provider: .wechatV3, "\(field) needs a platform key to be encrypted for")
            }
            return Base64.encode(try key.encrypt(Array(plaintext.utf8), padding: .insecureOAEPSHA1))
        }
    }
}
