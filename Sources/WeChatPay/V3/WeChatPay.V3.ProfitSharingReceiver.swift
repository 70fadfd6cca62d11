import Cashier
public import CashierCrypto

extension WeChatPay.V3 {
    /// A profit-sharing receiver (分账接收方) to add (`/v3/profitsharing/receivers/add`) or delete.
    ///
    /// A `MERCHANT_ID` receiver needs ``name``, the merchant's full registered name; a person's
    /// name is optional. The name is sent encrypted for the platform key (RSA-OAEP, SHA-1) whose
    /// serial goes in `Wechatpay-Serial` (``WeChatPay/V3/SensitiveField``).
    ///
    /// ```swift
    /// let receiver = WeChatPay.V3.ProfitSharingReceiver(
    ///     appID: "wx8888888888888888", type: .merchantID, account: "86693852", name: "深圳市示例科技有限公司", relationType: "STORE")
    /// try await client.addProfitSharingReceiver(receiver)
    /// ```
    public struct ProfitSharingReceiver: Sendable, Equatable {
        /// A receiver's `type`.
        public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            /// A merchant, by `mchid`.
            public static let merchantID = Kind(rawValue: "MERCHANT_ID")
            /// A person, by `openid` under the service provider's (or the merchant's) `appid`.
            public static let personalOpenID = Kind(rawValue: "PERSONAL_OPENID")
            /// A person, by `openid` under the sub-merchant's `appid` (partner mode).
            public static let personalSubOpenID = Kind(rawValue: "PERSONAL_SUB_OPENID")
            /// Every type WeChat documents.
            public static let documented: [Kind] = [.merchantID, .personalOpenID, .personalSubOpenID]
            public var description: String { rawValue }
        }

        /// The `relation_type`s WeChat documents.
        public static let relationTypes: Set<String> = [
            "SERVICE_PROVIDER", "STORE", "STAFF", "STORE_OWNER", "PARTNER", "HEADQUARTER", "BRAND", "DISTRIBUTOR", "USER", "SUPPLIER",
            "CUSTOM",
        ]

        /// `appid` (`sub_appid` for ``Kind/personalSubOpenID``).
        public var appID: String
        public var type: Kind
        /// `account`: a `mchid` or an `openid`.
        public var account: String
        /// The real name, in clear here: it is sent encrypted. Required for ``Kind/merchantID``.
        public var name: String?
        /// `relation_type`, one of ``relationTypes``; only adding needs it.
        public var relationType: String
        /// `custom_relation`, required (at most 10 characters) when ``relationType`` is `CUSTOM`.
        public var customRelation: String?

        public init(appID: String, type: Kind, account: String, name: String? = nil, relationType: String, customRelation: String? = nil) {
            self.appID = appID
            self.type = type
            self.account = account
            self.name = name
            self.relationType = relationType
            self.customRelation = customRelation
        }

        /// Checks the receiver as WeChat would before adding it.
        /// - Throws: `PaymentError.invalidRequest`, saying what is wrong.
        public func validate() throws {
            try validateIdentity()
            if type == .merchantID, name?.isEmpty ?? true { throw refuse("name is required for a MERCHANT_ID receiver") }
            if let name, name.count > 1024 { throw refuse("name must be at most 1024 characters") }
            guard Self.relationTypes.contains(relationType) else {
                throw refuse("relation_type \(relationType.prefix(32)) is not one WeChat knows")
            }
            if relationType == "CUSTOM" {
                guard let customRelation, !customRelation.isEmpty, customRelation.count <= 10 else {
                    throw refuse("custom_relation (1 to 10 characters) is required when relation_type is CUSTOM")
                }
            }
        }

        /// Checks what deleting needs: `appid`, a known `type` and an `account`.
        public func validateIdentity() throws {
            guard !appID.isEmpty else { throw refuse("appid is required") }
            guard Kind.documented.contains(type) else {
                throw refuse("type \(type.rawValue.prefix(32)) is not a receiver type WeChat knows")
            }
            guard !account.isEmpty, account.utf8.count <= 64 else { throw refuse("account must be 1 to 64 characters") }
        }

        /// The `receivers/add` body, with `name` encrypted for `key` when there is one.
        /// - Throws: `PaymentError.invalidRequest` (see ``validate()``), or a name with no key.
        public func addBody(encryptingFor key: RSAPublicKey?) throws -> [String: Any] {
            try validate()
            var body: [String: Any] = ["appid": appID, "type": type.rawValue, "account": account, "relation_type": relationType]
            if let name, !name.isEmpty { body["name"] = try SensitiveField.encrypt(name, for: key, field: "name") }
            if relationType == "CUSTOM", let customRelation { body["custom_relation"] = customRelation }
            return body
        }

        /// The `receivers/delete` body.
        public func deleteBody() throws -> [String: Any] {
            try validateIdentity()
            return ["appid": appID, "type": type.rawValue, "account": account]
        }

        private func refuse(_ message: String) -> PaymentError { PaymentError(.invalidRequest, provider: .wechatV3, message) }
    }
}
