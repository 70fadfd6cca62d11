import CMicroHTTPDShims
import Cashier
import CashierCurl
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierHTTP

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct HTTPServerTests {
    /// A server with a few routes on 127.0.0.1 and a free port, and its access log.
    final class LogSink: Sendable {
        let lines = Mutex<[String]>([])
        let slowStarted = Signal()
        /// `/slow` answers once this fires (or after a minute).
        let slowReleased = Signal()
        /// `/held` and `/handed-held` answer only once this fires (or after 30 s).
        let released = Signal()
        let heldStarted = Signal()
        /// Fired once `/held` or `/handed-held` has given its late answer.
        let heldFinished = Signal()
        let streamsStarted = Atomic<Int>(0)
        let gate = Signal()
        let streamsEnded = Tally()
    }

    final class Fixture: Sendable {
        let server: HTTPServer
        let log = LogSink()

        init(configuration: HTTPServer.Configuration = .init(maxBodyBytes: 1024, maxHeaderBytes: 8 * 1024)) throws {
            var router = Router()
            router.add("GET", "/hello") { _, _ in .text("hello") }
            router.addImmediate("GET", "/now") { _, _ in .text("at once from \(Thread.current.name ?? "")") }
            let ready = HTTPServerResponse(
                status: 202, headers: ["Content-Type": "text/plain", "X-Kind": "prepared"], body: Array("ready".utf8)
            )
            .prepared()
            router.addImmediate("GET", "/prepared") { _, _ in ready }
            router.add("GET", "/prepared-async") { _, _ in ready }
            router.add("GET", "/prepared-changed") { _, _ in
                var changed = ready
                changed.headers.set("X-Kind", "changed")
                changed.body = Array("changed".utf8)
                return changed
            }
            router.add("POST", "/echo") { request, _ in
                HTTPServerResponse(status: 201, headers: ["Content-Type": "application/octet-stream"], body: request.body)
            }
            router.add("GET", "/orders/{id}/events") { request, parameters in
                .json(["id": parameters["id"] ?? "", "limit": request.queryValue("limit") ?? "", "agent": request.headers["x-agent"] ?? ""])
            }
            router.add("GET", "/wide") { _, _ in
                // An answer with 3 KiB of headers, as a page with a long policy or a redirect might have.
                HTTPServerResponse(status: 200, headers: ["X-Wide": String(repeating: "w", count: 3 * 1024)], body: Array("wide".utf8))
            }
            router.add("GET", "/inject") { _, _ in
                HTTPServerResponse(status: 200, headers: ["X-Safe": "yes", "X-Evil": "a\r\nSet-Cookie: stolen=1"], body: [])
            }
            router.add("GET", "/file/{size}") { _, parameters in
                let size = Int(parameters["size"] ?? "") ?? 0
                let path = Scratch.url("http-file-\(UUID().uuidString)").path
                guard FileManager.default.createFile(atPath: path, contents: Fixture.content(size)) else {
                    return .text("could not write \(path)", status: 500)
                }
                return .file(path, headers: ["Content-Type": "text/csv; charset=utf-8", "X-Path": path])
            }
            router.add("GET", "/missing-file") { _, _ in .file("/nonexistent/cashier-\(UUID().uuidString)", headers: [:]) }
            let sink = log
            router.add("GET", "/slow") { _, _ in
                sink.slowStarted.fire()
                await sink.slowReleased.wait()
                return .text("done")
            }
            router.add("GET", "/held") { _, _ in
                sink.heldStarted.fire()
                await sink.released.wait(within: .seconds(30))
                defer { sink.heldFinished.fire() }
                return .text("done")
            }
            router.add("GET", "/ticks") { request, _ in
                let count = Int(request.queryValue("count") ?? "") ?? 3
                return .stream(headers: ["Content-Type": "text/event-stream"]) { writer in
                    for tick in 0..<count {
                        // Nothing to send between ticks: the connection waits suspended.
                        if tick > 0 { try? await Task.sleep(for: .milliseconds(150)) }
                        guard !Task.isCancelled, writer.write("data: tick \(tick)\n\n") else { return }
                    }
                }
            }
            router.add("GET", "/gated") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream"]) { writer in
                    writer.write("data: first\n\n")
                    // Nothing more until the test opens the gate: the connection waits, suspended.
                    await sink.gate.wait()  // (at once when the producer is cancelled)
                    writer.write("data: second\n\n")
                }
            }
            router.add("GET", "/forever") { _, _ in
                .stream(headers: ["Content-Type": "text/event-stream"]) { writer in
                    sink.streamsStarted.add(1, ordering: .relaxed)
                    writer.write(": open\n\n")
                    // A heartbeat, as an event stream sends: how a client that left is noticed.
                    while !Task.isCancelled && writer.write(": beat\n\n") { try? await Task.sleep(for: .milliseconds(50)) }
                    sink.streamsEnded.add()
                }
            }
            // Handed to a thread of its own, which answers when done: later (the usual case), at
            // once from inside the hand-off, or after the server has stopped.
            let handOff = DispatchQueue(label: "hand-off", attributes: .concurrent)
            router.addDeciding("POST", "/handed-off") { request, _ in
                .handedOff { answer in
                    handOff.asyncAfter(deadline: .now() + .milliseconds(Int.random(in: 0...20))) {
                        answer(.text("from \(Thread.current.name ?? "?"): " + String(decoding: request.body, as: UTF8.self)))
                    }
                }
            }
            router.addDeciding("GET", "/handed-back") { _, _ in .handedOff { answer in answer(.text("answered inside the hand-off")) } }
            router.addDeciding("GET", "/handed-held") { _, _ in
                .handedOff { answer in
                    handOff.async {
                        sink.heldStarted.fire()
                        sink.released.waitBlocking(within: .seconds(30))
                        answer(.text("done"))
                        sink.heldFinished.fire()
                    }
                }
            }
            router.addDeciding("GET", "/decides/{how}") { _, parameters in
                parameters["how"] == "now" ? .now(.text("now")) : .later { .text("later") }
            }
            let handler = router
            let log = self.log
            server = HTTPServer(
                configuration: configuration,
                accessLog: { entry in log.lines.withLock { $0.append(entry.jsonLine) } },
                responder: { request in handler.answer(request) })
            try server.start()
        }

        /// `size` bytes that differ from one position to the next (a file sent out of order would show).
        static func content(_ size: Int) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) }) }

        func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(server.port)\(path)")! }

        func send(
            _ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:], timeout: TimeInterval = 10
        ) async throws -> (Int, Data, HTTPURLResponse) {
            var request = URLRequest(url: url(path), timeoutInterval: timeout)
            request.httpMethod = method
            request.httpBody = body
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = try #require(response as? HTTPURLResponse)
            return (http.statusCode, data, http)
        }

    }

    @Test func routesAnswerOverARealSocket() async throws {
        let fixture = try Fixture()
        #expect(fixture.server.port > 0)
        let hello = try await fixture.send("GET", "/hello")
        #expect(hello.0 == 200)
        #expect(String(decoding: hello.1, as: UTF8.self) == "hello")
        #expect(hello.2.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        let echo = try await fixture.send("POST", "/echo", body: Data("支付".utf8))
        #expect(echo.0 == 201)
        #expect(echo.1 == Data("支付".utf8))
        let events = try await fixture.send("GET", "/orders/ord_123/events?limit=5&x=y", headers: ["X-Agent": "tests"])
        let object = try JSONSerialization.jsonObject(with: events.1) as? [String: String]
        #expect(object == ["id": "ord_123", "limit": "5", "agent": "tests"])
    }

    @Test func immediateRoutesAnswerOnTheWorkerThreadAndLogLikeTheRest() async throws {
        let fixture = try Fixture()
        let now = try await fixture.send("GET", "/now")
        // libmicrohttpd's worker answered it: no task, no suspend and resume.
        #expect(now.0 == 200 && String(decoding: now.1, as: UTF8.self) == "at once from MHD-worker")
        #expect(try await fixture.send("HEAD", "/now").0 == 200)
        #expect(try await fixture.send("POST", "/now").0 == 405)
        #expect(fixture.log.lines.withLock { $0 }.contains { $0.contains(#""path":"/now""#) && $0.contains(#""status":200"#) })
        // A route that is not immediate goes to the handler.
        #expect(Router().immediateResponse(HTTPServerRequest(method: "GET", path: "/now")) == nil)
        var router = Router()
        router.add("GET", "/a") { _, _ in .text("async") }
        #expect(router.immediateResponse(HTTPServerRequest(method: "GET", path: "/a")) == nil)
    }

    /// A route whose handler decides on the worker thread: at once, in a task, or handed to a
    /// thread of its own that answers when done — two hundred at once, each with its own answer,
    /// none through Swift's tasks; an answer given inside the hand-off itself is sent too.
    @Test func handedOffAnswersComeFromTheThreadTheWorkWasHandedTo() async throws {
        let fixture = try Fixture()
        let answers = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let (status, body, _) = try await fixture.send("POST", "/handed-off", body: Data("request \(index)".utf8))
                    let text = String(decoding: body, as: UTF8.self)
                    return status == 200 && text.hasSuffix(": request \(index)") && !text.hasPrefix("from MHD-worker")
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(answers.count == 200 && answers.allSatisfy { $0 })
        let (status, body, _) = try await fixture.send("GET", "/handed-back")
        #expect(status == 200 && String(decoding: body, as: UTF8.self) == "answered inside the hand-off")
        #expect(try await fixture.send("GET", "/decides/now").1 == Data("now".utf8))
        #expect(try await fixture.send("GET", "/decides/later").1 == Data("later".utf8))
        #expect(
            fixture.log.lines.withLock { $0 }.filter { $0.contains(#""path":"/handed-off""#) && $0.contains(#""status":200"#) }.count == 200
        )
        // Awaited through the router (as a test or another server would), the same answers.
        var router = Router()
        router.addDeciding("GET", "/h") { _, _ in .handedOff { answer in DispatchQueue.global().async { answer(.text("waited")) } } }
        #expect(await router.handle(HTTPServerRequest(method: "GET", path: "/h")).body == Array("waited".utf8))
        #expect(router.immediateResponse(HTTPServerRequest(method: "GET", path: "/h")) == nil)
        await fixture.server.stop()
    }

    /// A prepared response is built once and sent to many connections at once, from both
    /// workers and from handlers' tasks; a changed copy is sent as changed.
    @Test func aPreparedResponseIsSentIntactToManyRequestsAtOnce() async throws {
        let fixture = try Fixture()
        let answers = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<200 {
                let path = index.isMultiple(of: 2) ? "/prepared" : "/prepared-async"
                group.addTask {
                    let (status, body, response) = try await fixture.send("GET", path)
                    return "\(status) \(response.value(forHTTPHeaderField: "X-Kind") ?? "") "
                        + String(decoding: body, as: UTF8.self)
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(answers.count == 200 && answers.allSatisfy { $0 == "202 prepared ready" })
        let changed = try await fixture.send("GET", "/prepared-changed")
        #expect(changed.0 == 202 && String(decoding: changed.1, as: UTF8.self) == "changed")
        #expect(changed.2.value(forHTTPHeaderField: "X-Kind") == "changed")
        #expect(try await fixture.send("HEAD", "/prepared").0 == 202)
        var copy = HTTPServerResponse.text("x").prepared()
        #expect(copy.preparedCopy != nil)
        copy.status = 201
        #expect(copy.preparedCopy == nil)
        #expect(HTTPServerResponse.file("/nonexistent", headers: [:]).prepared().preparedCopy == nil)
    }

    @Test func literalRoutesAreFoundDirectlyWithoutChangingWhichRouteWins() async throws {
        var router = Router()
        router.add("GET", "/v1/{kind}") { _, parameters in .text("parameter \(parameters["kind"] ?? "")") }
        router.add("GET", "/v1/exports") { _, _ in .text("literal, shadowed") }
        router.add("GET", "/v1/exports/today") { _, _ in .text("literal") }
        router.add("POST", "/v1/exports/today") { _, _ in .text("post") }
        func answer(_ method: String, _ path: String) async -> String {
            let response = await router.handle(HTTPServerRequest(method: method, path: path))
            return "\(response.status) " + String(decoding: response.body, as: UTF8.self)
        }
        #expect(await answer("GET", "/v1/exports") == "200 parameter exports")  // the first route added wins, as in a scan
        #expect(await answer("GET", "/v1/exports/today") == "200 literal")
        #expect(await answer("GET", "//v1/exports//today/") == "200 literal")  // empty segments ignored, as before
        #expect(await answer("POST", "/v1/exports/today") == "200 post")
        #expect(await answer("HEAD", "/v1/exports/today") == "200 literal")
        #expect(await answer("DELETE", "/v1/exports/today").hasPrefix("405 "))
    }

    /// A route limited to its query parameters refuses another before its handler runs, naming
    /// it and the one probably meant; literal and parameter routes alike; routes not limited take any.
    @Test func aRouteLimitedToItsQueryRefusesAnyOther() async throws {
        var router = Router()
        let handled = Atomic<Int>(0)
        router.add("GET", "/v1/orders") { _, _ in
            handled.add(1, ordering: .relaxed)
            return .text("list")
        }
        router.add("GET", "/v1/orders/{id}") { _, _ in .text("one") }
        router.add("POST", "/notify") { _, _ in .text("free") }
        router.limitQuery("GET", "/v1/orders", to: ["status", "limit", "starting_after"])
        router.limitQuery("GET", "/v1/orders/{id}", to: [])
        func answer(_ method: String, _ path: String, _ query: [(name: String, value: String)] = []) async -> String {
            let response = await router.handle(HTTPServerRequest(method: method, path: path, query: query))
            return "\(response.status) " + String(decoding: response.body, as: UTF8.self)
        }
        #expect(await answer("GET", "/v1/orders", [("status", "paid"), ("limit", "2")]) == "200 list")
        let misspelt = await answer("GET", "/v1/orders", [("limit", "2"), ("statuss", "paid")])
        #expect(
            misspelt.hasPrefix("400 ") && misspelt.contains("statuss is not a parameter of GET /v1/orders: did you mean status?"),
            "\(misspelt)")
        #expect(await answer("HEAD", "/v1/orders", [("x", "1")]).hasPrefix("400 "))
        let twice = await answer("GET", "/v1/orders", [("status", "paid"), ("limit", "2"), ("status", "closed")])
        #expect(twice.hasPrefix("400 ") && twice.contains("status is given more than once"), "\(twice)")
        #expect(handled.load(ordering: .relaxed) == 1)
        let none = await answer("GET", "/v1/orders/ord_1", [("expand", "payments")])
        #expect(none.hasPrefix("400 ") && none.contains("expand is not a parameter of GET /v1/orders/{id}: it takes none"), "\(none)")
        #expect(await answer("POST", "/notify", [("anything", "1")]) == "200 free")
    }

    @Test func absoluteFormTargetsRouteByTheirPath() async throws {
        #expect(HTTPServerRequest.path(ofTarget: "/a/b") == "/a/b")
        #expect(HTTPServerRequest.path(ofTarget: "http://127.0.0.1:8080/alipay/gateway.do") == "/alipay/gateway.do")
        #expect(HTTPServerRequest.path(ofTarget: "https://shop.example") == "/")
        #expect(HTTPServerRequest.path(ofTarget: "*") == "*")
        // Over the socket, as the official Alipay SDK sends it (curl writes the target verbatim).
        let fixture = try Fixture()
        let target = "http://127.0.0.1:\(fixture.server.port)/orders/ord_9/events?limit=2"
        let result = try await runSubprocess(
            "/usr/bin/curl", ["-s", "--request-target", target, "http://127.0.0.1:\(fixture.server.port)/"])
        #expect(result.stdout == #"{"agent":"","id":"ord_9","limit":"2"}"#, "\(result.stderr)")
    }

    @Test func fileBodiesAreSentFromDiskAndRemoved() async throws {
        let fixture = try Fixture()
        for size in [0, 17, 3 * 1024 * 1024 + 5] {
            let (status, body, response) = try await fixture.send("GET", "/file/\(size)")
            #expect(status == 200 && body == Fixture.content(size), "\(size) bytes")
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "text/csv; charset=utf-8")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "\(size)")
            let path = try #require(response.value(forHTTPHeaderField: "X-Path"))
            #expect(!FileManager.default.fileExists(atPath: path))
        }
        // A file that is not there is the server's fault, said as JSON.
        let missing = try await fixture.send("GET", "/missing-file")
        #expect(missing.0 == 500 && String(decoding: missing.1, as: UTF8.self).contains("internal_error"))
    }

    @Test func unknownPathsAndMethods() async throws {
        let fixture = try Fixture()
        let missing = try await fixture.send("GET", "/nope")
        #expect(missing.0 == 404)
        #expect(String(decoding: missing.1, as: UTF8.self) == #"{"error":{"code":"not_found","message":"no such endpoint"}}"#)
        let wrongMethod = try await fixture.send("DELETE", "/hello")
        #expect(wrongMethod.0 == 405)
        #expect(wrongMethod.2.value(forHTTPHeaderField: "Allow") == "GET")
    }

    @Test func oversizeBodiesAndHeadersAreRefused() async throws {
        let fixture = try Fixture()
        let big = try await fixture.send("POST", "/echo", body: Data(repeating: 0x41, count: 4096))
        #expect(big.0 == 413)
        let justRight = try await fixture.send("POST", "/echo", body: Data(repeating: 0x41, count: 1024))
        #expect(justRight.0 == 201)
        let hugeHeader = try await fixture.send("GET", "/hello", headers: ["X-Big": String(repeating: "h", count: 16 * 1024)])
        #expect(hugeHeader.0 == 431)
        // The server still works afterwards.
        #expect(try await fixture.send("GET", "/hello").0 == 200)
    }

    /// libmicrohttpd 0.9.75 writes an answer's headers into the memory the request's headers
    /// still take, and closed the connection without an answer when they did not fit: requests
    /// whose headers came within a few hundred bytes of the limit were handled and never answered.
    @Test func everyRequestNearTheHeaderLimitIsAnswered() async throws {
        let fixture = try Fixture()  // maxHeaderBytes 8 KiB
        let limit = 8 * 1024
        // What the request below takes: "GET … HTTP/1.1\r\n", "Host: 127.0.0.1\r\n", "X-Big: …\r\n",
        // the blank line, and a record for each of the two headers.
        func taken(_ target: String, _ size: Int) -> Int {
            "GET \(target) HTTP/1.1\r\n".utf8.count + 17 + 7 + size + 2 + 2 + 2 * Int(CASHIER_MHD_RECORD_BYTES)
        }
        let port = fixture.server.port
        for target in ["/hello", "/wide"] {
            var seen: [Int: Int] = [:]
            // From well under the limit to well past it, but short of the memory's last few hundred bytes.
            for size in stride(from: limit - 700, through: limit + Int(CASHIER_MHD_ANSWER_RESERVE) - 600, by: 9) {
                let status = try await onOwnThread { () -> Int in
                    let connection = try RawHTTPConnection(port: port)
                    connection.get(target, headers: ["X-Big": String(repeating: "h", count: size)])
                    guard connection.read(until: "\r\n\r\n", timeout: 10) else { return 0 }
                    return Int(connection.receivedText.split(separator: " ").dropFirst().first ?? "") ?? -1
                }
                seen[status, default: 0] += 1
                let expected = taken(target, size) <= limit ? 200 : 431
                #expect(status == expected, "\(target) with a \(size)-byte header (\(taken(target, size)) bytes taken)")
            }
            #expect(seen[200, default: 0] > 50 && seen[431, default: 0] > 50, "\(target): \(seen)")
        }
        // The refusal says what to fix.
        let refused = try await fixture.send("GET", "/hello", headers: ["X-Big": String(repeating: "h", count: limit)])
        #expect(refused.0 == 431)
        #expect(String(decoding: refused.1, as: UTF8.self).contains(#""code":"headers_too_large""#))
        #expect(String(decoding: refused.1, as: UTF8.self).contains("over the \(limit)-byte limit"))
    }

    @Test func manyConcurrentRequests() async throws {
        let fixture = try Fixture()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<50 {
                group.addTask { try await fixture.send("POST", "/echo", body: Data("\(index)".utf8)).0 }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 50)
        #expect(statuses.allSatisfy { $0 == 201 })
    }

    @Test func accessLogHoldsNoQueryBodyOrHeaderValues() async throws {
        let fixture = try Fixture()
        _ = try await fixture.send("POST", "/echo", body: Data("card=4111111111111111".utf8))
        _ = try await fixture.send(
            "GET", "/orders/ord_1/events?client_secret=cs_secret_value", headers: ["Authorization": "Bearer sk_secret"])
        let lines = fixture.log.lines.withLock { $0 }
        #expect(lines.count == 2)
        #expect(lines.contains { $0.contains(#""path":"/echo""#) && $0.contains(#""status":201"#) && $0.contains(#""bytes_in":21"#) })
        for line in lines {
            #expect(!line.contains("4111111111111111"))
            #expect(!line.contains("cs_secret_value"))
            #expect(!line.contains("sk_secret"))
        }
    }

    @Test func headerValuesWithNewlinesAreNeverSent() async throws {
        let fixture = try Fixture()
        let response = try await fixture.send("GET", "/inject")
        #expect(response.0 == 200)
        #expect(response.2.value(forHTTPHeaderField: "X-Safe") == "yes")
        #expect(response.2.value(forHTTPHeaderField: "X-Evil") == nil)
        #expect(response.2.value(forHTTPHeaderField: "Set-Cookie") == nil)
    }

    @Test func stopWaitsForRequestsInProgressThenRefusesConnections() async throws {
        let fixture = try Fixture()
        async let slow = fixture.send("GET", "/slow")
        let started = await fixture.log.slowStarted.wait(within: .seconds(90))
        #expect(started)
        // Started at once, up to its first wait: no new connection is taken from here on, while /slow
        // is still in progress; then /slow finishes. (A minute's grace: the whole suite competes for two cores.)
        let stopping = Task.immediate { await fixture.server.stop(grace: .seconds(60)) }
        fixture.log.slowReleased.fire()
        await stopping.value
        let finished = try await slow
        #expect(finished.0 == 200)
        #expect(String(decoding: finished.1, as: UTF8.self) == "done")
        // Refused at once (the listening socket is closed), not left to time out in the backlog.
        let error = await #expect(throws: URLError.self) { try await fixture.send("GET", "/hello", timeout: 5) }
        #expect(error?.code == .cannotConnectToHost, "got \(String(describing: error?.code))")
    }

    /// Stopping while connections keep arriving, many times over: libmicrohttpd's epoll mode
    /// aborted the process here now and then (quiescing raced a worker for the listening socket);
    /// the server runs on poll() so that it cannot.
    @Test func stoppingWhileConnectionsArriveNeverAbortsTheProcess() async throws {
        let rounds = Int(ProcessInfo.processInfo.environment["CASHIER_STOP_ROUNDS"] ?? "") ?? 40
        for _ in 0..<rounds {
            let server = HTTPServer(configuration: .init(threads: 4)) { _ in .text("ok") }
            try server.start()
            let url = URL(string: "http://127.0.0.1:\(server.port)/")!
            let callers = Task {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<16 {
                        group.addTask {
                            for _ in 0..<20 where !Task.isCancelled {
                                _ = try? await CurlTransport().send(HTTPRequest(method: "GET", url: url))
                            }
                        }
                    }
                }
            }
            // Stopped once connections have begun to arrive (the callers go on arriving).
            await eventually(interval: .milliseconds(1)) { server.connectionsAccepted > 0 }
            await server.stop(grace: .milliseconds(200))
            callers.cancel()
            await callers.value
        }
    }

    /// A handler that outlives the grace period — in a task (`/held`), or work handed to a thread
    /// of its own (`/handed-held`): its connection is answered 503 and resumed before
    /// libmicrohttpd stops (which aborts the process if one is still suspended), and the late
    /// answer goes nowhere.
    @Test(arguments: ["/held", "/handed-held"]) func stopPastTheGraceAnswersHandlersStillRunning(path: String) async throws {
        let fixture = try Fixture()
        let slow = Task { () -> Result<(Int, Data, HTTPURLResponse), any Error> in
            do { return .success(try await fixture.send("GET", path)) } catch { return .failure(error) }
        }
        await fixture.log.heldStarted.wait(within: .seconds(90))
        await fixture.server.stop(grace: .milliseconds(20))
        switch await slow.value {
        case .success(let (status, body, _)):
            #expect(status == 503 && String(decoding: body, as: UTF8.self).contains("server_stopping"))
        case .failure(let error):
            // Stopping closes the connection it just answered; the client may see only that.
            #expect(error is URLError)
        }
        fixture.log.released.fire()  // the handler finishes after the stop
        #expect(await fixture.log.heldFinished.wait())  // its late answer given (to a server that is gone: nothing is sent or logged)
        #expect(fixture.log.lines.withLock { $0 }.allSatisfy { !($0.contains(#""status":200"#) && $0.contains(path)) })
    }

    /// The same when the last reference to a running server goes while a handler runs.
    @Test func droppingAServerWithAHandlerRunning() async throws {
        var fixture: Fixture? = try Fixture()
        let log = try #require(fixture?.log)
        let url = try #require(fixture?.url("/held"))
        let slow = Task { try? await URLSession.shared.data(from: url) }
        await log.heldStarted.wait(within: .seconds(90))
        fixture = nil
        _ = await slow.value
        log.released.fire()  // the handler finishes after the server is gone
        #expect(await log.heldFinished.wait())
        #expect(log.heldStarted.fired)
    }

    /// A streamed body goes out chunk by chunk as it is written, not at the end.
    @Test(.timeLimit(.minutes(3))) func streamedBodiesArriveAsTheyAreWritten() async throws {
        let fixture = try Fixture()
        let connection = try RawHTTPConnection(port: fixture.server.port)
        connection.get("/gated")
        // Generous: in a full run on two cores the server's first chunk can wait behind everything else.
        let first = try await onOwnThread { connection.read(until: "data: first", timeout: 90) }
        #expect(first)
        #expect(connection.receivedText.contains("Transfer-Encoding: chunked"))
        let early = try await onOwnThread { connection.read(until: "second", timeout: 0.3) }
        #expect(!early)  // the producer waits at the gate; what it wrote went out already
        fixture.log.gate.fire()
        let rest = try await onOwnThread { connection.read(until: "\r\n0\r\n\r\n", timeout: 90) }
        #expect(rest && connection.receivedText.contains("data: second"))
        // Many at once, through a client that reads the whole body.
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 { group.addTask { String(decoding: try await fixture.send("GET", "/ticks?count=4").1, as: UTF8.self) } }
            for try await body in group { #expect(body == (0..<4).map { "data: tick \($0)\n\n" }.joined()) }
        }
    }

    /// A client that hangs up cancels its producer (found at the next write), and stopping the
    /// server ends every stream at once rather than waiting out the grace period.
    @Test(.timeLimit(.minutes(3))) func streamsEndWhenTheClientLeavesOrTheServerStops() async throws {
        let fixture = try Fixture()
        var leaving: RawHTTPConnection? = try RawHTTPConnection(port: fixture.server.port)
        leaving?.get("/forever")
        let opened = try await onOwnThread { [leaving] in leaving?.read(until: ": open", timeout: 30) ?? false }
        #expect(opened, "received \(leaving?.receivedText.debugDescription ?? ""); access log \(fixture.log.lines.withLock { $0 })")
        leaving = nil
        // Generous, as above: the producer notices at its next write, and in a full run on two
        // cores its task can wait seconds for a thread (the bound here is not what is tested).
        await fixture.log.streamsEnded.wait(atLeast: 1)
        #expect(fixture.log.streamsEnded.value == 1)
        let staying = try RawHTTPConnection(port: fixture.server.port)
        staying.get("/forever")
        let stayed = try await onOwnThread { staying.read(until: ": open", timeout: 30) }
        #expect(stayed)
        let clock = ContinuousClock()
        let started = clock.now
        await fixture.server.stop(grace: .seconds(20))
        #expect(clock.now - started < .seconds(10))
        let closed = try await onOwnThread { staying.closedByServer(within: 10) }
        #expect(closed)
        #expect(staying.receivedText.hasSuffix("\r\n0\r\n\r\n"))  // ended as a chunked body ends, not cut off
        await fixture.log.streamsEnded.wait(atLeast: 2)
        #expect(fixture.log.streamsEnded.value == 2)
    }

    @Test func badAddressOrTakenPortSaysWhich() throws {
        func failure(_ configuration: HTTPServer.Configuration) -> String {
            do {
                try HTTPServer(configuration: configuration) { _ in .text("") }.start()
                return "started"
            } catch {
                return (error as? HTTPServerError)?.message ?? "\(error)"
            }
        }
        #expect(failure(.init(host: "not an address")).contains("'not an address' is not an IPv4 or IPv6 address"))
        let first = try Fixture()
        let taken = failure(.init(port: first.server.port))
        #expect(
            taken
                == "cannot listen on 127.0.0.1:\(first.server.port): the port is in use by another process (choose another port, or stop that process)"
        )
        // TEST-NET-1 (RFC 5737): never this machine's.
        #expect(failure(.init(host: "192.0.2.1")).contains("192.0.2.1 is not an address of this machine"))
    }
}
