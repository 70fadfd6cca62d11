import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierCLI

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

    /// `--merchant`: a key for a merchant the configuration does not have would act for no one
    /// (issue 58, item 8) — refused with what to fix, and nothing is created; a key for one of its
    /// merchants is made and listed with it.
    @Test func aKeyIsMadeOnlyForAMerchantOfTheConfiguration() async throws {
        let folder = Scratch.url("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("cashier.db").path
        let file = folder.appendingPathComponent("cashier.json")
        try JSONSerialization.data(withJSONObject: ["database": database, "merchants": [["id": "north"], ["id": "south"]]]).write(to: file)

        let unknown = await CapturedIO.run(["keys", "create", "--merchant", "nosuch", "--config", file.path])
        #expect(unknown.status == 2 && unknown.stdout.isEmpty, "\(unknown)")
        #expect(unknown.stderr.contains("'nosuch' is not a merchant of") && unknown.stderr.contains("north, south"), "\(unknown.stderr)")
        let databaseOnly = await CapturedIO.run(["keys", "create", "--merchant", "north", "--db", database])
        #expect(databaseOnly.status == 2 && databaseOnly.stderr.contains("--merchant needs --config FILE"), "\(databaseOnly.stderr)")
        let malformed = await CapturedIO.run(["keys", "create", "--merchant", "North!", "--config", file.path])
        #expect(malformed.status == 2 && malformed.stderr.contains("is not a merchant id"), "\(malformed.stderr)")
        let none = await CapturedIO.run(["keys", "list", "--json", "--config", file.path])
        #expect(none.status == 0 && !none.stdout.contains("key_"), "\(none.stdout)")

        let made = await CapturedIO.run(["keys", "create", "--merchant", "north", "--label", "till", "--config", file.path])
        #expect(made.status == 0 && made.stdout.hasPrefix("sk_"), "\(made)")
        let listed = await CapturedIO.run(["keys", "list", "--json", "--config", file.path])
        #expect(listed.status == 0 && listed.stdout.contains("\"north\"") && !listed.stdout.contains("nosuch"), "\(listed.stdout)")
    }
}
