public import Foundation

/// `Idempotency-Key`s: taken before a request that moves money runs, and its answer kept to
/// replay to a retry. Part of ``OrderStore``.
public protocol IdempotencyKeys: Sendable {
    /// Takes `key` for `holder` until `now + lease`, unless a request with it finished (replay),
    /// used another body (conflict) or still holds it (in progress). A holder's lease that ran
    /// out (it crashed) may be taken over.
    func reserveIdempotencyKey(_ key: String, requestSHA256: String, holder: String, now: Date, lease: TimeInterval) async throws
        -> IdempotencyReservation
    /// Keeps `holder`'s key for longer (a slow request).
    func renewIdempotencyKey(_ key: String, holder: String, until: Date) async throws
    /// Stores the answer to replay; the key is no longer in progress.
    func completeIdempotencyKey(_ key: String, holder: String, status: Int, body: [UInt8], now: Date) async throws
    /// Gives the key up (the request failed and may be retried).
    func releaseIdempotencyKey(_ key: String, holder: String) async throws
}
