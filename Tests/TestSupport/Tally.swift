import Dispatch
public import Foundation
import Synchronization

/// A count a fake moves and a test waits on: the test waits until it reaches a number, woken by
/// the move itself, instead of polling. Each wait has a bound, so a broken test fails rather than
/// hangs; the bound is not what is tested.
///
/// ```swift
/// let arrived = Tally()
/// let endpoint = Endpoint { arrived.add() }       // the fake counts what reaches it
/// #expect(await arrived.wait(atLeast: 3))         // woken by the third
/// ```
public final class Tally: Sendable {
    private struct Waiter {
        let id: Int
        let target: Int
        let resume: @Sendable (Bool) -> Void
    }

    private struct State {
        var value: Int
        var waiters: [Waiter] = []
        var nextID = 0
    }

    private let state: Mutex<State>

    public init(_ value: Int = 0) {
        state = Mutex(State(value: value))
    }

    /// The count now.
    public var value: Int { state.withLock { $0.value } }

    /// Adds `amount`, waking every wait whose number is reached. - Returns: the new count.
    @discardableResult
    public func add(_ amount: Int = 1) -> Int {
        move { $0 + amount }
    }

    /// Raises the count to `value` if it is higher (a most-at-once, say), waking as ``add(_:)``.
    public func raise(to value: Int) {
        move { max($0, value) }
    }

    private func move(_ change: (Int) -> Int) -> Int {
        let (value, woken) = state.withLock { state -> (Int, [Waiter]) in
            state.value = change(state.value)
            let value = state.value
            let woken = state.waiters.filter { $0.target <= value }
            state.waiters.removeAll { $0.target <= value }
            return (value, woken)
        }
        for waiter in woken { waiter.resume(true) }
        return value
    }

    /// Waits until the count is at least `target`, at most `bound`.
    /// - Returns: whether it got there (false: the bound passed first, or the task was cancelled).
    @discardableResult
    public func wait(atLeast target: Int, within bound: Duration = .seconds(60)) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        let timer = Task {
            await Deadline.pass(bound)
            if !Task.isCancelled { self.give(up: id) }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Under the lock the cancellation handler takes: a cancellation is never missed.
                let now = state.withLock { state -> Bool? in
                    if state.value >= target { return true }
                    if Task.isCancelled { return false }
                    state.waiters.append(Waiter(id: id, target: target) { continuation.resume(returning: $0) })
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            give(up: id)
        }
    }

    /// What `find` finds, looked for again each time the count moves (a fake adds to it as
    /// things arrive), for at most `bound`. - Returns: `nil` when nothing was found in time.
    ///
    /// ```swift
    /// let body = await sink.arrivals.first { sink.bodies.withLock { $0.first } }
    /// ```
    public func first<T>(within bound: Duration = .seconds(60), _ find: () -> T?) async -> T? {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: bound)
        while true {
            let seen = value
            if let found = find() { return found }
            let left = deadline - clock.now
            guard left > .zero, await wait(atLeast: seen + 1, within: left) else { return find() }
        }
    }

    /// ``wait(atLeast:within:)`` for a thread that is not a task's (a handler handed to a thread of
    /// its own, a database writer's): blocks the thread.
    @discardableResult
    public func waitBlocking(atLeast target: Int, within bound: Duration = .seconds(60)) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let outcome = Mutex<Bool?>(nil)
        let id = state.withLock { state -> Int? in
            if state.value >= target { return nil }
            state.nextID += 1
            let id = state.nextID
            state.waiters.append(
                Waiter(id: id, target: target) { reached in
                    outcome.withLock { $0 = reached }
                    semaphore.signal()
                })
            return id
        }
        guard let id else { return true }
        let seconds = Double(bound.components.seconds) + Double(bound.components.attoseconds) / 1e18
        if semaphore.wait(timeout: .now() + seconds) == .timedOut {
            give(up: id)
            semaphore.wait()  // given up, or reached just before: either way it has signalled now
        }
        return outcome.withLock { $0 } ?? false
    }

    /// Ends wait `id` unreached, if it still waits.
    private func give(up id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.resume(false)
    }
}

/// Something that happens once, which a test waits for: a fake fires it (a handler has started,
/// a request is held, a producer has finished) and the test, waiting, wakes.
///
/// ```swift
/// let started = Signal()
/// router.add("GET", "/held") { _, _ in started.fire(); await release.wait(); return .text("done") }
/// #expect(await started.wait())
/// ```
public final class Signal: Sendable {
    private let tally = Tally()

    public init() {}

    /// Fires it (again is harmless): every wait, and every later one, ends.
    public func fire() { tally.raise(to: 1) }

    /// Whether it has fired.
    public var fired: Bool { tally.value > 0 }

    /// Waits until it fires, at most `bound`. - Returns: whether it fired.
    @discardableResult
    public func wait(within bound: Duration = .seconds(60)) async -> Bool {
        await tally.wait(atLeast: 1, within: bound)
    }

    /// ``wait(within:)`` for a thread that is not a task's: blocks the thread.
    @discardableResult
    public func waitBlocking(within bound: Duration = .seconds(60)) -> Bool {
        tally.waitBlocking(atLeast: 1, within: bound)
    }
}

/// The one place TestSupport's waits are bounded: a timer that lets `bound` pass (or ends early
/// when its task is cancelled). Every wait for a signal is bounded only so that a broken test
/// fails rather than hangs.
enum Deadline {
    static func pass(_ bound: Duration) async {
        try? await Task.sleep(for: bound)
    }
}
