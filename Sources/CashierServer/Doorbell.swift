import Synchronization

/// Wakes a waiting job early: the webhook job waits for its interval or for a ring, whichever
/// comes first, so an `order.paid` goes out as soon as it is committed rather than on the next tick.
/// Rings while nobody waits are kept (one), so none is lost between two waits.
final class Doorbell: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private let state = Mutex(State())

    /// Wakes the waiter, or the next one to wait.
    func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.rung = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the first ring (or at once if one came since the last wait), or after `timeout`.
    /// One waiter at a time; a cancelled waiter returns at once.
    func wait(upTo timeout: Duration) async {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self.ring() }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.rung {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            ring()  // a stopping job does not wait out its interval
        }
        timer.cancel()
    }
}
