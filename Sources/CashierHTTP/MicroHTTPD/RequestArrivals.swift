import Foundation
import Synchronization

/// The whole-request deadline: when each connection's current request started to arrive (the
/// connection's start, or its previous answer), and a sweeper that shuts down the socket of any
/// connection still receiving past the deadline. libmicrohttpd's own timeout is an idle timeout,
/// which a client sending a byte every few seconds never reaches (a slow-loris).
///
/// Each connection gets a ``Connection`` when it starts (kept in libmicrohttpd's socket context):
/// a request's arrival and answer are two atomic stores on it, with no lock and no lookup; the
/// table of connections, which the sweeper walks, changes only when a connection starts or ends.
/// Before a socket is shut down its peer is read again, so a descriptor that now belongs to
/// another socket (the process reuses numbers; several servers may run in one process) is never
/// shut down.
final class RequestArrivals: Sendable {
    /// One connection: its socket, its peer, and when its current request started to arrive.
    final class Connection: Sendable {
        let descriptor: Int32
        /// The peer's address and port when the connection started.
        let peer: [UInt8]
        /// The peer's address as text (`HTTPServerRequest.remoteAddress`), read once per connection.
        let address: String?
        /// Monotonic nanoseconds when the current request started to arrive, or ``untimed``
        /// while its handler runs or its answer is sent.
        private let since: Atomic<Int64>
        static let untimed = Int64.min

        init(descriptor: Int32, address: String?) {
            self.descriptor = descriptor
            self.address = address
            peer = RequestArrivals.peer(descriptor)
            since = Atomic(RequestArrivals.now())
        }

        /// Stops the clock: the request is in (its handler runs untimed), or the sweeper is done
        /// with this connection.
        func stopTiming() { since.store(Self.untimed, ordering: .relaxed) }

        /// Answered: the next request is timed from now.
        func waiting() { since.store(RequestArrivals.now(), ordering: .relaxed) }

        /// How long the current request has been arriving, in nanoseconds (nil when untimed).
        func arriving(at now: Int64) -> Int64? {
            let started = since.load(ordering: .relaxed)
            return started == Self.untimed ? nil : now - started
        }
    }

    private let open = Mutex<[ObjectIdentifier: Connection]>([:])
    private let sweeping = Atomic<Bool>(false)
    /// Connections closed for taking too long, for tests and logs.
    let closedForDeadline = Atomic<Int>(0)

    /// Connections started since the server did (for tests: how often clients reconnected).
    let accepted = Atomic<Int>(0)

    /// A connection has started: it is timed from now.
    func opened(_ descriptor: Int32, address: String? = nil) -> Connection {
        let connection = Connection(descriptor: descriptor, address: address)
        if descriptor >= 0 {
            open.withLock { $0[ObjectIdentifier(connection)] = connection }
            accepted.add(1, ordering: .relaxed)
        }
        return connection
    }

    func closed(_ connection: Connection) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Connections started and not yet ended (for tests: none once the server has stopped).
    var openConnections: Int { open.withLock { $0.count } }

    /// Sweeps twice a second on a thread of its own until ``stopSweeping()``.
    func startSweeping(deadline: Duration) {
        guard !sweeping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            while sweeping.load(ordering: .acquiring) {
                sweep(deadline: deadline)
                Thread.sleep(forTimeInterval: 0.5)
            }
        }
        thread.name = "cashier-http-deadline"
        thread.start()
    }

    func stopSweeping() { sweeping.store(false, ordering: .releasing) }

    /// Shuts down every connection whose request has been arriving for longer than `deadline`.
    /// - Parameter now: monotonic nanoseconds (``now()``; a test passes a later time instead of waiting).
    func sweep(deadline: Duration, now: Int64 = RequestArrivals.now()) {
        let limit = deadline.components.seconds * 1_000_000_000 + deadline.components.attoseconds / 1_000_000_000
        // Under the lock, so a connection that ends meanwhile still owns its descriptor here.
        open.withLock { open in
            for connection in open.values {
                guard let arriving = connection.arriving(at: now), arriving > limit else { continue }
                connection.stopTiming()
                guard Self.peer(connection.descriptor) == connection.peer else { continue }  // no longer its socket
                // libmicrohttpd sees the connection end and closes it (and reports it closed).
                shutdown(connection.descriptor, Int32(SHUT_RDWR))
                closedForDeadline.add(1, ordering: .relaxed)
            }
        }
    }

    /// Monotonic nanoseconds.
    static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    /// The socket's peer address (family, port and address bytes), empty when it has none.
    static func peer(_ descriptor: Int32) -> [UInt8] {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let found = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
        }
        guard found == 0 else { return [] }
        return withUnsafeBytes(of: &storage) { Array($0.prefix(Int(length))) }
    }
}
