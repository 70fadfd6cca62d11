import Cashier
import CashierStore
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// Stopping `cashier serve` while a webhook is on its way to a slow endpoint: SIGTERM waits for
/// the endpoint's answer and records it before the store closes; a second signal does not wait.
@Suite struct ServeStopTests {
    /// A sandbox-mode server whose one paid order's `order.paid` webhook is held by `endpoint`.
    struct Running {
        let process: ChildProcess
        let output: Pipe
        let folder: URL
        let orderID: String
        var database: String { folder.appendingPathComponent("cashier.db").path }

        func exit() async throws -> Int32 {
            try await onOwnThread {
                process.waitUntilExit()
                return process.terminationStatus
            }
        }

        func printed() async throws -> String {
            try await onOwnThread { String(decoding: try output.fileHandleForReading.readToEndRetrying(), as: UTF8.self) }
        }
    }

    static func start(webhooksTo endpoint: URL) async throws -> Running {
        let binary = SandboxCommandTests.binary
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the cashier executable first (swift build)")
        let folder = Scratch.url("cashier-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let ready = folder.appendingPathComponent("ready.json")
        let output = Pipe()
        let process = try ChildProcess(
            binary.path,
            [
                "serve", "--sandbox", "--db", folder.appendingPathComponent("cashier.db").path, "--ready-file", ready.path,
                "--webhook-url", endpoint.absoluteString,
            ],
            stdout: .pipe(output), stderr: .pipe(output))
        let urls = try #require(try await readyFile(ready))
        let api = try #require(urls["api_url"])
        let sandbox = try #require(urls["sandbox_url"])
        let secret = try #require(urls["secret_key"])
        func post(_ url: String, _ object: Any, key: String? = nil) async throws -> [String: Any] {
            var headers = HTTPHeaders()
            if let key { headers.add("Authorization", "Bearer \(key)") }
            let response = try await URLSessionTransport().send(
                HTTPRequest(
                    method: "POST", url: URL(string: url)!, headers: headers, body: try JSONSerialization.data(withJSONObject: object)))
            return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        }
        let order = try await post(api + "/v1/orders", ["items": [["label": "Latte", "amount": "12.75"]], "currency": "CNY"], key: secret)
        let id = try #require(order["id"] as? String)
        _ = try await post(api + "/v1/orders/\(id)/payments", ["method": "wechat.native"], key: secret)
        let paid = try await post(
            sandbox + "sandbox/pay", ["provider": "wechat", "out_trade_no": order["out_trade_no"] as? String ?? "", "outcome": "success"])
        #expect(paid["trade_state"] as? String == "SUCCESS")
        return Running(process: process, output: output, folder: folder, orderID: id)
    }

    @Test(.timeLimit(.minutes(3)))
    func sigtermWaitsForTheWebhookInFlightAndRecordsIt() async throws {
        let held = HeldEndpoint()
        let receiver = held.httpServer()
        try receiver.start()
        let running = try await Self.start(webhooksTo: URL(string: "http://127.0.0.1:\(receiver.port)/hooks")!)
        defer {
            running.process.stopForGood()
            try? FileManager.default.removeItem(at: running.folder)
        }
        #expect(await eventually { held.arrived == 1 })
        running.process.terminate()
        try await Task.sleep(for: .milliseconds(500))
        #expect(running.process.isRunning, "SIGTERM waits for the endpoint's answer")
        held.open()
        #expect(try await running.exit() == 0)
        let printed = try await running.printed()
        #expect(printed.contains("stopping: finishing what is in flight") && printed.contains("server stopped"), "\(printed)")
        // The answer was recorded before the store closed: delivered, not sent again at the next start.
        let store = try SQLiteOrderStore(path: running.database)
        #expect(try await store.outbox(orderID: running.orderID).map { $0.deliveredAt != nil && $0.attempts == 1 } == [true])
        await store.close()
        await receiver.stop()
    }

    @Test(.timeLimit(.minutes(3)))
    func aSecondSignalStopsAtOnce() async throws {
        let held = HeldEndpoint()
        let receiver = held.httpServer()
        try receiver.start()
        let running = try await Self.start(webhooksTo: URL(string: "http://127.0.0.1:\(receiver.port)/hooks")!)
        defer {
            running.process.stopForGood()
            try? FileManager.default.removeItem(at: running.folder)
        }
        #expect(await eventually { held.arrived == 1 })
        running.process.interrupt()  // Ctrl-C: stopping, waiting for the endpoint
        try await Task.sleep(for: .milliseconds(300))
        #expect(running.process.isRunning)
        running.process.interrupt()  // again: at once, while the endpoint still holds the webhook
        #expect(try await running.exit() == 128 + SIGINT)
        #expect(held.arrived == 1)
        let printed = try await running.printed()
        #expect(printed.contains("a second signal: stopped at once") && !printed.contains("server stopped"), "\(printed)")
        // What a crash leaves: the order paid, its webhook undelivered and due again later.
        held.open()
        let store = try SQLiteOrderStore(path: running.database)
        #expect(try await store.order(id: running.orderID)?.status == .paid)
        #expect(try await store.outbox(orderID: running.orderID).map { $0.deliveredAt == nil } == [true])
        await store.close()
        await receiver.stop()
    }
}
