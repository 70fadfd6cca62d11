import Synchronization

/// Tells every open order stream (`GET /v1/orders/{id}/stream`) that an order may have changed
/// on this instance, so it reads its order again at once. Changes made by another instance
/// sharing the database are found by each stream's periodic read.
final class OrderWatch: Sendable {
    private let bells = Mutex<[ObjectIdentifier: Doorbell]>([:])

    /// A doorbell rung at every change until ``stopWatching(_:)``.
    func watch() -> Doorbell {
        let bell = Doorbell()
        bells.withLock { $0[ObjectIdentifier(bell)] = bell }
        return bell
    }

    func stopWatching(_ bell: Doorbell) {
        bells.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(bell)) }
    }

    /// Something may have changed: every watcher looks.
    func ring() {
        for bell in bells.withLock({ Array($0.values) }) { bell.ring() }
    }

    /// Streams open now (for `/metrics` and tests).
    var watchers: Int { bells.withLock { $0.count } }
}
