import Cashier
import CashierStore
import Foundation
import Synchronization

/// Runs the server's jobs: each every so often, while it holds the job's lease in the store when
/// it is exclusive (instances sharing a database run it one at a time, and another takes over
/// when the holder dies). Waits go through the server's clock, so a test moves them on by hand.
/// Counts the runs under way, for ``MerchantApp/settled()``.
final class JobRunner: Sendable {
    let store: any JobLeases
    let clock: any WallClock
    let metrics: ServerMetrics
    /// This instance, as it holds leases.
    let holder: String
    /// How long a lease lasts at least.
    let lease: TimeInterval
    /// Rung after any job's run that had no doorbell of its own: it may have queued a webhook or moved an order.
    let afterRun: @Sendable () -> Void
    /// Runs under way.
    let running = Atomic<Int>(0)
    /// Rung when a run ends.
    let ended: Doorbell

    init(
        store: any JobLeases, clock: any WallClock, metrics: ServerMetrics, holder: String, lease: TimeInterval, ended: Doorbell,
        afterRun: @escaping @Sendable () -> Void
    ) {
        self.ended = ended
        self.store = store
        self.clock = clock
        self.metrics = metrics
        self.holder = holder
        self.lease = lease
        self.afterRun = afterRun
    }

    /// The least time between two runs of a job woken by its doorbell.
    static let ringGap: Duration = .milliseconds(10)

    /// Runs `body` every `interval` until the task is cancelled, counting each run for `/metrics`.
    /// With `exclusive`, only while this instance holds the job's lease. A `doorbell` cuts the wait
    /// short when rung; rings are then gathered for ``ringGap`` before the next run, so a busy
    /// server (every request rings) runs the job at most that often rather than in a loop of
    /// empty claims. `waitFirst`: the first run comes after one interval, not at once (a job whose
    /// work is on a schedule of its own, which a test drives itself).
    func every(
        _ interval: Duration, _ job: String, exclusive: Bool = true, doorbell: Doorbell? = nil, waitFirst: Bool = false,
        _ body: @escaping @Sendable () async -> Void
    ) -> Task<Void, Never> {
        let lease = max(self.lease, 3 * Double(interval.components.seconds))
        return Task {
            if waitFirst { try? await clock.sleep(for: interval) }
            while !Task.isCancelled {
                var mine = true
                if exclusive { mine = (try? await store.acquireLease(job, holder: holder, now: clock.now(), duration: lease)) ?? false }
                if mine {
                    running.add(1, ordering: .sequentiallyConsistent)
                    await body()
                    metrics.increment("cashier_job_runs_total", ["job": job])
                    // Any other job's run may have queued a webhook: send it now.
                    if doorbell == nil { afterRun() }
                    running.subtract(1, ordering: .sequentiallyConsistent)
                    ended.ring()
                }
                if let doorbell {
                    if await doorbell.wait(upTo: interval) == .rung { try? await Task.sleep(for: Self.ringGap) }
                } else {
                    try? await clock.sleep(for: interval)
                }
            }
            // Stopped: the lease goes now, so another instance (or this one, restarted) runs
            // the job at once rather than when the lease would have ended.
            if exclusive { try? await store.releaseLease(job, holder: holder) }
        }
    }
}
