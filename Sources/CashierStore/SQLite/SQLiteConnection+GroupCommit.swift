/// SQLite in a group commit: `BEGIN IMMEDIATE` (the write lock for the whole batch) and one
/// savepoint name for every transaction (each is released or rolled back before the next opens).
extension SQLiteConnection: GroupCommitConnection {
    var isHealthy: Bool { true }
    func beginBatch() throws { try query("BEGIN IMMEDIATE", []) }
    func commitBatch() throws { try query("COMMIT", []) }
    func rollbackBatch() { try? execute("ROLLBACK") }
    func openSavepoint(_ index: Int) throws { try query("SAVEPOINT job", []) }
    func releaseSavepoint(_ index: Int) throws { try query("RELEASE job", []) }
    func rollbackToSavepoint(_ index: Int) {
        try? execute("ROLLBACK TO job")
        try? execute("RELEASE job")
    }
}
