import Foundation
import Testing

/// The allowed import arrows between the package's targets (`design/server-structure.md` §1),
/// checked against the dependency graph SwiftPM reads from the manifest: what each target
/// reaches, through any number of arrows, is what it may link.
@Suite struct ImportArrowTests {
    /// One row of the module table: what `target` must never reach, or the only targets it may.
    struct Arrow: Sendable, CustomTestStringConvertible {
        let target: String
        var never: Set<String> = []
        /// Every target it may reach, itself included (`nil`: any not in ``never``).
        var only: Set<String>? = nil

        var testDescription: String {
            only.map { "\(target) reaches only \($0.sorted())" } ?? "\(target) never reaches \(never.sorted())"
        }
    }

    static let simulators: Set<String> = ["CashierSandbox", "CashierSandboxMode", "CashierSandboxCLI"]
    static let providers = ["WeChatPay", "Alipay", "ApplePay"]

    static let arrows: [Arrow] =
        [
            // The production executable and what it is made of link no simulator, and nothing
            // that starts programs.
            Arrow(target: "cashier", never: simulators.union(["ChildProcesses", "TestSupport"])),
            Arrow(target: "CashierCLI", never: simulators),
            Arrow(target: "CashierServer", never: simulators),
            Arrow(target: "cashier-sandbox", never: ["ChildProcesses", "TestSupport"]),
            // Shared with the iOS SDK: Foundation only.
            Arrow(target: "CashierWire", only: ["CashierWire"]),
            Arrow(target: "CashierClient", only: ["CashierClient", "CashierWire"]),
            Arrow(target: "Cashier", only: ["Cashier", "CashierWire"]),
            // Crypto knows no orders; the HTTP engine neither signs nor draws.
            Arrow(target: "CashierCrypto", never: ["Cashier", "CashierWire"]),
            Arrow(target: "CashierHTTP", never: ["CashierCrypto", "COpenSSL", "CQREncode"]),
            Arrow(target: "CashierStore", never: Set(providers + ["CashierHTTP", "CashierWeb", "CashierCurl", "CashierCrypto"])),
            Arrow(target: "CashierCurl", never: Set(providers + ["CashierHTTP", "CashierStore"])),
            Arrow(target: "CashierSandbox", never: ["CashierServer", "CashierStore", "CashierSandboxMode", "CashierCLI"]),
        ]
        // Provider libraries never import each other, and no library imports a simulator.
        + providers.map { provider in
            Arrow(
                target: provider, never: Set(providers.filter { $0 != provider }).union(simulators).union(["CashierStore", "CashierHTTP"]))
        }

    @Test(arguments: arrows)
    func theTargetReachesOnlyWhatItMay(_ arrow: Arrow) async throws {
        let description = try await ClientDependencyTests.describe()
        let byName = Dictionary(uniqueKeysWithValues: description.targets.map { ($0.name, $0) })
        try #require(byName[arrow.target] != nil, "no target \(arrow.target)")
        for name in arrow.never.union(arrow.only ?? []) {
            #expect(byName[name] != nil, "the table names \(name), which the package does not have")
        }
        let reached = ClientDependencyTests.reach(arrow.target, in: byName)
        #expect(reached.isDisjoint(with: arrow.never), "\(arrow.target) reaches \(reached.intersection(arrow.never).sorted())")
        if let only = arrow.only {
            #expect(reached.isSubset(of: only), "\(arrow.target) reaches \(reached.subtracting(only).sorted())")
        }
    }

    /// The check itself can fail: sandbox mode, the sandbox executable and the benchmarks do
    /// link the simulators, and the server reaches every provider.
    @Test func theTableCanFail() async throws {
        let description = try await ClientDependencyTests.describe()
        let byName = Dictionary(uniqueKeysWithValues: description.targets.map { ($0.name, $0) })
        #expect(ClientDependencyTests.reach("CashierSandboxMode", in: byName).contains("CashierSandbox"))
        #expect(ClientDependencyTests.reach("cashier-sandbox", in: byName).isSuperset(of: Self.simulators))
        #expect(ClientDependencyTests.reach("cashier-sandbox", in: byName).contains("CashierCLI"))
        #expect(ClientDependencyTests.reach("cashier", in: byName).isSuperset(of: Set(Self.providers + ["CashierServer", "CashierWire"])))
        #expect(ClientDependencyTests.reach("CashierWeb", in: byName).isSuperset(of: ["CashierCrypto", "CQREncode", "CashierHTTP"]))
    }
}
