import CashierCLI
import CashierSandboxCLI
import Foundation
import TestSupport
import Testing

/// No secret on the command line: every option of every command of both tools (`cashier`,
/// `cashier-sandbox`) is walked, and each one that takes a secret reads it from a file or the
/// environment only.
@Suite struct SecretOptionTests {
    /// Options with a value whose name sounds secret but whose value is not one (public material).
    static let notSecret: Set<String> = ["public-key", "wechat-v3-public-key", "alipay-app-public-key", "token"]

    static func walk(_ command: Command, path: [String] = []) -> [(path: [String], option: Command.Option)] {
        command.options.map { (path + [command.name], $0) } + command.subcommands.flatMap { walk($0, path: path + [command.name]) }
    }

    @Test func everyOptionThatTakesASecretReadsAFileOrTheEnvironment() {
        let options = Self.walk(CashierTool.root) + Self.walk(CashierSandboxTool.root)
        #expect(options.count > 40, "the walk reached \(options.count) options")
        let secretWords = ["key", "secret", "password", "passwd", "credential"]
        for (path, option) in options where option.valueName != nil && !Self.notSecret.contains(option.name) {
            let soundsSecret = secretWords.contains { option.name.contains($0) }
            #expect(
                !soundsSecret || option.isSecret, "\(path.joined(separator: " ")) --\(option.name) takes a secret as a command-line value")
        }
        // The ones this tool has, all secret options.
        let secret = Set(options.filter(\.option.isSecret).map(\.option.name))
        let known: Set = ["key", "api-v3-key", "private-key", "merchant-key", "webhook-secret", "wechat-key", "wechat-api-v3-key"]
        #expect(secret.isSuperset(of: known))
    }

    @Test func aSecretOnTheCommandLineIsRefusedWithTheWayToGiveIt() async {
        let input = #"{"appid":"wxd930ea5d5a258f4f","mch_id":"10000100","device_info":"1000","body":"test","nonce_str":"ibuaiVcKdpRxkhJA"}"#
        let refused = await CapturedIO.run(["wechat", "sign", "--key", "192006250b4c09247ec02edce69f6a2d"], stdin: input)
        #expect(refused.status == 2 && refused.stderr.contains("--key-file") && refused.stderr.contains("--key-env"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("9A0A8659"))
        let inline = await CapturedIO.run(["wechat", "sign", "--key=192006250b4c09247ec02edce69f6a2d"], stdin: input)
        #expect(inline.status == 2)
        // From a file (its trailing newline dropped) and from the environment: the same signature.
        let file = await CapturedIO.run(
            ["wechat", "sign", "--key-file", CapturedIO.secretFile("192006250b4c09247ec02edce69f6a2d\n")], stdin: input)
        #expect(file.status == 0 && file.stdout.contains("9A0A8659F005D6984697E2CA0A9CF3B7"), "\(file.stderr)")
        let keyInEnvironment = ["CASHIER_TEST_WECHAT_KEY": "192006250b4c09247ec02edce69f6a2d"]
        let env = await CapturedIO.run(
            ["wechat", "sign", "--key-env", "CASHIER_TEST_WECHAT_KEY"], stdin: input, environment: keyInEnvironment)
        #expect(env.status == 0 && env.stdout.contains("9A0A8659F005D6984697E2CA0A9CF3B7"), "\(env.stderr)")
        let unset = await CapturedIO.run(["wechat", "sign", "--key-env", "CASHIER_TEST_NOT_SET_ANYWHERE"], stdin: input)
        #expect(unset.status == 2 && unset.stderr.contains("CASHIER_TEST_NOT_SET_ANYWHERE"))
        let both = await CapturedIO.run(
            ["wechat", "sign", "--key-env", "CASHIER_TEST_WECHAT_KEY", "--key-file", CapturedIO.secretFile("x")], stdin: input,
            environment: keyInEnvironment)
        #expect(both.status == 2)
        let missing = await CapturedIO.run(["wechat", "sign"], stdin: input)
        #expect(missing.status == 2 && missing.stderr.contains("--key-file PATH | --key-env VAR"), "\(missing.stderr)")
    }

    @Test func aPostgresPasswordInTheURLIsRefused() async {
        for url in ["postgres://cashier:hunter2@127.0.0.1:1/cashier", "postgresql://127.0.0.1:1/cashier?password=hunter2"] {
            let refused = await CapturedIO.runSandbox(["serve", "--db", url, "--port", "0"])
            #expect(refused.status == 2 && refused.stderr.contains("PGPASSWORD"), "\(url): \(refused.stderr)")
            #expect(!refused.stderr.contains("hunter2"))
        }
    }
}
