import Cashier
import CashierStore
import Foundation

/// Closing an unpaid order, asked for (the API, the dashboard) or by the expiry job: its open
/// attempts closed at their providers first, so none can be paid there any more.
struct CloseService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }

    /// Closes order `id` (created, pending or failed), at its providers, then here.
    /// - Parameter actor: who asks, for the record: `api`, or the dashboard session that did.
    /// - Returns: the order as it is now.
    func close(_ id: String, by actor: String) async throws -> OrderJSON {
        guard let order = try await store.order(id: id) else { throw APIError.noOrder(id, forTheseCredentials: false) }
        guard order.status == .created || order.status == .pending || order.status == .failed else {
            throw APIError.invalidState("order \(id) is \(order.status.rawValue) and cannot be closed")
        }
        return try await ledger.orders.view(try await closeOrder(order, kind: .close, actor: actor), includeSecret: true)
    }

    /// Closes every open attempt of an unpaid order at its provider (so none can be paid there
    /// any more), then the order here. An attempt found paid on the way is recorded, and the
    /// order — now paid — is not closed.
    /// - Throws: `StoreError.illegalTransition` when it turned out paid.
    func closeOrder(_ order: StoredOrder, kind: EventKind, actor: String? = nil) async throws -> StoredOrder {
        for payment in try await store.payments(orderID: order.id) where payment.status.isOpen {
            let adapter = try ledger.adapters.adapter(for: payment)
            switch try await adapter.close(payment) {
            case .closed: break
            case .paid(let amount, let transactionID):
                try await ledger.payments.recordSuccess(
                    payment, amount: amount, transactionID: transactionID,
                    record: EventRecord(kind: .query, detail: Ledger.detail(["found": "paid when closing", "payment": payment.id])))
                throw StoreError(.illegalTransition, "order \(order.id) was paid (payment \(payment.id)) and cannot be closed")
            }
        }
        let record = EventRecord(kind: kind, detail: Ledger.detail(actor.map { ["by": $0] } ?? [:]))
        switch try await store.close(orderID: order.id, record: record, now: ledger.clock.now()) {
        case .applied(let updated, _):
            ledger.metrics.increment("cashier_transitions_total", ["to": updated.status.rawValue])
            return updated
        case .unchanged(let updated): return updated
        }
    }

    /// The expiry job: closes orders past their expiry that were never paid. - Returns: how many.
    @discardableResult
    func closeExpired(limit: Int = 50) async throws -> Int {
        var closed = 0
        for order in try await store.unpaidOrders(expiringBefore: ledger.clock.now(), limit: limit) {
            guard !Task.isCancelled else { break }  // the server is stopping
            // A payment may land meanwhile: the store then refuses the close, and that is right.
            if (try? await closeOrder(order, kind: .expired)) != nil { closed += 1 }
        }
        return closed
    }
}
