import Foundation

/// WeChat Pay, server side: API v2 (XML, MD5 or HMAC-SHA256 with the API key) and API v3
/// (JSON, SHA256withRSA, AES-256-GCM).
///
/// Everything that needs a key happens here, on the merchant's server; the app receives only
/// the signed client parameters.
public enum WeChatPay {
    /// API v2: `<xml>` documents signed with the merchant's API key.
    public enum V2 {}
    /// API v3: JSON signed with RSA keys, resources encrypted with the APIv3 key.
    public enum V3 {}
}

extension URL {
    /// The URL as text without trailing slashes, so paths starting with `/` can be appended.
    var trimmedBase: String {
        var text = absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
