import Foundation
import Synchronization

/// A fixed-size pool of connections: they open on demand up to `size`; a caller beyond that
/// waits its turn, first come first served; a broken connection is dropped and its turn passed
/// on with the right to open a new one.
///
/// The decision to wait and the joining of the queue happen under one lock, so a connection
/// given back in between cannot sit idle while a caller waits for it (which, with nothing more
/// given back, would be a caller waiting forever), and a caller arriving later never takes a
/// connection ahead of one already waiting.
///
/// ``close()`` drops the idle connections, turns away the callers waiting and every later one
/// (`StoreError.unavailable`), and returns once the connections in use have been given back and
/// dropped too.
final class ConnectionPool<Connection: Sendable>: Sendable {
    /// What a caller gets: a connection, or the right to open one (a slot counted in `open`).
    private enum Turn: Sendable {
        case ready(Connection)
        case open
        /// The pool is closed.
        case closed
    }

    private struct State {
        var idle: [Connection] = []
        var open = 0
        var waiting: [CheckedContinuation<Turn, Never>] = []
        var closed = false

        /// One connection fewer open. - Returns: whether it was the last of a closed pool.
        mutating func dropOne() -> Bool {
            open -= 1
            return closed && open == 0
        }
    }

    let size: Int
    private let connect: @Sendable () async throws -> Connection
    private let isHealthy: @Sendable (Connection) -> Bool
    private let state = Mutex(State())
    /// Once the pool is closed and its last connection dropped.
    private let drained = OneTimeEvent()
    /// Runs after a caller found nothing free and before it joins the queue: a test gives a
    /// connection back there, the moment a two-step wait would lose it.
    private let beforeWaiting: (@Sendable () async -> Void)?
    /// Told each time a caller has joined the queue: a test waits for that instead of polling ``counts``.
    private let joined: (@Sendable () -> Void)?

    /// - Parameters:
    ///   - size: the most connections open at once (at least 1).
    ///   - connect: opens one (off Swift's cooperative threads if it blocks).
    ///   - isHealthy: whether a connection given back can be used again.
    ///   - joined: told each time a caller has joined the queue (tests).
    init(
        size: Int, connect: @escaping @Sendable () async throws -> Connection, isHealthy: @escaping @Sendable (Connection) -> Bool,
        beforeWaiting: (@Sendable () async -> Void)? = nil, joined: (@Sendable () -> Void)? = nil
    ) {
        self.size = max(1, size)
        self.connect = connect
        self.isHealthy = isHealthy
        self.beforeWaiting = beforeWaiting
        self.joined = joined
    }

    /// A connection for this caller alone until ``release(_:)``.
    func acquire() async throws -> Connection {
        let turn: Turn
        if let now = state.withLock({ take(&$0) }) {
            turn = now
        } else {
            await beforeWaiting?()
            // Checked again under the lock that joins the queue: a connection given back since is taken.
            turn = await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Turn? in
                    if let turn = take(&state) { return turn }
                    state.waiting.append(continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) } else { joined?() }
            }
        }
        switch turn {
        case .ready(let connection): return connection
        case .closed: throw StoreError(.unavailable, "the store is closed")
        case .open:
            do {
                return try await connect()
            } catch {
                // The slot goes to the next caller waiting, or back to the count.
                let (waiter, last) = state.withLock { state -> (CheckedContinuation<Turn, Never>?, Bool) in
                    if !state.waiting.isEmpty { return (state.waiting.removeFirst(), false) }
                    return (nil, state.dropOne())
                }
                waiter?.resume(returning: .open)
                if last { drained.finish() }
                throw error
            }
        }
    }

    /// Gives the connection back: to the caller waiting longest, else to the idle ones; a broken
    /// one is dropped, and the caller waiting longest opens a new one in its place. Once the pool
    /// is closed, every connection given back is dropped.
    func release(_ connection: Connection) {
        let healthy = isHealthy(connection)
        let (waiter, last) = state.withLock { state -> ((CheckedContinuation<Turn, Never>, Turn)?, Bool) in
            if state.closed { return (nil, state.dropOne()) }
            guard !state.waiting.isEmpty else {
                if healthy {
                    state.idle.append(connection)
                    return (nil, false)
                }
                return (nil, state.dropOne())
            }
            return ((state.waiting.removeFirst(), healthy ? .ready(connection) : .open), false)
        }
        if let (continuation, turn) = waiter { continuation.resume(returning: turn) }
        if last { drained.finish() }
    }

    /// Drops the idle connections at once, fails the callers waiting and every later one as
    /// unavailable, and returns once every connection in use has been given back (and dropped).
    /// Calling it again waits the same way.
    func close() async {
        let (idle, waiters, last) = state.withLock { state in
            state.closed = true
            defer {
                state.open -= state.idle.count
                state.idle = []
                state.waiting = []
            }
            return (state.idle, state.waiting, state.open == state.idle.count)
        }
        _ = consume idle  // the pool held the only reference: each connection closes here
        for waiter in waiters { waiter.resume(returning: .closed) }
        if last { drained.finish() }
        await drained.wait()
    }

    /// Connections open (idle or in use), and callers waiting: for tests.
    var counts: (open: Int, idle: Int, waiting: Int) {
        state.withLock { ($0.open, $0.idle.count, $0.waiting.count) }
    }

    /// An idle connection, or the right to open one while fewer than `size` are open.
    private func take(_ state: inout State) -> Turn? {
        if state.closed { return .closed }
        if let connection = state.idle.popLast() { return .ready(connection) }
        guard state.open < size else { return nil }
        state.open += 1
        return .open
    }
}
