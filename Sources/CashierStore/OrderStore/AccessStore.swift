public import Foundation

/// Dashboard sessions, sign-in failures and API keys, shared by every instance using the
/// database. Part of ``OrderStore``.
public protocol AccessStore: Sendable {
    /// Keeps a dashboard session, by the SHA-256 of its cookie value (never the value), so every
    /// instance sharing the database knows it; expired sessions are dropped meanwhile.
    func createDashboardSession(_ session: DashboardSessionRecord, now: Date) async throws
    /// The session whose cookie hashes to `idHash`, if it has not expired.
    func dashboardSession(idHash: String, now: Date) async throws -> DashboardSessionRecord?
    func endDashboardSession(idHash: String) async throws
    /// Records a failed sign-in from `source`. - Returns: how many failed from it since `since`.
    func recordSignInFailure(source: String, now: Date, since: Date) async throws -> Int
    /// Takes a sign-in attempt for `source` before its key is checked, counted as failed until
    /// ``clearSignInFailures(source:)``: when fewer than `limit` failed since `since`, records it
    /// and returns `true`; otherwise records nothing and returns `false`. Attempts at once are
    /// taken one by one, across instances: never more than `limit` get through.
    func takeSignInAttempt(source: String, now: Date, since: Date, limit: Int) async throws -> Bool
    /// Forgets `source`'s failed sign-ins (it signed in with the right key).
    func clearSignInFailures(source: String) async throws
    /// How many sign-ins failed from `source` since `since`.
    func signInFailures(source: String, since: Date) async throws -> Int

    /// Stores a new API key (its hash; the key itself is shown once and never kept).
    func createAPIKey(_ key: APIKeyRecord) async throws
    /// Every API key, newest first, revoked ones included.
    func apiKeys() async throws -> [APIKeyRecord]
    /// The unrevoked key whose SHA-256 is `hash`: read on every request, so a revocation is
    /// refused at once on every instance.
    func activeAPIKey(hash: String) async throws -> APIKeyRecord?
    /// Revokes key `id`. - Returns: the key, or `nil` when there is none. Revoking twice keeps the first time.
    func revokeAPIKey(id: String, now: Date) async throws -> APIKeyRecord?
    /// Notes that key `id` was used at `at`.
    func touchAPIKey(id: String, at: Date) async throws
}
