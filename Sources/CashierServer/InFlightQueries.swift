import CashierStore
import Synchronization

/// One question to a provider at a time about each payment. An app polling an order whose
/// payment is in doubt makes the server ask the provider (``MerchantAPI/queryIfInDoubt(_:)``),
/// and a page that polls from many connections at once would ask as many times. A request that
/// finds a question about the same payment under way waits for its answer instead of asking
/// again. Requests one after another still ask each time.
final class InFlightQueries: Sendable {
    private let running = Mutex<[String: Task<StoredOrder?, any Error>]>([:])

    /// `ask`'s answer for `paymentID`: the one under way, or a new one.
    func answer(for paymentID: String, _ ask: @escaping @Sendable () async throws -> StoredOrder?) async throws -> StoredOrder? {
        let task = running.withLock { running in
            if let underWay = running[paymentID] { return underWay }
            let task = Task { try await ask() }
            running[paymentID] = task
            return task
        }
        defer { running.withLock { if $0[paymentID] == task { $0[paymentID] = nil } } }
        return try await task.value
    }
}
