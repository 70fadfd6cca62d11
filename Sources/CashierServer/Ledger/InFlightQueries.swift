import Cashier
import CashierStore
import Foundation
import Synchronization

/// One question to a provider at a time about each payment, and not one after another. An app
/// polling an order whose payment is in doubt makes the server ask the provider
/// (``MerchantAPI/queryIfInDoubt(_:)``), and a page that polls from many connections at once
/// would ask as many times: a request that finds a question about the same payment under way
/// waits for its answer instead of asking again. And a question that left the payment in doubt
/// (or got no answer) is not asked again until `interval` has passed: the reads in between answer
/// what the store holds.
final class InFlightQueries: Sendable {
    private struct State {
        var running: [String: Task<StoredOrder?, any Error>] = [:]
        /// When each payment's last question that decided nothing finished.
        var asked: [String: Date] = [:]
    }

    private let state = Mutex(State())
    let interval: TimeInterval
    private let clock: any WallClock

    /// - Parameter interval: how long after a question that decided nothing the next one waits (`0`: none).
    init(interval: TimeInterval = 0, clock: any WallClock = SystemClock()) {
        self.interval = interval
        self.clock = clock
    }

    /// `ask`'s answer for `paymentID`: the one under way, or a new one; `nil` without asking when
    /// a question about it that decided nothing finished less than ``interval`` ago.
    func answer(for paymentID: String, _ ask: @escaping @Sendable () async throws -> StoredOrder?) async throws -> StoredOrder? {
        let now = clock.now()
        let task = state.withLock { state -> Task<StoredOrder?, any Error>? in
            if let underWay = state.running[paymentID] { return underWay }
            if let last = state.asked[paymentID], now.timeIntervalSince(last) < interval, now >= last { return nil }
            let task = Task { try await ask() }
            state.running[paymentID] = task
            return task
        }
        guard let task else { return nil }
        let answer: StoredOrder?
        do {
            answer = try await task.value
        } catch {
            finished(paymentID, task, decided: false)
            throw error
        }
        finished(paymentID, task, decided: answer != nil)
        return answer
    }

    private func finished(_ paymentID: String, _ task: Task<StoredOrder?, any Error>, decided: Bool) {
        let now = clock.now()
        state.withLock { state in
            guard state.running[paymentID] == task else { return }
            state.running[paymentID] = nil
            if decided || interval <= 0 {
                state.asked[paymentID] = nil
            } else {
                state.asked[paymentID] = now
                // Forgotten once their interval is over: the map holds the payments asked about lately.
                if state.asked.count > 1_024 { state.asked = state.asked.filter { now.timeIntervalSince($0.value) < interval } }
            }
        }
    }
}
