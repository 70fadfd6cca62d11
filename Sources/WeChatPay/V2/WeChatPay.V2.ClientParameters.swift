public import CashierCrypto
public import Foundation

extension WeChatPay.V2 {
    public typealias AppPayParameters = WeChatPay.AppPayParameters
    public typealias JSAPIParameters = WeChatPay.JSAPIParameters
}

extension WeChatPay.AppPayParameters {
    /// API v2: signs the parameters for a `prepay_id` from `pay/unifiedorder` (trade_type APP)
    /// with the merchant's API key.
    public init(
        prepayID: String, merchant: WeChatPay.V2.Merchant, nonce: String = SecureRandom.alphanumeric(count: 32), timestamp: Date = Date()
    ) {
        let stamp = String(Int(timestamp.timeIntervalSince1970))
        let sign = merchant.signer.signature(
            for: [
                "appid": merchant.appID, "partnerid": merchant.mchID, "prepayid": prepayID, "package": Self.package, "noncestr": nonce,
                "timestamp": stamp,
            ],
            type: merchant.signType)
        self.init(appid: merchant.appID, partnerid: merchant.mchID, prepayid: prepayID, noncestr: nonce, timestamp: stamp, sign: sign)
    }
}

extension WeChatPay.JSAPIParameters {
    /// API v2: signs the parameters for a `prepay_id` from `pay/unifiedorder` (trade_type JSAPI).
    public init(
        prepayID: String, merchant: WeChatPay.V2.Merchant, nonce: String = SecureRandom.alphanumeric(count: 32), timestamp: Date = Date()
    ) {
        let stamp = String(Int(timestamp.timeIntervalSince1970))
        let package = "prepay_id=\(prepayID)"
        let signType = merchant.signType.rawValue
        let sign = merchant.signer.signature(
            for: ["appId": merchant.appID, "timeStamp": stamp, "nonceStr": nonce, "package": package, "signType": signType],
            type: merchant.signType)
        self.init(appId: merchant.appID, timeStamp: stamp, nonceStr: nonce, package: package, signType: signType, paySign: sign)
    }
}
