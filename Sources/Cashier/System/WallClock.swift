public import Foundation
import Synchronization

/// Where the server reads the time and waits: the system's clock in production, a clock a test
/// moves by hand otherwise. Everything time-dependent in the merchant server (windows, leases,
/// jobs, the circuit breaker, expiry, the waits between a job's runs) asks one of these instead of
/// calling `Date()` or `Task.sleep` itself.
///
/// ```swift
/// let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000), sleeps: .manual)
/// clock.advance(by: 3_600)   // an hour later, at once: what slept until then wakes
/// ```
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Waits `duration` of this clock's time. - Throws: `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

extension WallClock {
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// The system's clock.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that stands still until it is moved: for tests of expiry, leases and backoff.
///
/// Its ``sleep(for:)`` waits in real time by default (``Sleeps/real``), as code written before the
/// clock could sleep expects; with ``Sleeps/manual`` a sleeper waits until ``advance(by:)`` or
/// ``set(_:)`` moves the clock past its wake-up time, so a test that waits an hour takes none.
public final class ManualClock: WallClock {
    /// How ``sleep(for:)`` waits.
    public enum Sleeps: Sendable {
        /// In real time (`Task.sleep`), whatever the clock says.
        case real
        /// Until the clock is moved past the wake-up time.
        case manual
    }

    private struct Sleeper {
        let id: Int
        let wakeAt: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state: Mutex<State>
    private let sleeps: Sleeps

    public init(_ start: Date = Date(), sleeps: Sleeps = .real) {
        state = Mutex(State(now: start))
        self.sleeps = sleeps
    }

    public func now() -> Date { state.withLock { $0.now } }

    /// Moves the clock forward (or back, with a negative interval), waking the sleepers it passes.
    public func advance(by interval: TimeInterval) {
        move { $0.addingTimeInterval(interval) }
    }

    /// Sets the clock, waking the sleepers it passes.
    public func set(_ date: Date) {
        move { _ in date }
    }

    /// How many tasks are asleep on this clock (``Sleeps/manual``): a test waits for its job to
    /// be asleep before it moves the clock.
    public var sleeping: Int { state.withLock { $0.sleepers.count } }

    public func sleep(for duration: Duration) async throws {
        guard sleeps == .manual else { return try await Task.sleep(for: duration) }
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    let wakeAt = state.now.addingTimeInterval(seconds)
                    if seconds <= 0 || Task.isCancelled { return true }
                    state.sleepers.append(Sleeper(id: id, wakeAt: wakeAt, continuation: continuation))
                    return false
                }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    private func move(_ change: (Date) -> Date) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = change(state.now)
            let now = state.now
            let due = state.sleepers.filter { $0.wakeAt <= now }
            state.sleepers.removeAll { $0.wakeAt <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }
}
