import Foundation
import Synchronization

/// The writing end of a streamed response body (``HTTPServerResponse/stream(status:headers:_:)``):
/// Server-Sent Events, say. What is written goes out as a chunk as soon as the connection can
/// take it; while nothing is waiting, the connection is suspended and costs no worker.
///
/// The producer stops when ``isOpen`` turns false (the client left, the server is stopping) or
/// when its task is cancelled — both happen together.
public final class HTTPStreamWriter: Sendable {
    struct State {
        var buffered: [UInt8] = []
        /// The producer is done: the body ends once the buffer is sent.
        var finished = false
        /// The connection is gone (or never came): writes are dropped.
        var closed = false
        /// libmicrohttpd's reader found nothing to send and suspended the connection.
        var suspended: SuspendedConnection?
        var producer: Task<Void, Never>?
    }
    let state = Mutex(State())
    /// Where the chunks go when no connection takes them (``init(deliver:)``).
    private let deliver: (@Sendable ([UInt8]?) -> Void)?

    init() { deliver = nil }

    /// A writer that hands each chunk to `deliver` as it is written, and `nil` once when the body
    /// ends, instead of sending it on a connection: how a streamed response is read in process,
    /// with no socket (a test's client reading an order's event stream). ``run(_:)`` starts the
    /// producer; ``hangUp()`` is the client leaving.
    ///
    /// ```swift
    /// let writer = HTTPStreamWriter { chunk in received.append(contentsOf: chunk ?? []) }
    /// if let produce = response.stream { writer.run(produce) }
    /// ```
    public init(deliver: @escaping @Sendable ([UInt8]?) -> Void) {
        self.deliver = deliver
    }

    /// Sends `bytes` as soon as the connection can take them. - Returns: false when the client
    /// is gone (nothing more will be sent).
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        guard !bytes.isEmpty else { return isOpen }
        let (open, wake) = state.withLock { state -> (Bool, SuspendedConnection?) in
            guard !state.closed, !state.finished else { return (false, nil) }
            if let deliver {
                deliver(bytes)  // under the lock: chunks arrive in the order written
                return (true, nil)
            }
            state.buffered += bytes
            defer { state.suspended = nil }
            return (true, state.suspended)
        }
        wake?.resume()
        return open
    }

    /// Sends UTF-8 text. - Returns: false when the client is gone.
    @discardableResult
    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Whether what is written still reaches the client.
    public var isOpen: Bool { state.withLock { !$0.closed && !$0.finished } }

    /// Ends the body once what was written has been sent. Called for you when the producer returns.
    public func finish() {
        let wake = state.withLock { state -> SuspendedConnection? in
            if let deliver, !state.finished, !state.closed { deliver(nil) }
            state.finished = true
            defer { state.suspended = nil }
            return state.suspended
        }
        wake?.resume()
    }

    /// The connection is gone: the producer is cancelled and later writes are dropped.
    func close() {
        let producer = state.withLock { state -> Task<Void, Never>? in
            state.closed = true
            state.buffered = []
            state.suspended = nil  // libmicrohttpd resumes nothing it is destroying
            return state.producer
        }
        producer?.cancel()
    }

    /// Starts `produce` in a task of its own, writing to this writer; the body ends when it
    /// returns. For a writer made with ``init(deliver:)``: the server starts its own.
    public func run(_ produce: @escaping @Sendable (HTTPStreamWriter) async -> Void) {
        start(produce)
    }

    /// The client has left: the producer is cancelled and later writes are dropped (for a
    /// writer made with ``init(deliver:)``, which no connection ends).
    public func hangUp() {
        close()
    }

    /// Starts the producer in a task of its own; the body ends when it returns.
    func start(_ produce: @escaping @Sendable (HTTPStreamWriter) async -> Void) {
        let task = Task {
            await produce(self)
            self.finish()
        }
        let closed = state.withLock { state -> Bool in
            state.producer = task
            return state.closed
        }
        if closed { task.cancel() }
    }

    /// What libmicrohttpd's content reader gets: bytes copied into `buffer`, or the end, or
    /// nothing yet — in which case `suspend` has been called under the lock, so a write that
    /// comes just after finds the connection suspended and resumes it.
    enum Read {
        case bytes(Int)
        case end
        case waiting
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, suspend: SuspendedConnection) -> Read {
        state.withLock { state in
            if !state.buffered.isEmpty {
                let count = min(buffer.count, state.buffered.count)
                state.buffered.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
                state.buffered.removeFirst(count)
                return .bytes(count)
            }
            if state.finished || state.closed { return .end }
            suspend.suspend()
            state.suspended = suspend
            return .waiting
        }
    }
}
