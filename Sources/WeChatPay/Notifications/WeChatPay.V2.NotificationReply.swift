extension WeChatPay.V2 {
    /// The body a merchant answers a v2 notification with.
    ///
    /// Answer ``success`` only after the notification is durably recorded: WeChat stops retrying
    /// once it sees it. Answer ``failure(_:)`` for anything that did not verify; WeChat retries.
    public enum NotificationReply: Sendable, Equatable {
        case success
        case failure(String)

        /// `<xml><return_code><![CDATA[SUCCESS]]></return_code><return_msg><![CDATA[OK]]></return_msg></xml>`
        /// or the same with `FAIL` and the message.
        public var xmlString: String {
            switch self {
            case .success: XMLDocument([("return_code", "SUCCESS"), ("return_msg", "OK")]).xmlString
            case .failure(let message): XMLDocument([("return_code", "FAIL"), ("return_msg", message)]).xmlString
            }
        }
    }
}
