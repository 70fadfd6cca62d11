extension WeChatPay.V2 {
    /// A merchant's v2 identity: app id, merchant id and the API key that signs everything.
    ///
    /// Printing it never shows the key.
    public struct Merchant: Sendable, CustomStringConvertible {
        /// `appid`: the app, official account or mini program bound to the merchant.
        public let appID: String
        /// `mch_id`: the merchant number.
        public let mchID: String
        /// The 32-character API key (secret).
        public let apiKey: String
        /// The sign type orders are placed with; notifications are verified with the same.
        public let signType: SignType

        public init(appID: String, mchID: String, apiKey: String, signType: SignType = .md5) {
            self.appID = appID
            self.mchID = mchID
            self.apiKey = apiKey
            self.signType = signType
            self.signer = Signer(apiKey: apiKey)
        }

        /// The same merchant under another of its appids (a mini program, a sub-merchant's app).
        public func withAppID(_ appID: String) -> Merchant {
            Merchant(appID: appID, mchID: mchID, apiKey: apiKey, signType: signType)
        }

        /// The signer for this merchant's key, keyed once.
        public let signer: Signer

        public var description: String { "WeChatPay.V2.Merchant(appid: \(appID), mch_id: \(mchID), sign_type: \(signType.rawValue))" }
    }
}
