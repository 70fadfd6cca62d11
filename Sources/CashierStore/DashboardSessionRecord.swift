public import Foundation

/// A signed-in dashboard session as the store keeps it: the SHA-256 of the cookie's value (so a
/// copy of the database signs no one in), the form token, and when it ends.
public struct DashboardSessionRecord: Sendable, Equatable {
    public let idHash: String
    public let csrf: String
    public let expires: Date

    public init(idHash: String, csrf: String, expires: Date) {
        self.idHash = idHash
        self.csrf = csrf
        self.expires = expires
    }
}
