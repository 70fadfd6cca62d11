import Foundation
import Synchronization

/// When each pending payment is next asked about: first ``MerchantConfiguration/queryAfter``
/// after it started, then at doubling intervals (capped), so a payer who walked away does not
/// cost a provider call every few seconds until the order expires. Kept in memory: after a
/// restart every pending payment is asked once more, which is harmless.
final class QueryFallbackSchedule: Sendable {
    private let next = Mutex<[String: (at: Date, interval: TimeInterval)]>([:])
    let maximumInterval: TimeInterval

    init(maximumInterval: TimeInterval = 600) {
        self.maximumInterval = maximumInterval
    }

    /// Whether the order is due at `now`.
    func isDue(_ orderID: String, now: Date) -> Bool {
        next.withLock { ($0[orderID]?.at ?? .distantPast) <= now }
    }

    /// Records an unanswered query: the next one waits twice as long as the last.
    func backOff(_ orderID: String, now: Date, first: TimeInterval) {
        next.withLock { schedule in
            let interval = schedule[orderID].map { min(maximumInterval, $0.interval * 2) } ?? min(maximumInterval, max(first, 1))
            schedule[orderID] = (now.addingTimeInterval(interval), interval)
        }
    }

    /// Forgets orders no longer pending.
    func keep(only orderIDs: Set<String>) {
        next.withLock { schedule in schedule = schedule.filter { orderIDs.contains($0.key) } }
    }
}
