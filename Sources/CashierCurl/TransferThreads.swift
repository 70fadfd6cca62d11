import Foundation
import Synchronization

/// Threads for blocking transfers, kept between them: a transfer runs on an idle thread, or on a
/// new one when every thread is busy (so a slow transfer never holds up another), and a thread
/// idle for `idleTimeout` ends. Never Swift's cooperative threads nor a dispatch queue that
/// shares them: blocking those starves every task in the process.
final class TransferThreads: Sendable {
    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var idle = 0
    }
    private let state = Mutex(State())
    private let available = DispatchSemaphore(value: 0)
    private let idleTimeout: DispatchTimeInterval
    private let name: String

    init(name: String, idleTimeout: DispatchTimeInterval = .seconds(10)) {
        self.name = name
        self.idleTimeout = idleTimeout
    }

    /// Runs `job` on one of the threads.
    func run(_ job: @escaping @Sendable () -> Void) {
        let spawn = state.withLock { state -> Bool in
            state.jobs.append(job)
            guard state.idle > 0 else { return true }
            state.idle -= 1
            return false
        }
        if spawn {
            let thread = Thread { self.work() }
            thread.name = name
            thread.start()
        } else {
            available.signal()
        }
    }

    private func work() {
        while true {
            while let job = state.withLock({ $0.jobs.isEmpty ? nil : $0.jobs.removeFirst() }) { job() }
            state.withLock { $0.idle += 1 }
            if available.wait(timeout: .now() + idleTimeout) == .timedOut {
                // Gone unless a job counted on this thread meanwhile (then its signal is ours to take).
                let leave = state.withLock { state -> Bool in
                    guard state.idle > 0 else { return false }
                    state.idle -= 1
                    return true
                }
                if leave { return }
                available.wait()
            }
        }
    }
}
