import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// Closing (by request and by the expiry job) and the event log — secret key only.
extension MerchantAPI {
    /// `POST /v1/orders/{id}/close`: closes an unpaid order at its providers, then here.
    /// - Parameter actor: who asks, for the record: `api`, or the dashboard session that did.
    func close(_ request: HTTPServerRequest, id: String, actor: String = "api") async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        if let refusal = await foreignOrder(id, for: identity) { return refusal }
        do {
            guard let order = try await store.order(id: id) else {
                return .error(status: 404, code: "not_found", message: "no order \(id)")
            }
            guard order.status == .created || order.status == .pending || order.status == .failed else {
                return .error(status: 409, code: "invalid_state", message: "order \(id) is \(order.status.rawValue) and cannot be closed")
            }
            return .json(try await orderJSON(try await closeOrder(order, kind: .close, actor: actor), includeSecret: true))
        } catch {
            return Self.failure(error)
        }
    }

    /// Closes every open attempt of an unpaid order at its provider (so none can be paid there
    /// any more), then the order here. An attempt found paid on the way is recorded, and the
    /// order — now paid — is not closed.
    /// - Throws: `StoreError.illegalTransition` when it turned out paid.
    func closeOrder(_ order: StoredOrder, kind: EventKind, actor: String? = nil) async throws -> StoredOrder {
        for payment in try await store.payments(orderID: order.id) where payment.status.isOpen {
            let adapter = try adapters.adapter(for: payment)
            switch try await adapter.close(payment) {
            case .closed: break
            case .paid(let amount, let transactionID):
                try await recordSuccess(
                    payment, amount: amount, transactionID: transactionID,
                    record: EventRecord(kind: .query, detail: Self.detail(["found": "paid when closing", "payment": payment.id])))
                throw StoreError(.illegalTransition, "order \(order.id) was paid (payment \(payment.id)) and cannot be closed")
            }
        }
        let record = EventRecord(kind: kind, detail: Self.detail(actor.map { ["by": $0] } ?? [:]))
        switch try await store.close(orderID: order.id, record: record, now: clock.now()) {
        case .applied(let updated, _):
            metrics.increment("cashier_transitions_total", ["to": updated.status.rawValue])
            return updated
        case .unchanged(let updated): return updated
        }
    }

    /// The expiry job: closes orders past their expiry that were never paid. - Returns: how many.
    @discardableResult
    func closeExpired(limit: Int = 50) async throws -> Int {
        var closed = 0
        for order in try await store.unpaidOrders(expiringBefore: clock.now(), limit: limit) {
            guard !Task.isCancelled else { break }  // the server is stopping
            // A payment may land meanwhile: the store then refuses the close, and that is right.
            if (try? await closeOrder(order, kind: .expired)) != nil { closed += 1 }
        }
        return closed
    }

    struct EventJSON: Encodable {
        let sequence: Int64
        let kind: String
        let from: String?
        let to: String?
        let detail: String
        let body_sha256: String?
        let created: Int64
    }

    /// `GET /v1/orders/{id}/events`'s answer: the whole log, oldest first.
    struct EventPage: Encodable {
        let data: [EventJSON]
    }

    func events(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        if let refusal = await foreignOrder(id, for: identity) { return refusal }
        do {
            guard try await store.order(id: id) != nil else { return .error(status: 404, code: "not_found", message: "no order \(id)") }
            let events = try await store.events(orderID: id).map {
                EventJSON(
                    sequence: $0.sequence, kind: $0.kind.rawValue, from: $0.from?.rawValue, to: $0.to?.rawValue, detail: $0.detail,
                    body_sha256: $0.bodySHA256, created: Int64($0.createdAt.timeIntervalSince1970))
            }
            return .json(EventPage(data: events))
        } catch {
            return Self.failure(error)
        }
    }
}
