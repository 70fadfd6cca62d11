import Cashier
import CashierCurl
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// Mutual TLS against a local `openssl s_server` that demands a client certificate, with a CA
/// and certificates made for the test by the `openssl` command. With `-www` the server answers
/// each connection once and closes it, so every call makes a handshake, and its page says
/// whether the session was new or resumed and which client certificate it holds.
@Suite struct CurlTransportTests {
    final class TLSServer: Sendable {
        let folder: URL
        let port: Int
        let process: ChildProcess

        init() async throws {
            folder = Scratch.url("cashier-mtls-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try "subjectAltName=IP:127.0.0.1\n".write(to: folder.appendingPathComponent("san.ext"), atomically: true, encoding: .utf8)
            let steps: [[String]] = [
                [
                    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj",
                    "/CN=Cashier Test CA",
                ],
                ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"],
                [
                    "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
                    "-days", "1",
                    "-extfile", "san.ext",
                ],
                [
                    "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key", "-out", "client.csr", "-subj",
                    "/CN=1230000109 merchant",
                ],
                [
                    "x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "client.pem",
                    "-days", "1",
                ],
                [
                    "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "other.key", "-out", "other.csr", "-subj",
                    "/CN=1900000109 merchant",
                ],
                [
                    "x509", "-req", "-in", "other.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "other.pem",
                    "-days", "1",
                ],
            ]
            for step in steps {
                let result = try await runSubprocess("/usr/bin/openssl", step + [], stdin: Data(), in: folder)
                guard result.status == 0 else { throw Failure("openssl \(step[0]) failed: \(result.stderr)") }
            }
            // A random port may be taken; s_server then exits at once and the next one is tried.
            for attempt in 1...5 {
                let port = Int.random(in: 20_000...60_000)
                let output = Pipe()
                let process = try ChildProcess(
                    "/usr/bin/openssl",
                    [
                        "s_server", "-accept", "127.0.0.1:\(port)", "-cert", "server.pem", "-key", "server.key", "-CAfile", "ca.pem",
                        "-Verify", "1", "-www",
                    ],
                    directory: folder, stdout: .pipe(output), stderr: .null)
                let ready = try await onOwnThread { () -> Bool in
                    var seen = ""
                    while !seen.contains("ACCEPT") {
                        let chunk = (try? output.fileHandleForReading.readRetrying()) ?? Data()
                        if chunk.isEmpty { return false }
                        seen += String(decoding: chunk, as: UTF8.self)
                    }
                    return true
                }
                if ready {
                    self.port = port
                    self.process = process
                    return
                }
                process.stopForGood()
                if attempt == 5 { throw Failure("openssl s_server did not start") }
            }
            throw Failure("unreachable")
        }

        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

        deinit {
            process.stopForGood()
            try? FileManager.default.removeItem(at: folder)
        }

        struct Failure: Error, CustomStringConvertible {
            let description: String
            init(_ description: String) { self.description = description }
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func presentsTheMerchantCertificate() async throws {
        let server = try await TLSServer()
        let transport = CurlTransport(
            clientCertificate: .init(certificatePath: server.path("client.pem"), keyPath: server.path("client.key")),
            trustedCAPath: server.path("ca.pem"))
        let response = try await transport.send(HTTPRequest(method: "GET", url: server.url, timeout: .seconds(10)))
        #expect(response.status == 200)
        let page = String(decoding: response.body, as: UTF8.self)
        #expect(page.contains("1230000109 merchant"), "the server should have seen the client certificate")
        #expect(!page.contains("no client certificate available"))
        #expect(response.headers["Content-Type"] == "text/html")

        // Without the merchant certificate the server refuses the handshake.
        let anonymous = CurlTransport(trustedCAPath: server.path("ca.pem"))
        let refused = await #expect(throws: PaymentError.self) {
            try await anonymous.send(HTTPRequest(method: "GET", url: server.url, timeout: .seconds(10)))
        }
        #expect(refused?.code == .transport)

        // A server certificate from an untrusted CA is refused too.
        let untrusting = CurlTransport(
            clientCertificate: .init(certificatePath: server.path("client.pem"), keyPath: server.path("client.key")))
        await #expect(throws: PaymentError.self) {
            try await untrusting.send(HTTPRequest(method: "GET", url: server.url, timeout: .seconds(10)))
        }
    }

    /// libcurl keeps a TLS session in the handle whose handshake made it; Cashier's handles share
    /// theirs, so a connection from another transport, or from a handle made for a burst of
    /// calls, resumes the last handshake with the host instead of making a full one. Another
    /// merchant's certificate never resumes it: the server would take that merchant for the first.
    @Test(.timeLimit(.minutes(3)))
    func newConnectionsResumeAnEarlierHandshakesSessionOfTheSameMerchant() async throws {
        let server = try await TLSServer()
        func transport(_ name: String) -> CurlTransport {
            CurlTransport(
                clientCertificate: .init(certificatePath: server.path("\(name).pem"), keyPath: server.path("\(name).key")),
                trustedCAPath: server.path("ca.pem"))
        }
        func page(_ transport: CurlTransport) async throws -> String {
            let response = try await transport.send(HTTPRequest(method: "GET", url: server.url, timeout: .seconds(10)))
            #expect(response.status == 200)
            return String(decoding: response.body, as: UTF8.self)
        }
        // The first handshake with this server in the process is a full one.
        let first = try await page(transport("client"))
        #expect(first.contains("\nNew, "))
        #expect(first.contains("1230000109 merchant"))

        // Each new transport's first call (a handle of its own, on the next loop) resumes it.
        for _ in 0..<6 {
            let later = try await page(transport("client"))
            #expect(later.contains("\nReused, "), "a new connection should have resumed the session")
            #expect(later.contains("1230000109 merchant"))
        }

        // Calls at once, on handles made for the burst, find the session too. (Not always every
        // one: on TLS 1.3, libcurl 7.88 alone — one thread, one multi handle — makes a few full
        // handshakes in about one run of ten; performance.md, nineteenth round.)
        let burst = transport("client")
        let pages = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<12 { group.addTask { try await page(burst) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(pages.count == 12)
        #expect(pages.contains { $0.contains("\nReused, ") })
        #expect(pages.allSatisfy { $0.contains("1230000109 merchant") })

        // Another merchant's certificate makes a handshake of its own, and the server sees that merchant.
        let other = try await page(transport("other"))
        #expect(other.contains("\nNew, "))
        #expect(other.contains("1900000109 merchant"))
        #expect(!other.contains("1230000109 merchant"))
    }
}
