public import Foundation

/// A signed-in dashboard session as the store keeps it: the SHA-256 of the cookie's value (so a
/// copy of the database signs no one in), the form token, and when it ends.
public struct DashboardSessionRecord: Sendable, Equatable {
    public let idHash: String
    public let csrf: String
    public let expires: Date
    /// The key made with `cashier keys` the session signed in with (`key_…`); `nil` for the
    /// configured secret key. Revoking that key ends the session.
    public let keyID: String?

    public init(idHash: String, csrf: String, expires: Date, keyID: String? = nil) {
        self.idHash = idHash
        self.csrf = csrf
        self.expires = expires
        self.keyID = keyID
    }
}
