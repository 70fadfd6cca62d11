import Cashier
import CashierHTTP
import CashierStore
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// Stopping `cashier serve` while a webhook is on its way to a slow endpoint: SIGTERM waits for
/// the endpoint's answer and records it before the store closes; a second signal does not wait.
@Suite struct ServeStopTests {
    /// A sandbox-mode server whose one paid order's `order.paid` webhook is being held by
    /// ``endpoint`` (it has arrived there, unanswered).
    struct HeldWebhook {
        let process: ChildProcess
        let output: Pipe
        let folder: URL
        let orderID: String
        let endpoint: HeldEndpoint
        let receiver: HTTPServer

        init() async throws {
            endpoint = HeldEndpoint()
            receiver = endpoint.httpServer()
            try receiver.start()
            let binary = SandboxCommandTests.sandboxBinary
            try #require(
                FileManager.default.isExecutableFile(atPath: binary.path), "build the cashier-sandbox executable first (swift build)")
            folder = Scratch.url("cashier-stop-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let ready = folder.appendingPathComponent("ready.json")
            output = Pipe()
            process = try ChildProcess(
                binary.path,
                [
                    "serve", "--db", folder.appendingPathComponent("cashier.db").path, "--ready-file", ready.path,
                    "--webhook-url", "http://127.0.0.1:\(receiver.port)/hooks",
                ],
                stdout: .pipe(output), stderr: .pipe(output))
            do {
                orderID = try await Self.payAndWait(ready: ready, endpoint: endpoint)
            } catch {
                process.stopForGood()
                endpoint.open()
                await receiver.stop()
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
        }

        /// Once the server at `ready` is up: an order paid through the sandbox, and its
        /// `order.paid` webhook at `endpoint`. - Returns: the order's id.
        static func payAndWait(ready: URL, endpoint: HeldEndpoint) async throws -> String {
            let urls = try #require(try await readyFile(ready))
            let (order, _) = try await ServeCommandTests.paidInSandbox(
                api: try #require(urls["api_url"]), sandbox: try #require(urls["sandbox_url"]), secret: try #require(urls["secret_key"]))
            let id = try #require(order["id"] as? String)
            // Minutes, not seconds: in `make test`'s first minute this path once took over 20 s.
            try #require(await eventually(timeout: .seconds(180)) { endpoint.arrived == 1 })
            return id
        }

        /// The server's exit status, once it has exited.
        func exit() async throws -> Int32 {
            try await onOwnThread {
                process.waitUntilExit()
                return process.terminationStatus
            }
        }

        /// Everything it printed (once it has exited).
        func printed() async throws -> String {
            try await onOwnThread { String(decoding: try output.fileHandleForReading.readToEndRetrying(), as: UTF8.self) }
        }

        /// The order's store as the server left it.
        func store() throws -> SQLiteOrderStore { try SQLiteOrderStore(path: folder.appendingPathComponent("cashier.db").path) }

        func cleanUp() async {
            process.stopForGood()
            endpoint.open()
            await receiver.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Runs `scenario` on fresh servers until a run is conclusive (``HeldEndpoint/untilConclusive(attempts:_:)``):
    /// the scenario returns whether its run was, and checks only when it was.
    static func untilConclusive(_ scenario: (HeldWebhook) async throws -> Bool) async throws {
        let conclusive = try await HeldEndpoint.untilConclusive {
            let server = try await HeldWebhook()
            do {
                let conclusive = try await scenario(server)
                await server.cleanUp()
                return conclusive
            } catch {
                await server.cleanUp()
                throw error
            }
        }
        #expect(conclusive, "no run held a webhook within the dispatcher's timeout")
    }

    @Test(.timeLimit(.minutes(12)))
    func sigtermWaitsForTheWebhookInFlightAndRecordsIt() async throws {
        try await Self.untilConclusive { server in
            server.process.terminate()
            try await Task.sleep(for: .milliseconds(500))
            let running = server.process.isRunning
            server.endpoint.open()
            let status = try await server.exit()
            let store = try server.store()
            let outbox = try await store.outbox(orderID: server.orderID)
            await store.close()
            // The dispatcher gave up waiting (10 s) before the answer came: this run tells nothing.
            guard outbox.allSatisfy({ $0.lastError == nil }) else { return false }
            #expect(running, "SIGTERM waits for the endpoint's answer")
            #expect(status == 0)
            let printed = try await server.printed()
            #expect(printed.contains("stopping: finishing what is in flight") && printed.contains("server stopped"), "\(printed)")
            // The answer was recorded before the store closed: delivered, not sent again at the next start.
            #expect(outbox.map { $0.deliveredAt != nil && $0.attempts == 1 } == [true])
            return true
        }
    }

    @Test(.timeLimit(.minutes(12)))
    func aSecondSignalStopsAtOnce() async throws {
        try await Self.untilConclusive { server in
            server.process.interrupt()  // Ctrl-C: stopping, waiting for the endpoint
            try await Task.sleep(for: .milliseconds(300))
            let running = server.process.isRunning
            server.process.interrupt()  // again: at once, while the endpoint still holds the webhook
            let status = try await server.exit()
            let store = try server.store()
            let order = try await store.order(id: server.orderID)
            let outbox = try await store.outbox(orderID: server.orderID)
            await store.close()
            // The dispatcher gave up waiting (10 s) before the signals came: this run tells nothing.
            guard outbox.allSatisfy({ $0.lastError == nil }) else { return false }
            #expect(running)
            #expect(status == 128 + SIGINT)
            let printed = try await server.printed()
            #expect(printed.contains("a second signal: stopped at once") && !printed.contains("server stopped"), "\(printed)")
            // What a crash leaves: the order paid, its webhook undelivered and due again later.
            #expect(order?.status == .paid)
            #expect(outbox.map { $0.deliveredAt == nil } == [true])
            return true
        }
    }
}
