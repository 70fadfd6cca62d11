public import Cashier
public import CashierHTTP
import Foundation
import Synchronization

/// A webhook endpoint that holds every request until ``open()``, as a slow merchant would: as an
/// ``HTTPTransport`` for a dispatcher in the test process, or over loopback (``httpServer()``) for
/// a server in another. Like libcurl, it is not cut short when the sending task is cancelled.
public final class HeldEndpoint: HTTPTransport {
    private let arrivals = Tally()
    private let opened = Signal()

    public init() {}

    /// Requests received so far.
    public var arrived: Int { arrivals.value }
    /// Waits until `count` requests have arrived (at most `bound`). - Returns: whether they did.
    public func arrived(_ count: Int, within bound: Duration = .seconds(60)) async -> Bool {
        await arrivals.wait(atLeast: count, within: bound)
    }
    /// Lets every held request, and every later one, through with 200.
    public func open() { opened.fire() }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        arrivals.add()
        await hold()
        return HTTPResponse(status: 200)
    }

    /// Answers as a server would: held, then 200 (for an ``InProcessTransport``).
    public func handle(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        arrivals.add()
        await hold()
        return .text("ok")
    }

    /// A loopback server (not started) answering every request so.
    public func httpServer() -> HTTPServer {
        HTTPServer(configuration: .init(threads: 1)) { [self] in await handle($0) }
    }

    /// Runs `run` until a run is conclusive, at most `attempts` times. A sender gives up on a held
    /// request after its timeout (the webhook dispatcher's is 10 s), and on a machine busy enough —
    /// `make test`'s first minute, every suite at once on two cores — that can happen before the
    /// test has done with it: such a run proves nothing, says so by returning `false`, and is run
    /// again. - Returns: whether one was conclusive (a test expects it).
    public static func untilConclusive(attempts: Int = 4, _ run: () async throws -> Bool) async rethrows -> Bool {
        for _ in 0..<attempts where try await run() { return true }
        return false
    }

    /// Until opened (at most a minute, so a broken test fails rather than hangs), whether or not
    /// the caller's task is cancelled: the wait runs in a task of its own.
    private func hold() async {
        let opened = self.opened
        _ = await Task { await opened.wait(within: .seconds(60)) }.value
    }
}
