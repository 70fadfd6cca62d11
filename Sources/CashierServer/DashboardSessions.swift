import CashierCrypto
import Foundation
import Synchronization

/// Signed-in dashboard sessions, in memory: a random id in an `HttpOnly; SameSite=Strict` cookie,
/// and a CSRF token every form must carry. Sessions end after eight hours or at sign-out; a
/// restart signs everyone out.
final class DashboardSessions: Sendable {
    struct Session: Sendable {
        let csrf: String
        let expires: Date
    }

    static let cookieName = "cashier_session"
    static let lifetime: TimeInterval = 8 * 3600
    private let sessions = Mutex<[String: Session]>([:])

    /// A new session. - Returns: its id (the cookie's value) and its CSRF token.
    func create(now: Date = Date()) -> (id: String, session: Session) {
        let id = SecureRandom.alphanumeric(count: 43)
        let session = Session(csrf: SecureRandom.alphanumeric(count: 32), expires: now.addingTimeInterval(Self.lifetime))
        sessions.withLock { all in
            all = all.filter { $0.value.expires > now }
            all[id] = session
        }
        return (id, session)
    }

    /// The session a request's cookie names, if it is still valid.
    func session(cookieHeader: String?, now: Date = Date()) -> (id: String, session: Session)? {
        guard let id = Self.cookieValue(cookieHeader) else { return nil }
        return sessions.withLock { all in
            guard let session = all[id], session.expires > now else { return nil }
            return (id, session)
        }
    }

    func end(_ id: String) {
        sessions.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// How the event log names the session that took an action: `dashboard` and the first eight
    /// hex digits of the SHA-256 of its id — stable for the session, useless to sign in with.
    static func actor(_ id: String) -> String {
        "dashboard " + Hex.encode(DigestAlgorithm.sha256.hash(id)).prefix(8)
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
