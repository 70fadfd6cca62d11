/// PostgreSQL in a group commit, without round trips of its own: `BEGIN` and each `SAVEPOINT` go
/// out in one pipeline with the next statement, each `RELEASE` with the statement after it (or
/// with the `COMMIT`), and a savepoint its transaction never used is taken back unsent. Each
/// transaction's savepoint has a name of its own, so rolling one back can never undo a neighbour.
extension PostgresConnection: GroupCommitConnection {
    func beginBatch() throws { begin() }
    func commitBatch() throws { try commit() }
    func rollbackBatch() { if isHealthy { try? rollback() } }

    func openSavepoint(_ index: Int) throws { sendWithNext("SAVEPOINT cashier_job_\(index)") }

    func releaseSavepoint(_ index: Int) throws {
        if !withdraw("SAVEPOINT cashier_job_\(index)") { sendWithNext("RELEASE SAVEPOINT cashier_job_\(index)") }
    }

    func rollbackToSavepoint(_ index: Int) {
        guard !withdraw("SAVEPOINT cashier_job_\(index)") else { return }
        // If this fails too, the transaction stays aborted, its COMMIT fails, and every transaction is tried again.
        try? execute("ROLLBACK TO SAVEPOINT cashier_job_\(index); RELEASE SAVEPOINT cashier_job_\(index)")
    }
}
