import Cashier
import Foundation
import Synchronization

/// A circuit breaker per provider: after `threshold` calls in a row that found the provider down
/// (no answer in time, or HTTP 5xx), calls fail fast for `cooldown` instead of each waiting for a timeout — so a dead gateway cannot tie up the
/// server's requests. After the cooldown one call is let through; its outcome closes or reopens it.
final class ProviderBreaker: Sendable {
    private struct State {
        var failures = 0
        var openUntil: Date?
        var trialInFlight = false
    }

    let threshold: Int
    let cooldown: TimeInterval
    let clock: any WallClock
    private let states = Mutex<[String: State]>([:])

    init(threshold: Int, cooldown: TimeInterval, clock: any WallClock = SystemClock()) {
        self.threshold = max(1, threshold)
        self.cooldown = cooldown
        self.clock = clock
    }

    /// Lets a call to `provider` through, unless its circuit is open.
    /// - Throws: `PaymentError.transport` saying the provider is being given a rest.
    func admit(_ provider: String) throws {
        let now = clock.now()
        let refusal: Date? = states.withLock { all in
            var state = all[provider, default: State()]
            defer { all[provider] = state }
            guard let until = state.openUntil else { return nil }
            if now < until || state.trialInFlight { return until }
            state.trialInFlight = true  // half-open: this call is the trial
            return nil
        }
        if let refusal {
            throw PaymentError(
                .transport,
                "\(provider) is failing: calls are paused until \(ISO8601DateFormatter().string(from: refusal)) after \(threshold) failures "
                    + "in a row; retry later")
        }
    }

    /// Records a call's outcome: an outage counts towards opening the circuit; an answer closes it.
    func record(_ provider: String, outage: Bool) {
        let now = clock.now()
        states.withLock { all in
            var state = all[provider, default: State()]
            state.trialInFlight = false
            if outage {
                state.failures += 1
                if state.failures >= threshold { state.openUntil = now.addingTimeInterval(cooldown) }
            } else {
                state = State()
            }
            all[provider] = state
        }
    }

    /// `true` while `provider`'s calls fail fast.
    func isOpen(_ provider: String) -> Bool {
        let now = clock.now()
        return states.withLock { ($0[provider]?.openUntil).map { now < $0 } ?? false }
    }
}
