import CashierStore
import Synchronization

/// Tells each open order stream (`GET /v1/orders/{id}/stream`) when its order changed, with one
/// read for all of them: a single poller asks the store for the versions of every watched order
/// (``OrderStore/versions(ofOrders:)``) and rings only the streams whose order moved. It looks
/// at once when this instance may have changed an order (``ring()``, after every request that
/// writes and every job run; rings within 20 ms are taken together), and every
/// ``MerchantAPI/streamReread`` anyway, for changes made by other instances sharing the database.
/// An open page therefore costs nothing per request it did not cause, however many are open.
final class OrderWatch: Sendable {
    private struct Watcher {
        let orderID: String
        var version: Int64
        let bell: Doorbell
    }

    private let store: any OrderRecords
    private let reread: Duration
    private let watchers = Mutex<[ObjectIdentifier: Watcher]>([:])
    /// Rung when this instance may have changed an order.
    private let due = Doorbell()
    private let poller = Mutex<Task<Void, Never>?>(nil)

    init(store: any OrderRecords, reread: Duration) {
        self.store = store
        self.reread = reread
    }

    /// A doorbell rung each time order `orderID` moves past `version` (until ``stopWatching(_:)``).
    func watch(orderID: String, version: Int64) -> Doorbell {
        let bell = Doorbell()
        watchers.withLock { $0[ObjectIdentifier(bell)] = Watcher(orderID: orderID, version: version, bell: bell) }
        poller.withLock { task in
            if task == nil { task = Task { await self.poll() } }
        }
        return bell
    }

    func stopWatching(_ bell: Doorbell) {
        watchers.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(bell)) }
    }

    /// Something may have changed: look now.
    func ring() { due.ring() }

    /// Stops the poller (the server is stopping).
    func stop() {
        poller.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// Streams open now (for tests).
    var count: Int { watchers.withLock { $0.count } }

    private func poll() async {
        while !Task.isCancelled {
            let ids = Set(watchers.withLock { $0.values.map(\.orderID) })
            if !ids.isEmpty, let versions = try? await store.versions(ofOrders: Array(ids)) {
                let moved = watchers.withLock { watchers -> [Doorbell] in
                    var bells: [Doorbell] = []
                    for (key, watcher) in watchers {
                        guard let version = versions[watcher.orderID], version != watcher.version else { continue }
                        watchers[key]?.version = version
                        bells.append(watcher.bell)
                    }
                    return bells
                }
                for bell in moved { bell.ring() }
            }
            if await due.wait(upTo: reread) == .rung { try? await Task.sleep(for: .milliseconds(20)) }
        }
    }
}
