import Synchronization

/// A handler's own time limit (not the time a request takes to arrive, which the server's
/// connection timeout bounds): past `limit`, the caller gets 503 `deadline_exceeded` with
/// `Retry-After`, and the work goes on to its end — under its `Idempotency-Key`, when it has
/// one, so a retry with the key waits for it (409 `idempotency_key_in_use`) and then gets its
/// answer. Requests that are meant to take long (`exempt`: an event stream, a counter payment
/// waiting for the payer) are not limited. The work that goes on past the deadline is announced
/// to `startedLate` when the caller is answered, and handed to `finishedLate` when it ends.
public struct Deadline<Context: RequestContext>: Middleware {
    let limit: Duration
    let retryAfter: Int
    let exempt: @Sendable (HTTPServerRequest, Context) -> Bool
    let startedLate: @Sendable () -> Void
    let finishedLate: @Sendable (HTTPServerRequest, HTTPServerResponse?) -> Void

    /// - Parameters:
    ///   - limit: how long the handler has before the caller is answered 503.
    ///   - retryAfter: the `Retry-After` seconds sent with that 503.
    ///   - exempt: the requests no deadline limits.
    ///   - startedLate: told when the caller is answered and the work goes on.
    ///   - finishedLate: the late work's response (`nil` when it threw).
    public init(
        _ limit: Duration, retryAfter: Int = 1, exempt: @escaping @Sendable (HTTPServerRequest, Context) -> Bool = { _, _ in false },
        startedLate: @escaping @Sendable () -> Void = {},
        finishedLate: @escaping @Sendable (HTTPServerRequest, HTTPServerResponse?) -> Void = { _, _ in }
    ) {
        self.limit = limit
        self.retryAfter = retryAfter
        self.exempt = exempt
        self.startedLate = startedLate
        self.finishedLate = finishedLate
    }

    public func handle(
        _ request: HTTPServerRequest, context: Context,
        next: @escaping @Sendable (HTTPServerRequest, Context) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse {
        if exempt(request, context) { return try await next(request, context) }
        let race = Race()
        let (startedLate, finishedLate) = (self.startedLate, self.finishedLate)
        Task {
            let result: Result<HTTPServerResponse, any Error>
            do { result = .success(try await next(request, context)) } catch { result = .failure(error) }
            if !race.finish(result) { finishedLate(request, try? result.get()) }
        }
        let timer = Task {
            try? await Task.sleep(for: limit)
            // Announced before the caller hears: the late work's end is never counted before its start.
            if !Task.isCancelled, race.finish(nil, before: startedLate) {}
        }
        let outcome = await race.outcome()
        timer.cancel()
        guard let outcome else {
            var response = HTTPServerResponse.error(
                status: 503, code: "deadline_exceeded",
                message: "the request is still being worked on; retry with the same Idempotency-Key to get its answer")
            response.headers.set("Retry-After", String(retryAfter))
            return response
        }
        return try outcome.get()
    }
}

/// The first of the work and the timer to finish.
private final class Race: Sendable {
    private struct State {
        var decided: Result<HTTPServerResponse, any Error>??
        var waiter: CheckedContinuation<Result<HTTPServerResponse, any Error>?, Never>?
    }
    private let state = Mutex(State(decided: nil))

    /// Records `outcome` (`nil`: the timer) when nothing has finished yet, running `first` under
    /// the lock when it is. - Returns: whether it was first.
    func finish(_ outcome: Result<HTTPServerResponse, any Error>?, before first: () -> Void = {}) -> Bool {
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Result<HTTPServerResponse, any Error>?, Never>?) in
            guard state.decided == nil else { return (false, nil) }
            first()
            state.decided = .some(outcome)
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        if first { waiter?.resume(returning: outcome) }
        return first
    }

    func outcome() async -> Result<HTTPServerResponse, any Error>? {
        await withCheckedContinuation { continuation in
            let decided = state.withLock { state -> Result<HTTPServerResponse, any Error>?? in
                if let decided = state.decided { return .some(decided) }
                state.waiter = continuation
                return nil
            }
            if let decided { continuation.resume(returning: decided) }
        }
    }
}
