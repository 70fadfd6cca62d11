import Cashier
import CashierServer
import CashierStore
import Foundation

/// `cashier keys create|list|revoke`: secret keys beyond the configured one, kept (as hashes) in
/// the server's database, so a key rotates without downtime — create a new one, move the
/// backend to it, revoke the old one; every instance refuses a revoked key at once.
enum KeysCommand {
    static let databaseOptions: [Command.Option] = [
        .value("config", "FILE", "The server's configuration file: its database."),
        .value("db", "PATH|URL", "Or the database itself (SQLite path, or postgres://user@host/db with PGPASSWORD)."),
    ]

    static let command = Command(
        name: "keys",
        summary: "Create, list and revoke secret keys (sk_…) beside the configured one: rotate a key without downtime.",
        subcommands: [create, list, revoke])

    static let create = Command(
        name: "create", summary: "Make a secret key and print it once (only its hash is kept).",
        options: [
            .value("label", "TEXT", "What it is for (e.g. \"backend 2026-12\")."),
            .value(
                "merchant", "ID",
                "A sub-merchant's key: its orders are that merchant's, and it reads no other's (no lists or reports)."),
        ] + databaseOptions
    ) { arguments, io in
        let merchant = arguments.value("merchant")
        if let merchant {
            try checkMerchant(merchant, arguments)
        }
        let store = try await open(arguments)
        let (key, record) = MerchantServer.makeSecretKey(label: arguments.value("label") ?? "", merchant: merchant)
        try await store.createAPIKey(record)
        io.write("\(key)\n")
        io.writeError(
            "created \(record.id) \(record.prefix): shown once, only its hash is kept; revoke with `cashier keys revoke --id \(record.id)`\n"
        )
        return 0
    }

    static let list = Command(
        name: "list", summary: "Every key made with `keys create`: id, first characters, label, created, last used, revoked.",
        options: databaseOptions + [.flag("json", "Print JSON.")]
    ) { arguments, io in
        let store = try await open(arguments)
        let keys = try await store.apiKeys()
        let stamp: (Date?) -> String = { date in date.map { ISO8601DateFormatter().string(from: $0) } ?? "-" }
        if arguments.flag("json") {
            let rows = keys.map { key -> [String: Any] in
                var row: [String: Any] = [
                    "id": key.id, "prefix": key.prefix, "label": key.label, "created": stamp(key.createdAt),
                    "last_used": stamp(key.lastUsedAt), "state": key.revokedAt == nil ? "active" : "revoked",
                ]
                if let merchant = key.merchant { row["merchant"] = merchant }
                if let revoked = key.revokedAt { row["revoked"] = stamp(revoked) }
                return row
            }
            try CommandInput.printJSON(["keys": rows], io)
            return 0
        }
        io.write("the configured secret_key is always valid; these are the others:\n")
        for key in keys {
            let state = key.revokedAt.map { "revoked \(stamp($0))" } ?? "active"
            io.write(
                "\(key.id)  \(key.prefix)  \(state)  created \(stamp(key.createdAt))  last used \(stamp(key.lastUsedAt))"
                    + (key.merchant.map { "  merchant \($0)" } ?? "") + "  \(key.label)\n")
        }
        if keys.isEmpty { io.write("(none)\n") }
        return 0
    }

    static let revoke = Command(
        name: "revoke", summary: "Revoke a key: refused from the next request on, on every instance.",
        options: [.value("id", "key_…", "The key's id (from `keys list`).", required: true)] + databaseOptions
    ) { arguments, io in
        let store = try await open(arguments)
        guard let key = try await store.revokeAPIKey(id: arguments.required("id"), now: Date()) else {
            throw CommandFailure("no key \(arguments.required("id")) (see `cashier keys list`)")
        }
        io.write("revoked \(key.id) \(key.prefix)\n")
        return 0
    }

    /// A key for a merchant the server does not serve would act for no one (the server refuses it):
    /// `--merchant` must name one of `--config`'s `merchants`, so the file is needed to check it.
    static func checkMerchant(_ merchant: String, _ arguments: ParsedArguments) throws {
        guard MerchantConfiguration.SubMerchant.isValidID(merchant) else {
            throw CommandFailure("--merchant '\(merchant)' is not a merchant id (1 to 32 of a-z, 0-9, - and _)", status: 2)
        }
        guard let file = arguments.value("config") else {
            throw CommandFailure(
                "--merchant needs --config FILE: the merchant is checked against the file's merchants (--db alone cannot say)",
                status: 2)
        }
        let known: [String]
        do {
            known = try ConfigurationFile.merchantIDs(contentsOf: URL(fileURLWithPath: file))
        } catch let problem as ConfigurationFile.Problem {
            throw CommandFailure(problem.description, status: 2)
        }
        guard known.contains(merchant) else {
            let listed = known.isEmpty ? "it has no merchants" : "its merchants are " + known.joined(separator: ", ")
            throw CommandFailure("--merchant '\(merchant)' is not a merchant of \(file) (\(listed)): nothing was created", status: 2)
        }
    }

    /// The database `--db` names, or the one `--config`'s file names; migrated.
    static func open(_ arguments: ParsedArguments) async throws -> any OrderStore {
        var location = try CommandInput.database(arguments.value("db"))
        var poolSize = 2
        if location == nil, let file = arguments.value("config") {
            // Read as `serve --config` reads it: a misspelt key is refused, not passed over for a
            // default database the server would never see.
            do {
                let database = try ConfigurationFile.database(contentsOf: URL(fileURLWithPath: file))
                location = database.location
                poolSize = min(database.poolSize, 2)
            } catch let problem as ConfigurationFile.Problem {
                throw CommandFailure(problem.description, status: 2)
            }
        }
        guard let location else { throw CommandFailure("give --config FILE or --db PATH|URL", status: 2) }
        do {
            let store = try await OrderStoreOpener.open(location, poolSize: poolSize, writers: 1)
            try await store.migrate()
            return store
        } catch let error as StoreError {
            throw CommandFailure("database: \(error.message)", status: 2)
        }
    }
}
