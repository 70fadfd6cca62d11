import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierHTTP

/// What keeps a few clients from holding every connection: the whole-request deadline (a
/// slow-loris), the per-address limit, and a body over the limit answered at once and closed.
@Suite struct HTTPServerLimitsTests {
    /// The deadline's bookkeeping: a request still arriving past the deadline has its socket shut
    /// down; one whose handler runs is untimed; a descriptor now holding another socket is left alone.
    @Test func arrivalsShutDownOnlyRequestsStillArrivingOnTheirOwnSocket() throws {
        func pair() -> (Int32, Int32) {
            var fds: [Int32] = [0, 0]
            _ = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
            return (fds[0], fds[1])
        }
        func closedAtOtherEnd(_ fd: Int32) -> Bool {
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 0
        }
        let arrivals = RequestArrivals()
        let (trickling, tricklingPeer) = pair()
        let (handled, handledPeer) = pair()
        _ = arrivals.opened(trickling)
        let handledConnection = arrivals.opened(handled)
        handledConnection.stopTiming()  // its handler is running
        arrivals.sweep(deadline: .milliseconds(10), now: RequestArrivals.now() + 50_000_000)  // 50 ms on
        #expect(closedAtOtherEnd(tricklingPeer), "a request still arriving past the deadline is shut down")
        #expect(!closedAtOtherEnd(handledPeer), "a request whose handler runs is not timed")
        #expect(arrivals.closedForDeadline.load(ordering: .relaxed) == 1)
        // Answered: the next request on the connection is timed again.
        handledConnection.waiting()
        arrivals.sweep(deadline: .milliseconds(10), now: RequestArrivals.now() + 50_000_000)  // 50 ms on
        #expect(closedAtOtherEnd(handledPeer))
        #expect(arrivals.closedForDeadline.load(ordering: .relaxed) == 2)
        // A connection that has ended is no longer swept.
        let (ended, endedPeer) = pair()
        arrivals.closed(arrivals.opened(ended))
        arrivals.sweep(deadline: .milliseconds(10), now: RequestArrivals.now() + 50_000_000)  // 50 ms on
        #expect(!closedAtOtherEnd(endedPeer))
        #expect(arrivals.closedForDeadline.load(ordering: .relaxed) == 2)
        for fd in [ended, endedPeer] { close(fd) }
        for fd in [trickling, tricklingPeer, handled, handledPeer] { close(fd) }
    }

    /// The same rules over a real socket: a client trickling its headers a byte at a time is cut
    /// off at the deadline; keep-alive requests on another connection are answered (the handler
    /// sees the client's address, read once when the connection starts), and when that
    /// connection then trickles a request of its own, it is timed from its last answer and cut off too.
    @Test func aTricklingRequestIsCutOffAtTheDeadlineWhileOthersAreAnswered() async throws {
        // Answered on the worker thread: the test times the server's clock, not a busy task pool.
        let server = HTTPServer(configuration: .init(requestDeadlineSeconds: 3)) { request in
            .now(.text("from \(request.remoteAddress ?? "nowhere") for \(request.path)"))
        }
        try server.start()
        let port = server.port
        let (cut, answers, keptCut) = try await onOwnThread { () -> (TimeInterval?, [Bool], TimeInterval?) in
            /// Sends a byte every 0.3 s until the server closes the connection (or 30 s pass):
            /// how long after `started` it was closed.
            func trickle(_ connection: RawHTTPConnection, from started: Date) -> TimeInterval? {
                let giveUp = Date().addingTimeInterval(30)
                while Date() < giveUp {
                    if !connection.send("a") || connection.closedByServer(within: 0.3) { return Date().timeIntervalSince(started) }
                }
                return nil
            }
            let trickling = try RawHTTPConnection(port: port)
            let started = Date()
            trickling.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: ")
            let kept = try RawHTTPConnection(port: port)
            var answers: [Bool] = []
            for index in 0..<3 {
                kept.get("/kept-\(index)")
                answers.append(kept.read(until: "from 127.0.0.1 for /kept-\(index)", timeout: 10))
            }
            let answered = Date()
            kept.send("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: ")
            let cut = trickle(trickling, from: started)
            return (cut, answers, trickle(kept, from: answered))
        }
        let trickled = try #require(cut, "the trickling request was never cut off")
        #expect(trickled >= 2.5, "not before the deadline (cut after \(trickled) s)")
        #expect(answers == [true, true, true], "keep-alive requests are answered, with the client's address")
        let keptTrickled = try #require(keptCut, "a request trickled after an answer was never cut off")
        #expect(keptTrickled >= 2.5, "timed from the last answer (cut after \(keptTrickled) s)")
        await server.stop()
    }

    /// Each connection's bookkeeping lives from its start to its end: a connection the client
    /// closes leaves the table, and stopping the server ends the rest.
    @Test func connectionsLeaveTheTableWhenTheyEndAndWhenTheServerStops() async throws {
        let server = HTTPServer(configuration: .init()) { _ in .text("ok") }
        try server.start()
        let port = server.port
        let (first, second) = try await onOwnThread { () -> (RawHTTPConnection, RawHTTPConnection) in
            let first = try RawHTTPConnection(port: port)
            let second = try RawHTTPConnection(port: port)
            for connection in [first, second] {
                connection.get("/")
                _ = connection.read(until: "ok", timeout: 10)
            }
            return (first, second)
        }
        #expect(server.openConnections == 2)
        first.hangUp()
        await eventually(timeout: .seconds(60), interval: .milliseconds(10)) { server.openConnections == 1 }
        #expect(server.openConnections == 1, "a connection the client closed leaves the table")
        await server.stop()
        #expect(server.openConnections == 0, "stopping ends every connection's bookkeeping")
        withExtendedLifetime(second) {}
    }

    /// Many connections starting, answering and ending at once: every request sees its own
    /// client's address, and every connection's bookkeeping ends with it.
    @Test func connectionsOpenedAndClosedAtOnceEachKeepTheirOwnBookkeeping() async throws {
        let server = HTTPServer(configuration: .init(requestDeadlineSeconds: 30)) { request in
            .now(.text("from \(request.remoteAddress ?? "nowhere") for \(request.path)"))
        }
        try server.start()
        let port = server.port
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for client in 0..<32 {
                group.addTask {
                    try await onOwnThread { () -> Int in
                        let connection = try RawHTTPConnection(port: port)
                        var answered = 0
                        for request in 0..<3 {
                            connection.get("/c\(client)-\(request)")
                            if connection.read(until: "from 127.0.0.1 for /c\(client)-\(request)", timeout: 30) { answered += 1 }
                        }
                        connection.hangUp()
                        return answered
                    }
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(answered == 32 * 3)
        await eventually(timeout: .seconds(60), interval: .milliseconds(10)) { server.openConnections == 0 }
        #expect(server.openConnections == 0, "every ended connection left the table")
        await server.stop()
    }

    @Test func aBodyOverTheLimitClosesTheConnectionWithoutReadingTheRest() async throws {
        let server = HTTPServer(configuration: .init(maxBodyBytes: 1024)) { request in .text("got \(request.body.count)") }
        try server.start()
        let port = server.port
        let (answered, closed, declaredAnswered) = try await onOwnThread { () -> (Bool, Bool, Bool) in
            let connection = try RawHTTPConnection(port: port)
            connection.send("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
            // 4 KiB sent in chunks, and the body never ends: the server must not wait for the rest.
            for _ in 0..<4 { connection.send("400\r\n" + String(repeating: "a", count: 1024) + "\r\n") }
            // libmicrohttpd takes no answer in the middle of a chunked body: closed, unanswered.
            let closed = connection.closedByServer(within: 5)
            let answered = !connection.receivedText.contains("got ")
            // A declared Content-Length over the limit: refused before a byte of the body.
            let declared = try RawHTTPConnection(port: port)
            declared.send("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n")
            let declaredAnswered = declared.read(until: "413", timeout: 5) && declared.closedByServer(within: 5)
            return (answered, closed, declaredAnswered)
        }
        #expect(answered, "the handler never saw it")
        #expect(closed, "the connection closed, the rest of the body unread")
        #expect(declaredAnswered)
        await server.stop()
    }

    /// libmicrohttpd keeps a record of every query parameter in the connection's header memory,
    /// parsed before any handler runs: a few hundred parameters (a 1 KB query) used to exhaust
    /// it, and the connection was dropped without an answer (Schemathesis saw "connection reset
    /// by peer"). Every such request is now answered, the query unread — 400 for too many
    /// parameters, 414 for a query too long to keep — and the server goes on; a query within the
    /// limits reaches the handler whole.
    @Test func aQueryWithTooManyParametersIsAnsweredNotDropped() async throws {
        let server = HTTPServer(configuration: .init()) { request in
            .now(.text("\(request.query.count) parameters, last \(request.query.last?.value ?? "none")"))
        }
        try server.start()
        let port = server.port
        /// The answer's status line, or with `whole` all that comes within a moment of it.
        @Sendable func ask(_ target: String, whole: Bool = true) throws -> String {
            let connection = try RawHTTPConnection(port: port)
            connection.get(target)
            _ = connection.read(until: "\r\n", timeout: 10)
            if whole { _ = connection.closedByServer(within: 0.3) }
            return connection.receivedText
        }
        let answers = try await onOwnThread { () -> [String: String] in
            var answers: [String: String] = [:]
            answers["64"] = try ask("/q?" + (1...64).map { "p\($0)=\($0)" }.joined(separator: "&"))
            answers["65"] = try ask("/q?" + (1...65).map { "p\($0)=\($0)" }.joined(separator: "&"))
            answers["300"] = try ask("/q?" + Array(repeating: "a=1", count: 300).joined(separator: "&"))
            // Few parameters, but with the target too long to keep a record for each beside it
            // (40 × 64 bytes of records and a 8.2 KB target, in 16 KiB of header memory).
            answers["long"] = try ask("/q?" + (1...40).map { "p\($0)=" + String(repeating: "v", count: 200) }.joined(separator: "&"))
            answers["after"] = try ask("/q?one=1")
            return answers
        }
        #expect(answers["64"]?.hasPrefix("HTTP/1.1 200") == true)
        #expect(answers["64"]?.contains("64 parameters, last 64") == true, "a query within the limit reaches the handler whole")
        for name in ["65", "300"] {
            let answer = answers[name] ?? ""
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(name): \(answer.prefix(200))")
            #expect(answer.contains(#""code":"too_many_query_parameters""#) && answer.contains("more than 64 parameters"), "\(name)")
        }
        let long = answers["long"] ?? ""
        #expect(long.hasPrefix("HTTP/1.1 414"), "\(long.prefix(200))")
        #expect(long.contains(#""code":"query_too_long""#) && long.contains("8192 bytes"))
        #expect(answers["after"]?.contains("1 parameters, last 1") == true)

        // Every shape of query is answered — never a dropped connection — while the request stays
        // clear of libmicrohttpd's own limit on the request line (a 414 of its own, also answered).
        let dropped = try await onOwnThread { () -> [String] in
            var dropped: [String] = []
            for count in [1, 16, 63, 64, 65, 100, 250, 1000] {
                for length in [0, 1, 16, 64, 128] where count * (length + 6) < 14 * 1024 {
                    let target = "/q?" + (0..<count).map { "k\($0)=" + String(repeating: "v", count: length) }.joined(separator: "&")
                    let answer = try ask(target, whole: false)
                    if !answer.hasPrefix("HTTP/1.1 ") { dropped.append("\(count)×\(length)") }
                }
            }
            return dropped
        }
        #expect(dropped.isEmpty, "no answer for \(dropped)")
        await server.stop()
    }
}
