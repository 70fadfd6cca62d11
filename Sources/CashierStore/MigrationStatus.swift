/// Which of this version's migrations a database has: what `cashier doctor` reports without
/// changing anything (`cashier serve` applies the missing ones at start, and refuses a database
/// that holds one it does not know).
public struct MigrationStatus: Sendable, Equatable {
    /// The migrations the database records, in order.
    public let applied: [String]
    /// This version's migrations it does not have yet: applied at the next start.
    public let pending: [String]
    /// Migrations it records that this version does not know: a newer Cashier migrated it, and
    /// this one refuses to start on it.
    public let unknown: [String]

    /// Compares `applied` with this version's migrations.
    init(applied: [String]) {
        let known = Migration.all.map(\.name)
        let recorded = Set(applied)
        self.applied = applied
        pending = known.filter { !recorded.contains($0) }
        unknown = applied.filter { !Set(known).contains($0) }
    }

    /// This version's last migration.
    public static var latest: String? { Migration.all.last?.name }
}
