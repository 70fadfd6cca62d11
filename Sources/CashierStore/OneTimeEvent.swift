import Synchronization

/// Something that happens once and that callers wait for without blocking a thread: a store's
/// thread has ended (its connection closed), a closed pool's last connection has gone — for a
/// `close()` that returns only once nothing uses the database any more.
final class OneTimeEvent: Sendable {
    private let state = Mutex<(finished: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    /// Marks it happened and wakes every caller waiting (later calls change nothing).
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
