/// WeChat's `PayReq` fields.
public struct WeChatPayRequest: Sendable, Equatable {
    public let appID: String
    public let partnerID: String
    public let prepayID: String
    public let package: String
    public let nonceStr: String
    /// Seconds since 1970, as `PayReq.timeStamp` (UInt32) wants.
    public let timeStamp: UInt32
    public let sign: String

    init(_ object: [String: String]) throws {
        guard let appID = object["appid"], let partnerID = object["partnerid"], let prepayID = object["prepayid"],
            let package = object["package"], let nonce = object["noncestr"], let stamp = object["timestamp"].flatMap(UInt32.init),
            let sign = object["sign"]
        else { throw CashierClientError(code: "invalid_response", message: "the WeChat PayReq fields are incomplete") }
        self.appID = appID
        self.partnerID = partnerID
        self.prepayID = prepayID
        self.package = package
        self.nonceStr = nonce
        self.timeStamp = stamp
        self.sign = sign
    }
}
