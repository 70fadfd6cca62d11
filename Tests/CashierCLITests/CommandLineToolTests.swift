import Foundation
import Testing

@testable import CashierCLI

@Suite struct CommandLineToolTests {
    @Test func rootHelpListsEveryCommand() async {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = await CapturedIO.run(arguments)
            #expect(result.status == 0)
            #expect(result.stdout.contains("Usage: cashier <command>"))
            for command in CashierTool.root.subcommands {
                #expect(result.stdout.contains("  \(command.name)"), "\(command.name) missing from help")
            }
        }
    }

    /// `cashier` alone, or a group such as `cashier wechat` alone, did nothing: that is a usage
    /// error (exit 2, the help on stderr, nothing on stdout), so a script missing its command fails.
    @Test func aGroupWithoutACommandIsAUsageError() async {
        let groups = [[]] + CashierTool.root.subcommands.filter { $0.action == nil }.map { [$0.name] }
        #expect(groups.count >= 3)
        for path in groups {
            let result = await CapturedIO.run(path)
            #expect(result.status == 2, "\(path)")
            #expect(result.stdout.isEmpty, "\(path)")
            #expect(result.stderr.contains("needs a command"), "\(path)")
            #expect(result.stderr.contains("Usage: " + (["cashier"] + path).joined(separator: " ")), "\(path)")
        }
    }

    /// Every command, at every depth, answers `--help` with its usage and exit 0.
    @Test func everyCommandHasHelp() async {
        func walk(_ command: Command, _ path: [String]) -> [[String]] {
            [path] + command.subcommands.flatMap { walk($0, path + [$0.name]) }
        }
        let paths = walk(CashierTool.root, [])
        #expect(paths.count >= 3)
        for path in paths {
            let result = await CapturedIO.run(path + ["--help"])
            #expect(result.status == 0, "\(path)")
            #expect(result.stdout.contains("Usage: " + (["cashier"] + path).joined(separator: " ")), "\(path)")
            #expect(result.stdout.contains("--help"))
        }
    }

    @Test func version() async {
        let line = await CapturedIO.run(["version"])
        #expect(line.status == 0)
        #expect(line.stdout.hasPrefix("cashier 0.1.0 (OpenSSL 3."))
        let json = await CapturedIO.run(["version", "--json"])
        let object = try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String]
        #expect(object?["cashier"] == "0.1.0")
        #expect(object?["openssl"]?.hasPrefix("OpenSSL 3.") == true)
    }

    @Test func usageErrorsExitTwoWithAHint() async {
        let unknown = await CapturedIO.run(["nope"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown command 'nope'"))
        #expect(unknown.stderr.contains("Run 'cashier --help'"))
        let badOption = await CapturedIO.run(["version", "--bogus"])
        #expect(badOption.status == 2)
        #expect(badOption.stderr.contains("unknown option '--bogus'"))
        let flagWithValue = await CapturedIO.run(["version", "--json=yes"])
        #expect(flagWithValue.status == 2)
        let stray = await CapturedIO.run(["version", "extra"])
        #expect(stray.status == 2)
    }

    /// A misspelt option or command is named with the one probably meant (a secret's -file and
    /// -env forms among them); one nothing is close to is named alone.
    @Test func aMisspeltOptionOrCommandSaysWhatWasMeant() async {
        let option = await CapturedIO.run(["serve", "--prot", "8080"])
        #expect(option.status == 2 && option.stderr.contains("unknown option '--prot': did you mean '--port'?"), "\(option.stderr)")
        let secret = await CapturedIO.run(["wechat", "sign", "--key-evn", "X"])
        #expect(secret.status == 2 && secret.stderr.contains("did you mean '--key-env'?"), "\(secret.stderr)")
        let command = await CapturedIO.run(["reconcil"])
        #expect(
            command.status == 2 && command.stderr.contains("unknown command 'reconcil' for 'cashier': did you mean 'reconcile'?"),
            "\(command.stderr)")
        let far = await CapturedIO.run(["version", "--bogus"])
        #expect(far.stderr.contains("unknown option '--bogus'") && !far.stderr.contains("did you mean"), "\(far.stderr)")
    }

    @Test func parserHandlesValuesFlagsAndRequiredOptions() throws {
        let command = Command(
            name: "sign", summary: "s",
            options: [.value("key", "KEY", "k", required: true), .value("sign-type", "TYPE", "t"), .flag("json", "j")]
        ) { _, _ in 0 }
        let parsed = try CommandLineTool.parse(["--key", "abc", "--sign-type=HMAC-SHA256", "--json"], for: command)
        #expect(parsed.value("key") == "abc")
        #expect(parsed.value("sign-type") == "HMAC-SHA256")
        #expect(parsed.flag("json"))
        #expect(try CommandLineTool.parse(["--key=a=b"], for: command).value("key") == "a=b")
        #expect(try CommandLineTool.parse(["--key", "--json"], for: command).value("key") == "--json")
        #expect(throws: CommandLineTool.UsageError.self) { try CommandLineTool.parse([], for: command) }
        #expect(throws: CommandLineTool.UsageError.self) { try CommandLineTool.parse(["--key"], for: command) }
        #expect(throws: CommandLineTool.UsageError.self) { try CommandLineTool.parse(["--key", "a", "--key", "b"], for: command) }
        #expect(throws: CommandLineTool.UsageError.self) { try CommandLineTool.parse(["--key", "a", "positional"], for: command) }
    }

    @Test func demoPassesEveryStep() async {
        let result = await CapturedIO.runSandbox(["demo"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("51.00 CNY"))
        #expect(!result.stdout.contains("FAIL"))
        #expect(result.stdout.contains(" 0 failed"))
        #expect(result.stdout.contains("ok    WeChat Pay v2 APP order"))
        #expect(result.stdout.contains("ok    WeChat Pay v3 Native order"))
        #expect(result.stdout.contains("ok    Alipay precreate → pay → query"))
        #expect(result.stdout.contains("ok    Apple Pay token → authorised"))
        for method in [
            "wechat.app (v2)", "wechat.app (v3)", "wechat.miniprogram (JSAPI)", "wechat.native + refund + replay",
            "wechat.native + refund in WeChat's platform", "alipay.app",
            "alipay.wap",
            "applepay via Stripe + refund", "applepay via Stripe, disputed", "applepay via Stripe, processing",
            "checkout page (desktop → QR)", "close an unpaid order",
            "reconcile today",
            "wechat.barcode (counter, password)", "sub-merchant north: wechat.app (v3 partner) + refund",
        ] {
            #expect(result.stdout.contains("ok    server: \(method)"), "\(method)")
        }
        // The closing table: every order where it should be.
        #expect(result.stdout.contains("Orders through the merchant server") && !result.stdout.contains("WRONG"))
        // A checkout link per order.
        let links = result.stdout.split(separator: "\n").filter { $0.contains("/c/ord_") && $0.contains("_secret_") }
        #expect(links.count == 15, "\(links)")
    }
}
