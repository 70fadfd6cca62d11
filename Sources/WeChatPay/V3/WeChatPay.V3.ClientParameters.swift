public import CashierCrypto
public import Foundation

extension WeChatPay.V3 {
    /// APP pay parameters for `PayReq`, signed with SHA256withRSA over
    /// `APPID\nTIMESTAMP\nNONCESTR\nPREPAYID\n`.
    public struct AppPayParameters: Codable, Hashable, Sendable {
        public let appid: String
        public let partnerid: String
        public let prepayid: String
        public let package: String
        public let noncestr: String
        public let timestamp: String
        public let sign: String

        public init(
            appID: String, prepayID: String, merchant: Merchant, nonce: String = SecureRandom.alphanumeric(count: 32),
            timestamp: Date = Date()
        ) throws {
            appid = appID
            partnerid = merchant.mchID
            prepayid = prepayID
            package = "Sign=WXPay"
            noncestr = nonce
            self.timestamp = String(Int(timestamp.timeIntervalSince1970))
            sign = Base64.encode(
                try merchant.privateKey.signature(
                    for: "\(appid)\n\(self.timestamp)\n\(noncestr)\n\(prepayid)\n", scheme: .insecurePKCS1v1_5SHA256))
        }
    }

    /// JSAPI / mini-program parameters for `wx.requestPayment`, signed with SHA256withRSA over
    /// `APPID\nTIMESTAMP\nNONCESTR\nprepay_id=…\n`; `signType` is `RSA`.
    public struct JSAPIParameters: Codable, Hashable, Sendable {
        public let appId: String
        public let timeStamp: String
        public let nonceStr: String
        public let package: String
        public let signType: String
        public let paySign: String

        public init(
            appID: String, prepayID: String, merchant: Merchant, nonce: String = SecureRandom.alphanumeric(count: 32),
            timestamp: Date = Date()
        ) throws {
            appId = appID
            timeStamp = String(Int(timestamp.timeIntervalSince1970))
            nonceStr = nonce
            package = "prepay_id=\(prepayID)"
            signType = "RSA"
            paySign = Base64.encode(
                try merchant.privateKey.signature(
                    for: "\(appId)\n\(timeStamp)\n\(nonceStr)\n\(package)\n", scheme: .insecurePKCS1v1_5SHA256))
        }
    }
}
