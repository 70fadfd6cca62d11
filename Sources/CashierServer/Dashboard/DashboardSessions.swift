import CashierCrypto
import CashierStore
import Foundation

/// Signed-in dashboard sessions, kept in the database so every instance sharing it knows them: a
/// random id in an `HttpOnly; SameSite=Strict` cookie (the store keeps only its SHA-256), and a
/// CSRF token every form must carry. Sessions end after eight hours, at sign-out, when the key
/// they signed in with is revoked, or — signed in with the configured secret key — when the
/// configuration names another one (the session keeps the key's fingerprint). Sign-in is throttled per address: after ``maximumFailures``
/// wrong keys within ``failureWindow``, the address is refused (429) until the window has passed,
/// before any key is read.
struct DashboardSessions: Sendable {
    struct Session: Sendable {
        let csrf: String
        let expires: Date
    }

    static let cookieName = "cashier_session"
    static let lifetime: TimeInterval = 8 * 3600
    static let failureWindow: TimeInterval = 15 * 60
    static let maximumFailures = 5

    let store: any AccessStore
    /// ``configuredKeyMark(_:)`` of the configured secret key in force.
    let configuredKey: String

    /// How a session signed in with the configured secret key names it: `configured:` and the
    /// first 16 hex digits of its SHA-256 — enough to tell a rotated key, useless to sign in with.
    static func configuredKeyMark(_ secretKey: String) -> String {
        "configured:" + Hex.encode(DigestAlgorithm.sha256.hash(secretKey)).prefix(16)
    }

    /// A new session. - Returns: its id (the cookie's value) and its CSRF token.
    /// - Parameter keyID: the key made with `cashier keys` it signed in with (revoking it ends the
    ///   session); `nil` for the configured secret key, whose mark is kept instead.
    func create(now: Date, keyID: String? = nil) async throws -> (id: String, session: Session) {
        let id = SecureRandom.alphanumeric(count: 43)
        let session = Session(csrf: SecureRandom.alphanumeric(count: 32), expires: now.addingTimeInterval(Self.lifetime))
        try await store.createDashboardSession(
            .init(idHash: Self.hash(id), csrf: session.csrf, expires: session.expires, keyID: keyID ?? configuredKey), now: now)
        return (id, session)
    }

    /// The session a request's cookie names, if it is still valid.
    func session(cookieHeader: String?, now: Date) async -> (id: String, session: Session)? {
        guard let id = Self.cookieValue(cookieHeader),
            let record = try? await store.dashboardSession(idHash: Self.hash(id), now: now)
        else { return nil }
        // Signed in with a configured secret key that is no longer the configured one: ended.
        if let keyID = record.keyID, keyID.hasPrefix("configured:"), keyID != configuredKey {
            await end(id)
            return nil
        }
        return (id, Session(csrf: record.csrf, expires: record.expires))
    }

    func end(_ id: String) async {
        try? await store.endDashboardSession(idHash: Self.hash(id))
    }

    /// Takes a sign-in attempt for `source`, counted as failed until its key proves right (then
    /// ``forgetAttempts(source:)``). - Returns: `false` when ``maximumFailures`` failed within
    /// ``failureWindow`` already: the attempt is refused unread.
    func takeAttempt(source: String, now: Date) async throws -> Bool {
        try await store.takeSignInAttempt(
            source: source, now: now, since: now.addingTimeInterval(-Self.failureWindow), limit: Self.maximumFailures)
    }

    /// Forgets `source`'s failed attempts: it signed in with the right key.
    func forgetAttempts(source: String) async {
        try? await store.clearSignInFailures(source: source)
    }

    /// What the store keeps of a session id.
    static func hash(_ id: String) -> String { Hex.encode(DigestAlgorithm.sha256.hash(id)) }

    /// How the event log names the session that took an action: `dashboard` and the first eight
    /// hex digits of the SHA-256 of its id — stable for the session, useless to sign in with.
    static func actor(_ id: String) -> String {
        "dashboard " + hash(id).prefix(8)
    }

    /// Our cookie's value from a `Cookie` header.
    static func cookieValue(_ header: String?) -> String? {
        for part in (header ?? "").split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
            if pair.count == 2, pair[0] == cookieName { return String(pair[1]) }
        }
        return nil
    }

    /// `Set-Cookie` for a session (`Secure` when the dashboard is served over https).
    static func cookie(_ id: String, secure: Bool, maxAge: Int = Int(lifetime)) -> String {
        "\(cookieName)=\(id); Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=\(maxAge)\(secure ? "; Secure" : "")"
    }
}
