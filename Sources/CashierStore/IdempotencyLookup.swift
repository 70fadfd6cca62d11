/// An idempotency key's state.
public enum IdempotencyLookup: Sendable, Equatable {
    /// Never seen: do the work, then ``OrderStore/saveIdempotentResponse(key:requestSHA256:status:body:)``.
    case new
    /// Seen with the same request: answer this again.
    case replay(status: Int, body: [UInt8])
    /// Seen with another request: refuse (409).
    case conflict
}
