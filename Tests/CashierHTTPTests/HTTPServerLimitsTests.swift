import CashierHTTP
import Foundation
import Synchronization
import TestSupport
import Testing

/// What keeps a few clients from holding every connection: the whole-request deadline (a
/// slow-loris), the per-address limit, and a body over the limit answered at once and closed.
@Suite struct HTTPServerLimitsTests {
    @Test func aSlowLorisIsClosedAtTheDeadlineAndItsSlotsServeOthers() async throws {
        let server = HTTPServer(
            configuration: .init(connectionTimeoutSeconds: 30, connectionLimit: 6, perIPConnectionLimit: 0, requestDeadlineSeconds: 2)
        ) { request in
            if request.path == "/slow" { try? await Task.sleep(for: .seconds(3)) }  // a slow handler is not a slow client
            return .text("ok")
        }
        try server.start()
        let port = server.port
        let closedInTime = try await onOwnThread { () -> (Int, Bool, Bool, String) in
            // Every slot held by a client that sends a header line every half second: never idle.
            let loris = try (0..<6).map { _ in try RawHTTPConnection(port: port) }
            for connection in loris { connection.send("GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n") }
            let started = Date()
            var closed = Set<Int>()
            while Date().timeIntervalSince(started) < 15 && closed.count < loris.count {
                for (index, connection) in loris.enumerated() where !closed.contains(index) {
                    if !connection.send("X-Trickle: \(index)\r\n") || connection.closedByServer(within: 0.05) { closed.insert(index) }
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
            let elapsed = Date().timeIntervalSince(started)
            // The slots are free again: an ordinary request is answered.
            let next = try RawHTTPConnection(port: port)
            next.get("/x")
            let answered = next.read(until: "ok", timeout: 15)
            // A handler slower than the deadline is not cut short: only arrival is timed.
            let slow = try RawHTTPConnection(port: port)
            slow.get("/slow")
            let slowAnswered = slow.read(until: "ok", timeout: 20)
            // The deadline (2 s) and a sweep (0.5 s); a loaded machine (the whole suite at once) may add seconds.
            return (closed.count, answered && elapsed < 12, slowAnswered, "elapsed \(elapsed) s; slow got '\(slow.receivedText)'")
        }
        #expect(closedInTime.0 == 6, "every slow-loris connection is closed")
        #expect(closedInTime.1, "closed within the deadline and a sweep, and the server answers others: \(closedInTime.3)")
        #expect(closedInTime.2, "a slow handler still answers: \(closedInTime.3)")
        await server.stop()
    }

    @Test func oneAddressGetsAtMostItsShareOfConnections() async throws {
        let server = HTTPServer(configuration: .init(perIPConnectionLimit: 3)) { _ in .text("ok") }
        try server.start()
        let port = server.port
        let (fourthClosed, othersAnswer) = try await onOwnThread { () -> (Bool, Bool) in
            let held = try (0..<3).map { _ in try RawHTTPConnection(port: port) }
            Thread.sleep(forTimeInterval: 0.2)
            let fourth = try RawHTTPConnection(port: port)
            fourth.get("/x")
            let refused = fourth.closedByServer(within: 3) && !fourth.receivedText.contains("ok")
            held[0].get("/x")
            return (refused, held[0].read(until: "ok", timeout: 15))
        }
        #expect(fourthClosed, "a fourth connection from the same address is closed unanswered")
        #expect(othersAnswer)
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
}
