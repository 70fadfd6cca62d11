import Foundation
import TestSupport
import Testing

@testable import CashierCLI
@testable import CashierSandboxCLI

/// `cashier` is production only: sandbox mode, the gateways, the demo and the token minter are
/// `cashier-sandbox`'s. Their old names in `cashier` say where they went, in one line, exit 2.
@Suite struct SandboxToolTests {
    static let serveMoved = "cashier serve: sandbox mode is now 'cashier-sandbox serve'"

    @Test(arguments: [
        (["serve"], serveMoved),
        (["serve", "--port", "0", "--db", "cashier.db", "--catalog", "catalog.json"], serveMoved),
        (["serve", "--sandbox"], serveMoved),
        (["serve", "--sandbox", "--config", "cashier.json"], serveMoved),
        (["sandbox"], "cashier sandbox: the offline gateways are now 'cashier-sandbox gateways'"),
        (
            ["sandbox", "--ready-file", "/nonexistent/ready.json", "--time-scale", "0.001"],
            "cashier sandbox: the offline gateways are now 'cashier-sandbox gateways'"
        ),
        (["demo"], "cashier demo: the demo is now 'cashier-sandbox demo'"),
        (
            ["applepay", "mint", "--out", "/nonexistent", "--rsa"],
            "cashier applepay mint: minting sandbox tokens is now 'cashier-sandbox applepay mint'"
        ),
    ])
    func anOldSandboxCommandNamesItsNewOne(arguments: [String], line: String) async {
        let result = await CapturedIO.run(arguments)
        #expect(result.status == 2 && result.stdout.isEmpty, "\(arguments): \(result.status) \(result.stdout)")
        #expect(result.stderr == line + "\n", "\(arguments): \(result.stderr)")
    }

    /// The executable itself, as a script that still runs the old command sees it.
    @Test func theProductionExecutableRefusesSandboxMode() async throws {
        let binary = SandboxCommandTests.binary.path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build the cashier executable first (swift build)")
        let serve = try await runSubprocess(binary, ["serve", "--sandbox", "--db", Scratch.url("moved.db").path])
        #expect(serve.status == 2 && serve.stdout.isEmpty && serve.stderr == Self.serveMoved + "\n", "\(serve.stderr)")
        #expect(!FileManager.default.fileExists(atPath: Scratch.url("moved.db").path), "nothing is opened")
    }

    @Test func cashierSandboxHelpListsItsCommands() async {
        let result = await CapturedIO.runSandbox(["--help"])
        #expect(result.status == 0 && result.stdout.contains("Usage: cashier-sandbox <command>"))
        #expect(Set(CashierSandboxTool.root.subcommands.map(\.name)) == ["version", "serve", "gateways", "demo", "applepay"])
        for command in CashierSandboxTool.root.subcommands {
            #expect(result.stdout.contains("  \(command.name)"), "\(command.name) missing from help")
        }
        let alone = await CapturedIO.runSandbox([])
        #expect(alone.status == 2 && alone.stdout.isEmpty && alone.stderr.contains("needs a command"))
    }

    /// Every command, at every depth, answers `--help` with its usage and exit 0.
    @Test func everySandboxCommandHasHelp() async {
        func walk(_ command: Command, _ path: [String]) -> [[String]] {
            [path] + command.subcommands.flatMap { walk($0, path + [$0.name]) }
        }
        let paths = walk(CashierSandboxTool.root, [])
        #expect(paths.count >= 6)
        for path in paths {
            let result = await CapturedIO.runSandbox(path + ["--help"])
            #expect(result.status == 0, "\(path)")
            #expect(result.stdout.contains("Usage: " + (["cashier-sandbox"] + path).joined(separator: " ")), "\(path)")
        }
    }

    /// `cashier-sandbox serve` takes every option `cashier serve --sandbox` took, `--sandbox` itself
    /// included; `cashier serve` keeps them all too, so an old command line meets the message
    /// above rather than an unknown option.
    @Test func serveTakesTheOptionsItTook() throws {
        let before = [
            "port", "per-ip-connection-limit", "request-deadline", "publishable-requests-per-minute", "db", "ready-file", "catalog",
            "webhook-url", "webhook-secret", "sandbox", "access-log",
        ]
        let sandbox = try #require(CashierSandboxTool.root.subcommands.first { $0.name == "serve" })
        #expect(sandbox.options.map(\.name) == before)
        let production = try #require(CashierTool.root.subcommands.first { $0.name == "serve" })
        // Production's own: the configuration file, the log's format, and the pid file `cashier reload` signals.
        #expect(Set(production.options.map(\.name)) == Set(before + ["config", "log-format", "pid-file"]))
    }
}
