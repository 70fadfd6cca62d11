import Cashier
import CashierCrypto

extension WeChatPay.V3.Client {
    /// The platform key a sensitive field is encrypted for (downloading the platform certificates
    /// first when none is held) and the `Wechatpay-Serial` header naming it; `nil` key and no
    /// header when `needed` is false.
    /// - Throws: `PaymentError.unknownKey` when no platform key can be had.
    func sensitiveFieldKey(needed: Bool, field: String) async throws -> (key: RSAPublicKey?, headers: HTTPHeaders) {
        guard needed else { return (nil, [:]) }
        if keys.encryptionKey() == nil { try await downloadCertificates() }
        guard let found = keys.encryptionKey() else {
            throw PaymentError(.unknownKey, provider: .wechatV3, "no platform key to encrypt \(field) for")
        }
        return (found.key, ["Wechatpay-Serial": found.serial])
    }
}
