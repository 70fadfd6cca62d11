import Cashier
import Foundation
import Synchronization

/// A fixed-size pool of ``PostgresConnection``s: connections open on demand up to `size`; a
/// caller beyond that waits its turn; a broken connection is dropped and replaced on next use.
final class PostgresPool: Sendable {
    private struct State {
        var idle: [PostgresConnection] = []
        var open = 0
        var waiting: [CheckedContinuation<PostgresConnection?, Never>] = []
    }

    let url: String
    let size: Int
    private let state = Mutex(State())

    init(url: String, size: Int) {
        self.url = url
        self.size = max(1, size)
    }

    /// A connection for this caller alone until ``release(_:)``.
    func acquire() async throws -> PostgresConnection {
        enum Next {
            case ready(PostgresConnection)
            case connect
            case wait
        }
        let next: Next = state.withLock { state in
            if let connection = state.idle.popLast() { return .ready(connection) }
            if state.open < size {
                state.open += 1
                return .connect
            }
            return .wait
        }
        switch next {
        case .ready(let connection): return connection
        case .connect:
            do {
                return try await connect()
            } catch {
                state.withLock { $0.open -= 1 }
                throw error
            }
        case .wait:
            // Handed a connection by release(_:), or nil: a broken one was dropped, open a new one.
            if let connection = await withCheckedContinuation({ continuation in state.withLock { $0.waiting.append(continuation) } }) {
                return connection
            }
            return try await acquire()
        }
    }

    /// Gives the connection back (or drops it when it broke).
    func release(_ connection: PostgresConnection) {
        let healthy = connection.isHealthy
        let waiter: CheckedContinuation<PostgresConnection?, Never>? = state.withLock { state in
            if !healthy { state.open -= 1 }
            if !state.waiting.isEmpty { return state.waiting.removeFirst() }
            if healthy { state.idle.append(connection) }
            return nil
        }
        waiter?.resume(returning: healthy ? connection : nil)
    }

    /// Opens a connection off the cooperative threads (connecting waits on the network).
    private func connect() async throws -> PostgresConnection {
        let url = self.url
        return try await OwnThread.run { try PostgresConnection(url: url) }
    }
}
