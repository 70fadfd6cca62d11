import Foundation
import Synchronization

/// The whole-request deadline: when each connection's current request started to arrive (the
/// connection's start, or its previous answer), and a sweeper that shuts down the socket of any
/// connection still receiving past the deadline. libmicrohttpd's own timeout is an idle timeout,
/// which a client sending a byte every few seconds never reaches (a slow-loris).
///
/// Connections are known by their descriptor and the peer it was connected to: before a socket
/// is shut down, its peer is read again, so a descriptor that now belongs to another socket (the
/// process reuses numbers; several servers may run in one process) is never shut down.
final class RequestArrivals: Sendable {
    struct Entry: Sendable {
        /// When the current request started to arrive; `nil` while its handler runs or its answer is sent.
        var since: ContinuousClock.Instant?
        /// The peer's address and port when the connection started.
        let peer: [UInt8]
    }

    private let receiving = Mutex<[Int32: Entry]>([:])
    private let sweeping = Atomic<Bool>(false)
    /// Connections closed for taking too long, for tests and logs.
    let closedForDeadline = Atomic<Int>(0)

    func opened(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        let peer = Self.peer(descriptor)
        receiving.withLock { $0[descriptor] = Entry(since: .now, peer: peer) }
    }

    func closed(_ descriptor: Int32) {
        _ = receiving.withLock { $0.removeValue(forKey: descriptor) }
    }

    /// The request is in: its handler runs untimed.
    func arrived(_ descriptor: Int32) {
        receiving.withLock { $0[descriptor]?.since = nil }
    }

    /// Answered: the next request is timed from now.
    func waiting(_ descriptor: Int32) {
        receiving.withLock { $0[descriptor]?.since = .now }
    }

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
    func sweep(deadline: Duration) {
        let now = ContinuousClock.now
        receiving.withLock { receiving in
            for (descriptor, entry) in receiving {
                guard let since = entry.since, now - since > deadline else { continue }
                guard Self.peer(descriptor) == entry.peer else {
                    receiving[descriptor] = nil  // no longer this connection's socket
                    continue
                }
                // libmicrohttpd sees the connection end and closes it (and reports it closed).
                shutdown(descriptor, Int32(SHUT_RDWR))
                receiving[descriptor]?.since = nil
                closedForDeadline.add(1, ordering: .relaxed)
            }
        }
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
