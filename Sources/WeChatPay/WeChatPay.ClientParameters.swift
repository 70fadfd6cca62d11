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

        /// The fields by the names the SDK takes (the JSON form's, every value a string): what the
        /// server sends the app, built without encoding and decoding JSON on every payment.
        public var fields: [String: String] {
            [
                "appid": appid, "partnerid": partnerid, "prepayid": prepayid, "package": package, "noncestr": noncestr,
                "timestamp": timestamp, "sign": sign,
            ]
        }
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

        /// The fields by the names `wx.requestPayment` takes (the JSON form's, every value a string).
        public var fields: [String: String] {
            ["appId": appId, "timeStamp": timeStamp, "nonceStr": nonceStr, "package": package, "signType": signType, "paySign": paySign]
        }
    }
}
