import Cashier
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// The app SDK must build from Foundation alone, so an iOS app never compiles a C module.
/// The test asks SwiftPM for the package's dependency graph (`swift package describe`) and
/// walks everything `CashierClient` depends on.
@Suite struct ClientDependencyTests {
    struct Description: Decodable, Sendable {
        struct Target: Decodable, Sendable {
            let name: String
            let type: String
            let module_type: String
            let target_dependencies: [String]?
            let path: String?
        }
        struct Product: Decodable, Sendable {
            let name: String
            let targets: [String]
        }
        let targets: [Target]
        let products: [Product]
    }

    static func packageRoot() -> URL {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return url
    }

    /// `swift package describe`, run once for every test that asks, on a thread of its own: it
    /// takes seconds, and on one of Swift's few cooperative threads it would hold up every other
    /// test's async work meanwhile (seen as timeouts elsewhere in a full run).
    static func describe() async throws -> Description { try await described.value }

    private static let described = Task<Description, any Error> {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try describeNow() }) }
        }
    }

    private static func describeNow() throws -> Description {
        // A scratch path of its own: the running `swift test` holds the lock on .build.
        let scratch = Scratch.url("cashier-describe-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let pipe = Pipe()
        let process = try ChildProcess(
            "/usr/bin/env",
            ["swift", "package", "--package-path", packageRoot().path, "--scratch-path", scratch.path, "describe", "--type", "json"],
            // SwiftPM's lock files go to TMPDIR: in the scratch folder, they go with it.
            environment: ProcessInfo.processInfo.environment.merging(Scratch.childEnvironment) { $1 }, stdout: .pipe(pipe),
            stderr: .null)
        let data = try pipe.fileHandleForReading.readToEndRetrying()
        process.waitUntilExit()
        return try JSONDecoder().decode(Description.self, from: data)
    }

    /// Every target `root` reaches, itself included.
    static func reach(_ root: String, in byName: [String: Description.Target]) -> Set<String> {
        var seen = Set<String>()
        var queue = [root]
        while let name = queue.popLast() {
            guard seen.insert(name).inserted, let target = byName[name] else { continue }
            queue += target.target_dependencies ?? []
        }
        return seen
    }

    @Test func cashierClientDependsOnNoCModule() async throws {
        let description = try await Self.describe()
        let byName = Dictionary(uniqueKeysWithValues: description.targets.map { ($0.name, $0) })
        let client = try #require(byName["CashierClient"])
        let seen = Self.reach(client.name, in: byName)
        let modules = seen.compactMap { byName[$0] }
        #expect(modules.allSatisfy { $0.module_type == "SwiftTarget" }, "CashierClient reaches \(modules.map(\.name))")
        // The check itself can fail: CashierCrypto does reach a C module.
        let cryptoSeen = Self.reach("CashierCrypto", in: byName)
        #expect(cryptoSeen.compactMap { byName[$0] }.contains { $0.module_type != "SwiftTarget" })
    }
}
