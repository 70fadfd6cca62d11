import Foundation
import TestSupport
import Testing

/// The shipped `cashier` is production only: its symbol table names no simulator. `make test`
/// builds it (`swift build -c release --product cashier`) before the tests run.
@Suite struct ReleaseBinaryTests {
    static let release = ClientDependencyTests.packageRoot().appendingPathComponent(".build/release/cashier")

    /// What a simulator's symbols contain once demangled: its modules' names (`CashierSandbox.…`,
    /// `CashierSandboxMode.…`) and the simulator types, `ApplePay.SandboxProcessor` among them,
    /// which used to live in a provider library. (Mangled names compress repeated words, so a
    /// name can be missing from the raw table while its symbols are there.)
    static let simulatorNames = ["CashierSandbox", "SandboxProcessor", "ApplePayTestCA", "ApplePayTokenMinter", "SandboxServer"]

    /// Every symbol `nm` lists for `binary`, demangled (`swift demangle`).
    static func symbols(_ binary: URL) async throws -> [Substring] {
        // One pipeline: the table is megabytes, more than a pipe holds while the other end waits.
        let listed = try await runSubprocess(
            "/bin/bash", ["-c", #"set -o pipefail; nm "$1" | swift demangle --compact"#, "bash", binary.path])
        try #require(listed.status == 0, "nm \(binary.path) | swift demangle: \(listed.stderr)")
        return listed.stdout.split(separator: "\n")
    }

    @Test func theReleaseServerHasNoSimulatorSymbols() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.release.path),
            "build the release executable first: swift build -c release --product cashier (make test does)")
        let symbols = try await Self.symbols(Self.release)
        let simulator = symbols.filter { symbol in Self.simulatorNames.contains { symbol.contains($0) } }
        #expect(simulator.isEmpty, "\(simulator.count) simulator symbols, e.g. \(simulator.prefix(5))")
        // The check can fail: the table is readable, and the server's own symbols are in it.
        #expect(symbols.count > 1000 && symbols.contains { $0.contains("CashierServer.MerchantServer") }, "\(symbols.count) symbols")
    }

    /// The same names do find the simulators where they are linked: the sandbox executable.
    @Test func theNamesFindTheSimulatorsWhereTheyAre() async throws {
        let sandbox = ClientDependencyTests.packageRoot().appendingPathComponent(".build/debug/cashier-sandbox")
        try #require(FileManager.default.isExecutableFile(atPath: sandbox.path), "build the executables first (swift build)")
        let symbols = try await Self.symbols(sandbox)
        for name in Self.simulatorNames {
            #expect(symbols.contains { $0.contains(name) }, "\(name) is not in cashier-sandbox's symbols")
        }
    }
}
