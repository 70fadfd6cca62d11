/// What ``GroupCommitWriter`` needs from a connection: one transaction for a batch, and a savepoint
/// around each queued transaction in it (numbered by its place in the batch).
protocol GroupCommitConnection: AnyObject {
    /// Whether the connection can still be used (a dropped one is replaced before the next batch).
    var isHealthy: Bool { get }
    func beginBatch() throws
    func commitBatch() throws
    /// Undoes the batch after a failed commit.
    func rollbackBatch()
    func openSavepoint(_ index: Int) throws
    func releaseSavepoint(_ index: Int) throws
    /// Undoes the transaction at `index` alone (best effort: if this fails, the batch's commit fails).
    func rollbackToSavepoint(_ index: Int)
}
