public import CashierCrypto
public import Foundation

extension WeChatPay.V2 {
    /// What the app hands to the WeChat SDK's `PayReq` (APP pay), signed on the server.
    public struct AppPayParameters: Codable, Hashable, Sendable {
        public let appid: String
        public let partnerid: String
        public let prepayid: String
        public let package: String
        public let noncestr: String
        public let timestamp: String
        public let sign: String

        /// Signs the parameters for a `prepay_id` from `pay/unifiedorder` (trade_type APP).
        public init(prepayID: String, merchant: Merchant, nonce: String = SecureRandom.alphanumeric(count: 32), timestamp: Date = Date()) {
            appid = merchant.appID
            partnerid = merchant.mchID
            prepayid = prepayID
            package = "Sign=WXPay"
            noncestr = nonce
            self.timestamp = String(Int(timestamp.timeIntervalSince1970))
            sign = merchant.signer.signature(
                for: [
                    "appid": appid, "partnerid": partnerid, "prepayid": prepayid, "package": package, "noncestr": noncestr,
                    "timestamp": self.timestamp,
                ],
                type: merchant.signType)
        }
    }

    /// What a web page (`WeixinJSBridge`) or mini program (`wx.requestPayment`) needs (JSAPI pay).
    public struct JSAPIParameters: Codable, Hashable, Sendable {
        public let appId: String
        public let timeStamp: String
        public let nonceStr: String
        public let package: String
        public let signType: String
        public let paySign: String

        /// Signs the parameters for a `prepay_id` from `pay/unifiedorder` (trade_type JSAPI).
        public init(prepayID: String, merchant: Merchant, nonce: String = SecureRandom.alphanumeric(count: 32), timestamp: Date = Date()) {
            appId = merchant.appID
            timeStamp = String(Int(timestamp.timeIntervalSince1970))
            nonceStr = nonce
            package = "prepay_id=\(prepayID)"
            signType = merchant.signType.rawValue
            paySign = merchant.signer.signature(
                for: ["appId": appId, "timeStamp": timeStamp, "nonceStr": nonceStr, "package": package, "signType": signType],
                type: merchant.signType)
        }
    }
}
