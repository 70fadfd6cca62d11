import CashierCrypto
import CashierHTTP
import Foundation

/// Sensitive fields (a payee's or receiver's real name) as the v3 gateway reads them: encrypted
/// for the platform key with RSA-OAEP (SHA-1), base64, the key named in `Wechatpay-Serial`.
extension WeChatV3Sandbox {
    /// The plaintext of the sensitive field `field` sent as `cipher`, or WeChat's refusal: a
    /// `Wechatpay-Serial` that names no platform key (the merchant's own serial is accepted, as
    /// IJPay sends it when nothing else is set: the platform key still decrypts), or a value the
    /// platform key does not decrypt (sent in clear, tampered with, or for another key).
    func sensitiveField(_ cipher: String, field: String, request: HTTPServerRequest, merchant: Merchant) -> Result<String, Refusal> {
        let serial = request.headers["Wechatpay-Serial"] ?? ""
        let platformSerials = [platformCertificate.serialNumberHex, publicKeyID].map { $0.uppercased() }
        guard platformSerials.contains(serial.uppercased()) || serial == merchant.certificateSerial else {
            return .failure(Refusal(error(400, "PARAM_ERROR", "请求头Wechatpay-Serial缺失或无效：加密敏感字段时必须传平台证书序列号或公钥ID")))
        }
        guard let bytes = try? Base64.decode(cipher), let plain = try? platformKey.decrypt(Array(bytes), padding: .insecureOAEPSHA1),
            let text = String(bytes: plain, encoding: .utf8), !text.isEmpty
        else { return .failure(Refusal(error(400, "PARAM_ERROR", "\(field)解密失败：敏感信息须用微信支付平台公钥以RSAES-OAEP加密"))) }
        return .success(text)
    }
}
