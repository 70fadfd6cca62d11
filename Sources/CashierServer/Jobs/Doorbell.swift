import Synchronization

/// Wakes a waiting job early: the webhook job waits for its interval or for a ring, whichever
/// comes first, so an `order.paid` goes out as soon as it is committed rather than on the next tick.
/// A ring while nobody waits is kept (one), so none is lost between two waits.
final class Doorbell: Sendable {
    /// Why a wait ended.
    enum Wake: Sendable, Equatable {
        case rung
        case timedOut
        case cancelled
    }

    private struct State {
        var rung = false
        var waiter: (id: UInt64, continuation: CheckedContinuation<Wake, Never>)?
        var waits: UInt64 = 0
    }
    private let state = Mutex(State())
    /// Told each time a waiter starts waiting (tests: a ring after it wakes that waiter).
    private let waiting: (@Sendable () -> Void)?

    /// - Parameter waiting: told each time a waiter has started waiting (a test rings only then).
    init(waiting: (@Sendable () -> Void)? = nil) {
        self.waiting = waiting
    }

    /// Wakes the waiter, or the next one to wait.
    func ring() {
        wake(.rung, waiter: nil)
    }

    /// Returns at the first ring (at once if one came since the last wait), after `timeout`, or
    /// at once when the waiting task is cancelled. One waiter at a time.
    @discardableResult
    func wait(upTo timeout: Duration) async -> Wake {
        let id = state.withLock { state in
            state.waits += 1
            return state.waits
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self.wake(.timedOut, waiter: id) }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                let ready = state.withLock { state -> Wake? in
                    if state.rung {
                        state.rung = false
                        return .rung
                    }
                    // Checked under the lock the cancellation handler takes: never missed.
                    if Task.isCancelled { return .cancelled }
                    state.waiter = (id, continuation)
                    return nil
                }
                if let ready { continuation.resume(returning: ready) } else { waiting?() }
            }
        } onCancel: {
            wake(.cancelled, waiter: id)  // a stopping job does not wait out its interval
        }
    }

    /// Resumes the waiter (only wait `id`'s, when given: a timer never ends a later wait);
    /// a ring with nobody waiting is kept for the next wait.
    private func wake(_ reason: Wake, waiter id: UInt64?) {
        let waiter = state.withLock { state -> CheckedContinuation<Wake, Never>? in
            guard let waiter = state.waiter, id == nil || waiter.id == id else {
                if reason == .rung { state.rung = true }
                return nil
            }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: reason)
    }
}
