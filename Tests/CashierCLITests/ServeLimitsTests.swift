import Cashier
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// `cashier serve` against clients that try to hold it, in a process of its own as it runs in
/// production: one address gets its share of connections and no more, a slow-loris is closed at
/// the request deadline, and the server goes on answering others.
@Suite struct ServeLimitsTests {
    /// `cashier serve --sandbox` with `options`, its database in `folder`. - Returns: the process
    /// and where its ready file will be.
    static func serve(in folder: URL, _ options: [String]) throws -> (ChildProcess, URL) {
        let ready = folder.appendingPathComponent("ready.json")
        let process = try ChildProcess(
            SandboxCommandTests.sandboxBinary.path,
            ["serve", "--db", folder.appendingPathComponent("cashier.db").path, "--ready-file", ready.path] + options,
            stdout: .null, stderr: .null)
        return (process, ready)
    }

    @Test(.timeLimit(.minutes(3)))
    func aSlowLorisFromOneAddressHoldsItsShareUntilTheDeadline() async throws {
        let folder = try SandboxCommandTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, ready) = try Self.serve(in: folder, ["--per-ip-connection-limit", "4", "--request-deadline", "2"])
        defer { process.stopForGood() }
        let urls = try #require(try await readyFile(ready))
        let api = try #require(urls["api_url"])
        let port = try #require(URL(string: api)?.port.map(UInt16.init))
        let seen = try await onOwnThread { () -> (fifthRefused: Bool, lorisClosed: Int, elapsed: TimeInterval, answered: Bool) in
            // Four connections, each sending a header line every half second: never idle.
            let loris = try (0..<4).map { _ in try RawHTTPConnection(port: port) }
            for connection in loris { connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n") }
            Thread.sleep(forTimeInterval: 0.3)
            // A fifth from the same address: over its share, closed unanswered.
            let fifth = try RawHTTPConnection(port: port)
            fifth.get("/healthz")
            let fifthRefused = fifth.closedByServer(within: 5) && !fifth.receivedText.contains("200")
            let started = Date()
            var closed = Set<Int>()
            while Date().timeIntervalSince(started) < 20 && closed.count < loris.count {
                for (index, connection) in loris.enumerated() where !closed.contains(index) {
                    if !connection.send("X-Trickle: \(index)\r\n") || connection.closedByServer(within: 0.05) { closed.insert(index) }
                }
                Thread.sleep(forTimeInterval: 0.5)
            }
            let elapsed = Date().timeIntervalSince(started)
            let next = try RawHTTPConnection(port: port)
            next.get("/healthz")
            return (fifthRefused, closed.count, elapsed, next.read(until: "\"ok\"", timeout: 20))
        }
        #expect(seen.fifthRefused, "a fifth connection from one address is refused")
        #expect(seen.lorisClosed == 4, "every slow-loris connection is closed at the deadline")
        #expect(seen.elapsed < 15, "within the deadline and a sweep (took \(seen.elapsed) s)")
        #expect(seen.answered, "and the address is served again")
    }

    /// `--publishable-requests-per-minute`: the app's key from one address gets that many
    /// requests that create or pay a minute; past it, 429 with `Retry-After`. A value that is no
    /// number is refused before anything starts.
    @Test(.timeLimit(.minutes(3)))
    func publishableRequestsFromOneAddressAreLimited() async throws {
        let wrong = try await runSubprocess(
            SandboxCommandTests.sandboxBinary.path, ["serve", "--publishable-requests-per-minute", "lots"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("--publishable-requests-per-minute must be 0 (no limit) to 1000000"), "\(wrong.stderr)")

        let folder = try SandboxCommandTests.scratchFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (process, ready) = try Self.serve(in: folder, ["--publishable-requests-per-minute", "2"])
        defer { process.stopForGood() }
        let urls = try #require(try await readyFile(ready))
        let api = try #require(urls["api_url"])
        let order = try await ServeCommandTests.post(
            api + "/v1/orders", ["items": [["label": "Tea", "amount": "4.00"]], "currency": "CNY"], key: urls["secret_key"])
        let id = try #require(order["id"] as? String)
        let body = try JSONSerialization.data(withJSONObject: ["method": "wechat.native", "client_secret": order["client_secret"] ?? ""])
        let answers = try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    var headers = HTTPHeaders()
                    headers.add("Authorization", "Bearer \(urls["publishable_key"] ?? "")")
                    return try await URLSessionTransport().send(
                        HTTPRequest(
                            method: "POST", url: URL(string: api + "/v1/orders/\(id)/payments")!, headers: headers, body: body,
                            timeout: .seconds(60)))
                }
            }
            return try await group.reduce(into: [HTTPResponse]()) { $0.append($1) }
        }
        // Two a minute, refilled one each 30 s: these six are refused from the third on, unless
        // the cores are so busy that they arrive minutes apart; without the flag none would be.
        let refused = answers.filter { $0.status == 429 }
        #expect(!refused.isEmpty, "\(answers.map(\.status))")
        #expect(refused.allSatisfy { Int($0.headers["Retry-After"] ?? "") ?? 0 >= 1 })
        #expect(answers.contains { $0.status == 200 })
    }
}
