/// A payment provider and, for WeChat Pay, the API generation. The JSON form is the raw value.
public enum PaymentProvider: String, Hashable, Sendable, Codable, CaseIterable {
    /// WeChat Pay API v2 (XML, MD5 or HMAC-SHA256 with the API key).
    case wechatV2 = "wechat.v2"
    /// WeChat Pay API v3 (JSON, SHA256withRSA, AES-256-GCM).
    case wechatV3 = "wechat.v3"
    /// Alipay open API (RSA2).
    case alipay
    /// Apple Pay (tokens decrypted on the server, charged through a processor).
    case applePay = "applepay"
    /// China UnionPay's online gateway (全渠道) 5.1.0: certificate signing, a `tn` for the app's plugin.
    case unionpay
}
