import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// The one migration list, and a database migrated further than this version knows: refused at
/// `migrate()`, naming what it holds and what to do, with nothing applied (GRDB's
/// `hasBeenSuperseded`). Each dialect's rendering is frozen by `GoldenTests`.
@Suite struct MigrationTests {
    typealias Backend = OrderStoreTests.Backend

    static let future = "019_from_a_newer_cashier"

    /// The names in `schema_migrations`, in order.
    static func applied(_ store: any SQLOrderStore) async throws -> [String] {
        try await store.withReading { session in
            try session.connection.query("SELECT name FROM schema_migrations ORDER BY name", []).map { try $0.required("name", \.text) }
        }
    }

    @Test(arguments: Backend.available)
    func aDatabaseFromANewerVersionIsRefusedAndLeftAsItWas(backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let store = try #require(try await backend.open(location, migrate: false) as? any SQLOrderStore)
        let dialect: SQLDialect = backend == .sqlite ? .sqlite : .postgres
        // Migrated to 006 by this version, then further by a newer one.
        let known = Array(Migration.all.prefix(6))
        try await store.withTransaction { session in
            _ = try Migration.apply(known, as: dialect, on: session.connection)
            try session.connection.query(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", [.text(Self.future), .integer(1_800_000_000)])
        }
        for instance in [store, try #require(try await backend.open(location, migrate: false) as? any SQLOrderStore)] {
            let refused = await #expect(throws: StoreError.self) { try await instance.migrate() }
            #expect(refused?.code == .newerSchema)
            let message = refused?.message ?? ""
            #expect(message.contains(Self.future) && message.contains(Migration.all.last?.name ?? ""), "\(message)")
            #expect(message.contains("newer version of Cashier") && message.contains("restore a backup"), "\(message)")
        }
        // Nothing of 007–019 was applied: their names are not recorded, their tables not made.
        #expect(try await Self.applied(store) == known.map(\.name) + [Self.future])
        await #expect(throws: StoreError.self) {
            try await store.withReading { _ = try $0.connection.query("SELECT count(*) AS n FROM payments", []) }
        }
    }

    @Test(arguments: Backend.available)
    func aFullyMigratedDatabaseWithAnUnknownMigrationIsRefused(backend: Backend) async throws {
        let store = try #require(try await backend.store() as? any SQLOrderStore)
        try await store.withTransaction { session in
            try session.connection.query(
                "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)", [.text("000_a_branch_never_released"), .integer(0)])
        }
        let refused = await #expect(throws: StoreError.self) { try await store.migrate() }
        #expect(refused?.code == .newerSchema && refused?.message.contains("000_a_branch_never_released") == true)
    }

    /// Names are unique and in order; a migration the same on both databases renders the same.
    @Test func theListIsNamedOnceInOrder() {
        let names = Migration.all.map(\.name)
        #expect(names.count == 24 && Set(names).count == names.count && names == names.sorted())
        #expect(names.first == "001_orders" && names.last == "024_recurring")
        let sqlite = Migration.all.rendered(for: .sqlite)
        let postgres = Migration.all.rendered(for: .postgres)
        let same = zip(sqlite, postgres).filter { $0.sql == $1.sql }.map(\.0.name)
        #expect(
            same == [
                "005_events_by_transition", "009_orders_settled_payment", "012_dashboard", "013_card_payments", "014_checkout",
                "015_access", "016_merchants", "017_transitions_only", "018_outbox_waiting", "019_dashboard_session_key",
            ])
    }
}
