extension WeChatPay {
    /// What the app hands to the WeChat SDK's `PayReq` (APP pay), signed on the server. The fields
    /// are the same for API v2 (signed with the API key) and v3 (SHA256withRSA); each version's
    /// initialiser signs them its way.
    public struct AppPayParameters: Codable, Hashable, Sendable {
        public let appid: String
        public let partnerid: String
        public let prepayid: String
        /// Always `Sign=WXPay`.
        public let package: String
        public let noncestr: String
        public let timestamp: String
        public let sign: String

        init(appid: String, partnerid: String, prepayid: String, noncestr: String, timestamp: String, sign: String) {
            self.appid = appid
            self.partnerid = partnerid
            self.prepayid = prepayid
            self.package = Self.package
            self.noncestr = noncestr
            self.timestamp = timestamp
            self.sign = sign
        }

        static let package = "Sign=WXPay"
    }

    /// What a web page (`WeixinJSBridge`) or mini program (`wx.requestPayment`) needs (JSAPI pay),
    /// for API v2 (`signType` MD5 or HMAC-SHA256) and v3 (`RSA`).
    public struct JSAPIParameters: Codable, Hashable, Sendable {
        public let appId: String
        public let timeStamp: String
        public let nonceStr: String
        /// `prepay_id=…`.
        public let package: String
        public let signType: String
        public let paySign: String
    }
}
