import Cashier
import CashierCurl
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// Mutual TLS against a local `openssl s_server` that demands a client certificate, with a CA
/// and certificates made for the test by the `openssl` command.
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
}
