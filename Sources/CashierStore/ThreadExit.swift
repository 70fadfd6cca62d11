import Synchronization

/// Tells whoever waits that a thread of the store's has finished (its connections closed): for
/// a `close()` that returns only once the files are no longer in use.
final class ThreadExit: Sendable {
    private let state = Mutex<(finished: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// Called once, by the thread, as it ends.
    func finish() {
        let waiting = state.withLock { state in
            state.finished = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once ``finish()`` has been called (at once if it has).
    func wait() async {
        await withCheckedContinuation { continuation in
            let finished = state.withLock { state in
                if !state.finished { state.waiting.append(continuation) }
                return state.finished
            }
            if finished { continuation.resume() }
        }
    }
}
