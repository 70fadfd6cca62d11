/// Opening and closing a store: its schema brought up to date before first use, its connections
/// closed after last use. Part of ``OrderStore``.
public protocol StoreLifecycle: Sendable {
    /// Applies the named migrations not yet applied, in order. - Returns: their names.
    @discardableResult
    func migrate() async throws -> [String]

    /// Finishes the writes already queued and closes the store's connections, returning once they
    /// are closed; every later call fails as unavailable. ``SQLiteOrderStore`` needs it before its
    /// file is copied, moved or removed; ``PostgresOrderStore`` gives its sessions back to the
    /// server at once instead of when the store is dropped. A store of one's own that holds
    /// nothing to close need not implement it.
    func close() async
}

extension StoreLifecycle {
    public func close() async {}
}
