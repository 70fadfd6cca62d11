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

/// `cashier keys create|list|revoke` on a database.
@Suite struct KeysCommandTests {
    @Test func createListRevoke() async throws {
        let path = Scratch.url("keys-\(UUID().uuidString).db").path
        let created = await CapturedIO.run(["keys", "create", "--label", "backend", "--db", path])
        #expect(created.status == 0, "\(created.stderr)")
        let key = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key.hasPrefix("sk_") && key.count >= 40)
        let listed = await CapturedIO.run(["keys", "list", "--db", path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: [[String: Any]]])
        let entry = try #require(object["keys"]?.first)
        #expect(entry["state"] as? String == "active" && entry["label"] as? String == "backend")
        #expect(!listed.stdout.contains(key), "the key itself is never shown again")
        let id = try #require(entry["id"] as? String)
        #expect(await CapturedIO.run(["keys", "revoke", "--id", id, "--db", path]).status == 0)
        let after = await CapturedIO.run(["keys", "list", "--db", path])
        #expect(after.stdout.contains("revoked"))
        #expect(await CapturedIO.run(["keys", "revoke", "--id", "key_nothing", "--db", path]).status == 1)
        #expect(await CapturedIO.run(["keys", "list"]).status == 2)
    }

    /// With `--config`, the database is the one `serve --config` would open, read with the same
    /// checks: a misspelt key or a `database` that is not a path is refused (exit 2), not passed
    /// over for a default database the server never reads; the provider credentials are not needed.
    @Test func theConfigurationNamesTheDatabaseReadAsTheServerReadsIt() async throws {
        let folder = Scratch.url("keys-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let database = folder.appendingPathComponent("prod.db").path
        func config(_ settings: [String: Any]) throws -> String {
            let file = folder.appendingPathComponent("cashier-\(UUID().uuidString).json")
            let root: [String: Any] = ["secret_key_env": "NOT_SET_HERE", "publishable_key": "pk_test_x"].merging(settings) { $1 }
            try JSONSerialization.data(withJSONObject: root).write(to: file)
            return file.path
        }
        let good = try config(["database": database, "database_pool_size": 20, "_comment": "keys only needs the database"])
        let created = await CapturedIO.run(["keys", "create", "--label", "rotation", "--config", good])
        #expect(created.status == 0, "\(created.stderr)")
        let listed = await CapturedIO.run(["keys", "list", "--db", database, "--json"])
        #expect(listed.stdout.contains("rotation"), "\(listed.stdout) \(listed.stderr)")
        for (settings, field) in [
            (["databse": database] as [String: Any], "config: databse: is not a setting: did you mean database?"),
            (["database": 5], "config: database: must be a non-empty string"),
            (["database": database, "database_pool_size": "2"], "config: database_pool_size: must be 1 to 200"),
        ] {
            let refused = await CapturedIO.run(["keys", "list", "--config", try config(settings)])
            #expect(refused.status == 2 && refused.stderr.contains(field), "\(settings): \(refused.stderr)")
        }
        let missing = await CapturedIO.run(["keys", "list", "--config", folder.appendingPathComponent("none.json").path])
        #expect(missing.status == 2 && missing.stderr.contains("none.json"), "\(missing.stderr)")
    }
}
