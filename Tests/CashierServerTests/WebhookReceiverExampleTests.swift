import Cashier
import CashierCurl
import CashierHTTP
import ChildProcesses
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// The Python receiver in docs/examples (standard library only) against a real server: it
/// accepts Cashier's signed webhooks, acts on each event once however often it is sent, and
/// refuses a forged, tampered, stale or unsigned delivery.
@Suite struct WebhookReceiverExampleTests {
    static let secret = "whsec_python_example_0123456789"

    @Test(.timeLimit(.minutes(2))) func thePythonExampleVerifiesAndActsOnceAnEvent() async throws {
        let log = Scratch.url("webhook-receiver-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        let receiver = try ChildProcess(
            "/usr/bin/python3", [packageRoot.appendingPathComponent("docs/examples/webhook_receiver.py").path, "0"],
            environment: ProcessInfo.processInfo.environment.merging(Scratch.childEnvironment) { $1 }.merging([
                "CASHIER_WEBHOOK_SECRET": Self.secret
            ]) { $1 },
            stdout: .handle(output), stderr: .handle(output))
        defer {
            receiver.stopForGood()
            try? output.close()
        }
        func lines() -> [String] {
            (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        }
        #expect(await eventually { lines().first?.hasPrefix("listening on ") == true }, "\(lines())")
        let url = try #require(lines().first.flatMap { URL(string: String($0.dropFirst("listening on ".count))) })

        let fixture = try await ServerFixture(webhook: .init(url: url, secret: Self.secret), listening: true)
        let order = try await RecordsAndExportsTests.paid(fixture, "12.75", "wechat.native")
        let id = try #require(order["id"] as? String)
        #expect(await eventually { lines().contains { $0.hasPrefix("acted order.paid ") && $0.hasSuffix(" \(id) 1275") } }, "\(lines())")
        await fixture.settled()  // the receiver acts before it answers: the answer is recorded once the server is settled
        let delivery = try #require(try await fixture.call("GET", "/v1/webhooks?order_id=\(id)").object["data"] as? [[String: Any]]).first
        let eventID = try #require(delivery?["id"] as? String)
        #expect(delivery?["state"] as? String == "delivered")

        // Sent again (signed anew): answered 2xx, acted on once.
        #expect(try await fixture.call("POST", "/v1/webhooks/\(eventID)/resend").status == 200)
        #expect(await eventually { lines().contains("again \(eventID)") }, "\(lines())")
        #expect(lines().filter { $0.contains(" \(eventID) ") }.count == 1)

        // Deliveries Cashier did not sign are refused, and nothing is acted on.
        let body = Array(
            #"{"id":"evt_forged","type":"order.paid","created":1,"data":{"order_id":"ord_x","amount":{"amount_minor":1}}}"#.utf8)
        func send(_ signature: String?, body: [UInt8] = body) async throws -> Int {
            var headers: HTTPHeaders = ["Content-Type": "application/json", "Cashier-Event-Id": "evt_forged"]
            if let signature { headers.set("Cashier-Signature", signature) }
            return try await CurlTransport().send(HTTPRequest(method: "POST", url: url, headers: headers, body: Data(body))).status
        }
        let now = Date()
        #expect(try await send(WebhookSignature.header(body: body, secret: "whsec_someone_else", timestamp: now)) == 400)
        #expect(try await send(WebhookSignature.header(body: body, secret: Self.secret, timestamp: now.addingTimeInterval(-600))) == 400)
        let signed = WebhookSignature.header(body: body, secret: Self.secret, timestamp: now)
        #expect(try await send(signed, body: body + Array(" ".utf8)) == 400)
        #expect(try await send(nil) == 400)
        #expect(!lines().contains { $0.contains("evt_forged") })
        // The same body signed with the secret is taken: the check is the signature, not the sender.
        #expect(try await send(signed) == 204)
        #expect(await eventually { lines().contains { $0.hasPrefix("acted order.paid evt_forged ") } }, "\(lines())")
        await fixture.stop()
    }
}
