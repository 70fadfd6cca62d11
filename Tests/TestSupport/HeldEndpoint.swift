public import Cashier
public import CashierHTTP
import Foundation
import Synchronization

/// A webhook endpoint that holds every request until ``open()``, as a slow merchant would: as an
/// ``HTTPTransport`` for a dispatcher in the test process, or over loopback (``httpServer()``) for
/// a server in another. Like libcurl, it is not cut short when the sending task is cancelled.
public final class HeldEndpoint: HTTPTransport {
    private let arrivals = Atomic<Int>(0)
    private let isOpen = Atomic<Bool>(false)
    /// When the first request came, and when it was let through.
    private let first = Mutex<(arrival: ContinuousClock.Instant?, release: ContinuousClock.Instant?)>((nil, nil))

    public init() {}

    /// Requests received so far.
    public var arrived: Int { arrivals.load(ordering: .acquiring) }

    /// How long the first request was held: until it was let through, or until now while it is
    /// still held (zero before it came). A sender gives up after its request timeout — the
    /// webhook dispatcher's is 10 s — so a test that needs the request answered, or still in
    /// flight, checks this stayed well below that; on a machine too busy for that, the test has
    /// learnt nothing and runs again.
    public var firstHeldFor: Duration {
        first.withLock { first in first.arrival.map { (first.release ?? ContinuousClock.now) - $0 } ?? .zero }
    }
    /// Lets every held request, and every later one, through with 200.
    public func open() { isOpen.store(true, ordering: .releasing) }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        arrive()
        await hold()
        return HTTPResponse(status: 200)
    }

    /// A loopback server (not started) answering every request so.
    public func httpServer() -> HTTPServer {
        HTTPServer(configuration: .init(threads: 1)) { [self] _ in
            arrive()
            await hold()
            return .text("ok")
        }
    }

    private func arrive() {
        first.withLock { $0.arrival = $0.arrival ?? ContinuousClock.now }
        arrivals.add(1, ordering: .releasing)
    }

    /// Until opened (at most a minute, so a broken test fails rather than hangs), whether or not
    /// the caller's task is cancelled: the wait runs in a task of its own.
    private func hold() async {
        await Task {
            let clock = ContinuousClock()
            let start = clock.now
            while !isOpen.load(ordering: .acquiring) && clock.now - start < .seconds(60) {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }.value
        first.withLock { $0.release = $0.release ?? ContinuousClock.now }
    }
}
