import Foundation
import Synchronization

/// Threads for blocking transfers, kept between them: a transfer is handed to an idle thread of
/// its own, or to a new one when every thread is busy (so a slow transfer never holds up
/// another), and a thread idle for `idleTimeout` ends. Never Swift's cooperative threads nor a
/// dispatch queue that shares them: blocking those starves every task in the process.
///
/// Each thread waits on a semaphore of its own and is handed its next transfer directly: with
/// one queue and one semaphore for all, every finished thread went back to the queue's lock to
/// look for more, and 64 clients' transfers spent more time spinning on that lock than in it.
final class TransferThreads: Sendable {
    /// One thread: where its next transfer is put, and what wakes it.
    private final class Worker: Sendable {
        let wake = DispatchSemaphore(value: 0)
        let next = Mutex<(@Sendable () -> Void)?>(nil)
    }

    /// Threads waiting for a transfer, the most recently busy last (it is handed the next one,
    /// so the others can reach their idle timeout and end).
    private let idle = Mutex<[Worker]>([])
    private let idleTimeout: DispatchTimeInterval
    private let name: String

    init(name: String, idleTimeout: DispatchTimeInterval = .seconds(10)) {
        self.name = name
        self.idleTimeout = idleTimeout
    }

    /// Threads waiting for a transfer now.
    var idleCount: Int { idle.withLock { $0.count } }

    /// Runs `job` on one of the threads.
    func run(_ job: @escaping @Sendable () -> Void) {
        if let worker = idle.withLock({ $0.popLast() }) {
            worker.next.withLock { $0 = job }
            worker.wake.signal()
            return
        }
        let worker = Worker()
        let thread = Thread { self.work(worker, first: job) }
        thread.name = name
        thread.start()
    }

    private func work(_ worker: Worker, first: @escaping @Sendable () -> Void) {
        var job: (@Sendable () -> Void)? = first
        while let current = job {
            current()
            idle.withLock { $0.append(worker) }
            if worker.wake.wait(timeout: .now() + idleTimeout) == .timedOut {
                // Gone unless `run` took this thread meanwhile (then its signal is on the way).
                let leave = idle.withLock { threads -> Bool in
                    guard let index = threads.firstIndex(where: { $0 === worker }) else { return false }
                    threads.remove(at: index)
                    return true
                }
                if leave { return }
                worker.wake.wait()
            }
            job = worker.next.withLock { next in
                defer { next = nil }
                return next
            }
        }
    }
}
