public import CashierCrypto
public import Foundation

extension WeChatPay.V3 {
    public typealias AppPayParameters = WeChatPay.AppPayParameters
    public typealias JSAPIParameters = WeChatPay.JSAPIParameters

    /// Base64 SHA256withRSA over the lines, each ending in `\n`, as v3 invoke signatures are made.
    static func invokeSignature(_ lines: [String], merchant: Merchant) throws -> String {
        Base64.encode(try merchant.privateKey.signature(for: lines.map { $0 + "\n" }.joined(), scheme: .insecurePKCS1v1_5SHA256))
    }
}

extension WeChatPay.AppPayParameters {
    /// API v3: APP pay parameters signed with SHA256withRSA over `APPID\nTIMESTAMP\nNONCESTR\nPREPAYID\n`;
    /// `partnerID` is the `partnerid` when it is not the signing merchant's (a service provider's sub-merchant).
    public init(
        appID: String, prepayID: String, merchant: WeChatPay.V3.Merchant, partnerID: String? = nil,
        nonce: String = SecureRandom.alphanumeric(count: 32), timestamp: Date = Date()
    ) throws {
        let stamp = String(Int(timestamp.timeIntervalSince1970))
        let sign = try WeChatPay.V3.invokeSignature([appID, stamp, nonce, prepayID], merchant: merchant)
        self.init(appid: appID, partnerid: partnerID ?? merchant.mchID, prepayid: prepayID, noncestr: nonce, timestamp: stamp, sign: sign)
    }
}

extension WeChatPay.JSAPIParameters {
    /// API v3: JSAPI / mini-program parameters for `wx.requestPayment`, signed with SHA256withRSA
    /// over `APPID\nTIMESTAMP\nNONCESTR\nprepay_id=…\n`; `signType` is `RSA`.
    public init(
        appID: String, prepayID: String, merchant: WeChatPay.V3.Merchant, nonce: String = SecureRandom.alphanumeric(count: 32),
        timestamp: Date = Date()
    ) throws {
        let stamp = String(Int(timestamp.timeIntervalSince1970))
        let package = "prepay_id=\(prepayID)"
        let sign = try WeChatPay.V3.invokeSignature([appID, stamp, nonce, package], merchant: merchant)
        self.init(appId: appID, timeStamp: stamp, nonceStr: nonce, package: package, signType: "RSA", paySign: sign)
    }
}
