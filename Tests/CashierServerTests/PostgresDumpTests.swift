import Cashier
import CashierHTTP
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// The PostgreSQL backup docs/deploy/backup.md documents: `pg_dump -Fc` of a database a server
/// is writing to, `pg_restore` into a new database, and a server on that one answers for every
/// order the dump holds and takes new ones.
@Suite struct PostgresDumpTests {
    static let keys = (secret: "sk_dump_test_0123456789abcdef", publishable: "pk_dump_test")

    static func server(_ url: String) async throws -> (MerchantServer, any OrderStore) {
        let store = try await OrderStoreOpener.open(url, poolSize: 2, writers: 1)
        let server = MerchantServer(
            configuration: MerchantConfiguration(secretKey: keys.secret, publishableKey: keys.publishable), store: store)
        try await server.start()
        return (server, store)
    }

    static func call(_ server: MerchantServer, _ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> (
        Int, [String: Any]
    ) {
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer \(keys.secret)")
        headers.add("Content-Type", "application/json")
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? []
        let response = await server.handle(HTTPServerRequest(method: method, path: path, headers: headers, body: bytes))
        return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:])
    }

    @Test(.enabled(if: TestPostgres.url != nil, "needs scripts/with-pg"), .timeLimit(.minutes(3)))
    func aDumpRestoredIntoANewDatabaseServes() async throws {
        let source = try await TestPostgres.freshDatabase()
        let (server, store) = try await Self.server(source)
        // Orders made while the dump runs: it is one snapshot, whichever of them it holds.
        var ids: [String] = []
        for index in 0..<20 {
            let (status, order) = try await Self.call(
                server, "POST", "/v1/orders", ["items": [["label": "Tea \(index)", "amount": "12.75"]], "currency": "CNY"])
            try #require(status == 201, "\(order)")
            ids.append(order["id"] as? String ?? "")
        }
        let dump = Scratch.url("cashier-\(UUID().uuidString).dump").path
        defer { try? FileManager.default.removeItem(atPath: dump) }
        let dumping = Task { try await runSubprocess("/usr/bin/pg_dump", ["-Fc", "--no-owner", "-f", dump, source]) }
        for index in 0..<5 {
            _ = try await Self.call(
                server, "POST", "/v1/orders", ["items": [["label": "Late \(index)", "amount": "1.00"]], "currency": "CNY"])
        }
        let dumped = try await dumping.value
        try #require(dumped.status == 0, "pg_dump: \(dumped.stderr)")
        await server.stop()
        await store.close()

        let target = try await TestPostgres.freshDatabase()
        let restored = try await runSubprocess("/usr/bin/pg_restore", ["--no-owner", "--exit-on-error", "-d", target, dump])
        try #require(restored.status == 0, "pg_restore: \(restored.stderr)")
        let status = try await OrderStoreOpener.migrationStatus(target)
        #expect(status.pending.isEmpty && status.unknown.isEmpty, "\(status)")

        let (again, againStore) = try await Self.server(target)
        for id in ids {
            let (code, order) = try await Self.call(again, "GET", "/v1/orders/\(id)")
            #expect(code == 200 && (order["amount"] as? [String: Any])?["amount_minor"] as? Int == 1275, "\(id): \(code) \(order)")
        }
        let (created, fresh) = try await Self.call(
            again, "POST", "/v1/orders", ["items": [["label": "After restore", "amount": "3.00"]], "currency": "CNY"])
        #expect(created == 201, "\(fresh)")
        await again.stop()
        await againStore.close()
    }
}
