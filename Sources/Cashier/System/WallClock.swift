public import Foundation
import Synchronization

/// Where the server reads the time: the system's clock in production, a clock a test moves by
/// hand otherwise. Everything time-dependent in the merchant server (windows, leases, jobs, the
/// circuit breaker, expiry) asks one of these instead of calling `Date()` itself.
///
/// ```swift
/// let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
/// clock.advance(by: 3_600)   // an hour later, at once
/// ```
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The system's clock.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that stands still until it is moved: for tests of expiry, leases and backoff.
public final class ManualClock: WallClock {
    private let current: Mutex<Date>

    public init(_ start: Date = Date()) {
        current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative interval).
    public func advance(by interval: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(interval) }
    }

    /// Sets the clock.
    public func set(_ date: Date) {
        current.withLock { $0 = date }
    }
}
