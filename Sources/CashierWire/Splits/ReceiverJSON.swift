/// A profit-sharing receiver, as the API answers it. Their real name, sent to the provider when
/// they were added, is never kept or returned.
public struct ReceiverJSON: Codable, Sendable, Equatable {
    /// `rcv_…`.
    public let id: String
    /// `wechat` or `alipay`.
    public let provider: String
    /// `MERCHANT_ID`, `PERSONAL_OPENID`, `PERSONAL_SUB_OPENID` (WeChat Pay); `userId`, `loginName`, `openId` (Alipay).
    public let type: String
    public let account: String
    /// How they relate to the merchant (WeChat Pay's `relation_type`).
    public let relation_type: String
    public let custom_relation: String?
    /// `active` or `removed`.
    public let status: String
    /// Unix seconds.
    public let created: Int64

    public init(
        id: String, provider: String, type: String, account: String, relation_type: String, custom_relation: String?, status: String,
        created: Int64
    ) {
        self.id = id
        self.provider = provider
        self.type = type
        self.account = account
        self.relation_type = relation_type
        self.custom_relation = custom_relation
        self.status = status
        self.created = created
    }
}
