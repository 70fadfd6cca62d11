import Foundation
import Synchronization

/// The whole-request deadline: when each connection's current request started to arrive (the
/// connection's start, or its previous answer), and a sweeper that shuts down the socket of any
/// connection still receiving past the deadline. libmicrohttpd's own timeout is an idle timeout,
/// which a client sending a byte every few seconds never reaches (a slow-loris).
///
/// Connections are known by their descriptor: libmicrohttpd reports a connection closed before
/// it closes the socket, and the sweeper shuts sockets down under the same lock, so a descriptor
/// reused by a new connection is never shut down for the old one.
final class RequestArrivals: Sendable {
    /// Descriptor → when its current request started to arrive; `nil` while its handler runs or
    /// its answer is being sent.
    private let receiving = Mutex<[Int32: ContinuousClock.Instant?]>([:])
    private let sweeping = Atomic<Bool>(false)
    /// Connections closed for taking too long, for tests and logs.
    let closedForDeadline = Atomic<Int>(0)

    func opened(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        receiving.withLock { $0[descriptor] = .some(.now) }
    }

    func closed(_ descriptor: Int32) {
        _ = receiving.withLock { $0.removeValue(forKey: descriptor) }
    }

    /// The request is in: its handler runs untimed.
    func arrived(_ descriptor: Int32) {
        receiving.withLock { receiving in
            if receiving[descriptor] != nil { receiving[descriptor] = .some(nil) }
        }
    }

    /// Answered: the next request is timed from now.
    func waiting(_ descriptor: Int32) {
        receiving.withLock { receiving in
            if receiving[descriptor] != nil { receiving[descriptor] = .some(.now) }
        }
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
            for case (let descriptor, let since?) in receiving where now - since > deadline {
                // libmicrohttpd sees the connection end and closes it (and reports it closed).
                shutdown(descriptor, Int32(SHUT_RDWR))
                receiving[descriptor] = .some(nil)
                closedForDeadline.add(1, ordering: .relaxed)
            }
        }
    }
}
