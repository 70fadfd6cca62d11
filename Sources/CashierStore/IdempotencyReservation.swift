/// What reserving an `Idempotency-Key` found (Stripe's semantics: the key is taken before the
/// work starts, so two requests with one key never both do it).
public enum IdempotencyReservation: Sendable, Equatable {
    /// The key is this caller's until its lease ends: do the work, then
    /// ``IdempotencyKeys/completeIdempotencyKey(_:holder:status:body:now:)`` (or release it on failure).
    case reserved
    /// A request with this key and body finished: answer this again.
    case replay(status: Int, body: [UInt8])
    /// The key was used with another request body: refuse (409).
    case conflict
    /// Another request with this key is still running (409 `idempotency_key_in_use`; retry
    /// shortly). A request interrupted by a crash holds it until its lease ends.
    case inProgress
}
