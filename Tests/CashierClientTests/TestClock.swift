import Synchronization

/// A clock that moves only when slept on: each sleep ends at once, moving it to the deadline,
/// and is recorded.
final class TestClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        let offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Mutex((now: Instant(offset: .zero), slept: [Duration]()))

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }
    var slept: [Duration] { state.withLock { $0.slept } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        state.withLock { state in
            state.slept.append(state.now.duration(to: deadline))
            state.now = max(state.now, deadline)
        }
    }
}
