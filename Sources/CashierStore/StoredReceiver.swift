public import Foundation

/// Someone a merchant may share orders with (a profit-sharing receiver), added at the provider
/// before any split names them. Their real name is sent to the provider (encrypted) when they are
/// added and never kept.
public struct StoredReceiver: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable, Codable {
        case active
        /// Deleted at the provider; splits can no longer name them.
        case removed
    }

    public let id: String
    /// The sub-merchant whose key added them; `nil` for the platform's.
    public let merchant: String?
    /// `wechat.v3` or `alipay`.
    public let provider: String
    /// The provider's receiver type (`MERCHANT_ID`, `PERSONAL_OPENID`, `PERSONAL_SUB_OPENID`; Alipay's `userId`, `loginName`, `openId`).
    public let type: String
    public let account: String
    /// How they relate to the merchant (WeChat's `relation_type`: `STORE`, `PARTNER`, `CUSTOM`, …).
    public let relationType: String
    /// The relation in words, when `relationType` is `CUSTOM`.
    public let customRelation: String?
    public let status: Status
    public let createdAt: Date
    public let updatedAt: Date

    public init(
        id: String, merchant: String?, provider: String, type: String, account: String, relationType: String, customRelation: String?,
        status: Status, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.merchant = merchant
        self.provider = provider
        self.type = type
        self.account = account
        self.relationType = relationType
        self.customRelation = customRelation
        self.status = status
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}
