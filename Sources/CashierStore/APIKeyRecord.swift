public import Foundation

/// A secret key made with `cashier keys create`, as the store keeps it: its SHA-256 and the first
/// characters to recognise it by — never the key.
public struct APIKeyRecord: Sendable, Equatable {
    /// `key_…`: what `cashier keys revoke` takes.
    public let id: String
    /// The SHA-256 of the key, in hex.
    public let hash: String
    /// `sk_AbCd…`: the first characters, for people.
    public let prefix: String
    public let label: String
    public let createdAt: Date
    public var revokedAt: Date?
    public var lastUsedAt: Date?
    /// The merchant the key acts for: its orders are that merchant's, and it reads no other's.
    /// `nil`: the platform's key, for every merchant.
    public var merchant: String?

    public init(
        id: String, hash: String, prefix: String, label: String, createdAt: Date, revokedAt: Date? = nil, lastUsedAt: Date? = nil,
        merchant: String? = nil
    ) {
        self.id = id
        self.hash = hash
        self.prefix = prefix
        self.label = label
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastUsedAt = lastUsedAt
        self.merchant = merchant
    }
}
