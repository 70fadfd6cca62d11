extension Alipay {
    /// A receiver in the app's royalty relations (分账关系): who settle requests may pay.
    /// `alipay.trade.royalty.relation.bind` / `unbind` take a `receiver_list` of these.
    public struct RoyaltyReceiver: Sendable, Equatable {
        /// `type`: `userId` (2088…), `loginName` (an email or phone) or `openId`.
        public let type: String
        /// `account`: the Alipay user id, logon name or open id, as `type` says.
        public let account: String
        /// `name`: the holder's real name (Alipay checks it for a `loginName`).
        public let name: String?
        /// `memo`: the relation in words.
        public let memo: String?

        /// The types Alipay takes.
        public static let types: Set<String> = ["userId", "loginName", "openId"]

        public init(type: String, account: String, name: String? = nil, memo: String? = nil) {
            self.type = type
            self.account = account
            self.name = name
            self.memo = memo
        }

        /// The entry, for `receiver_list`.
        public var biz: [String: Any] {
            var entry: [String: Any] = ["type": type, "account": account]
            if let name { entry["name"] = name }
            if let memo { entry["memo"] = memo }
            return entry
        }

        /// Reads an entry of a `receiver_list` (batchquery's answer); `nil` without `type` and `account`.
        init?(node: [String: Any]) {
            guard let type = node["type"] as? String, let account = node["account"] as? String else { return nil }
            self.init(type: type, account: account, name: node["name"] as? String, memo: node["memo"] as? String)
        }
    }
}
