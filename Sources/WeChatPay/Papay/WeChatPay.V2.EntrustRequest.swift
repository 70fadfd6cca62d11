public import Foundation

extension WeChatPay.V2 {
    /// What a merchant asks a payer to sign for withholding (委托代扣, `papay`): the contract
    /// template, the merchant's number for the contract, and where WeChat Pay says that it was
    /// signed or ended.
    ///
    /// The same request makes the official-account signing page (``Client/entrustWebURL(_:timestamp:)``,
    /// `papay/entrustweb`), the H5 one (``Client/h5EntrustWebURL(_:clientIP:timestamp:)``,
    /// `papay/h5entrustweb`) and the app's pre-signing (``Client/preEntrust(_:timestamp:)``,
    /// `papay/preentrustweb`).
    ///
    /// ```swift
    /// let request = WeChatPay.V2.EntrustRequest(
    ///     planID: "12535", contractCode: "AG20261207A1", requestSerial: 1_765_100_000_000,
    ///     displayAccount: "会员 Alice", notifyURL: "https://shop.example/notify/wechat/v2/contract")
    /// let url = client.entrustWebURL(request)
    /// ```
    public struct EntrustRequest: Sendable, Equatable {
        /// `plan_id`: the contract template configured in the merchant platform.
        public var planID: String
        /// `contract_code`: the merchant's number for the contract, unique per template.
        public var contractCode: String
        /// `request_serial`: a number the merchant never sends twice (it orders the requests; it
        /// is not a key).
        public var requestSerial: Int64
        /// `contract_display_account`: what the payer sees the contract as.
        public var displayAccount: String
        /// `notify_url`: where the sign (`ADD`) and unsign (`DELETE`) notifications go.
        public var notifyURL: String

        /// - Parameters:
        ///   - planID: `plan_id`, the contract template.
        ///   - contractCode: `contract_code`, the merchant's number for the contract.
        ///   - requestSerial: `request_serial`, never sent twice by the merchant.
        ///   - displayAccount: `contract_display_account`, what the payer sees.
        ///   - notifyURL: `notify_url`, where the contract notifications go.
        public init(planID: String, contractCode: String, requestSerial: Int64, displayAccount: String, notifyURL: String) {
            self.planID = planID
            self.contractCode = contractCode
            self.requestSerial = requestSerial
            self.displayAccount = displayAccount
            self.notifyURL = notifyURL
        }

        /// The signed parameters every signing call shares (`version` `1.0`, `timestamp` in seconds).
        func fields(merchant: Merchant, timestamp: Date) -> [(String, String)] {
            [
                ("appid", merchant.appID), ("mch_id", merchant.mchID), ("plan_id", planID), ("contract_code", contractCode),
                ("request_serial", String(requestSerial)), ("contract_display_account", displayAccount), ("notify_url", notifyURL),
                ("version", "1.0"), ("timestamp", String(Int64(timestamp.timeIntervalSince1970))),
            ]
        }
    }
}
