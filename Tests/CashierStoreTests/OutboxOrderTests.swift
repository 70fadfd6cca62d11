import Cashier
import CashierStore
import Foundation
import Synchronization
import TestSupport
import Testing

/// An order's webhooks leave in the order they were written, one sender at a time, however many
/// instances share the outbox: a later message waits while an earlier one of its order is
/// claimed by a sender or waiting to be tried again. Before, a second instance claimed the later
/// message while the first was still sending the earlier one, and the merchant heard
/// `order.refunded` before the `order.disputed` it followed (seen on PostgreSQL with three instances).
@Suite struct OutboxOrderTests {
    typealias Backend = OrderStoreTests.Backend

    /// An order with two webhooks queued: `order.paid`, then `order.refund_required` (a second
    /// attempt paid too).
    static func orderWithTwoWebhooks(_ store: any OrderStore) async throws -> String {
        let (order, wechat, alipay) = try await LedgerStoreTests.orderWithTwoAttempts(store)
        _ = try await LedgerStoreTests.succeed(store, wechat)
        _ = try await LedgerStoreTests.succeed(store, alipay)
        let types = try await store.outbox(orderID: order.id).map(\.type)
        try #require(types == ["order.paid", "order.refund_required"])
        return order.id
    }

    @Test(arguments: Backend.available)
    func aLaterWebhookWaitsWhileAnEarlierOneIsClaimedOrWaitingForItsRetry(backend: Backend) async throws {
        let instances = try await backend.twoInstances()
        let (one, two) = (instances[0], instances[1])
        let orderID = try await Self.orderWithTwoWebhooks(one)
        let now = Date().addingTimeInterval(1)

        // One instance claims order.paid; the other may not take order.refund_required meanwhile.
        let first = try await one.claimOutbox(now: now, limit: 1, lease: 60)
        #expect(first.map(\.type) == ["order.paid"])
        let paid = try #require(first.first)
        #expect(try await two.claimOutbox(now: now, limit: 10, lease: 60).isEmpty)
        #expect(try await two.dueOutbox(now: now, limit: 10).isEmpty)

        // order.paid failed and waits for its retry: order.refund_required waits with it.
        try await one.reschedule(paid.id, attempts: 1, nextAttemptAt: now.addingTimeInterval(30), error: "HTTP 503")
        #expect(try await two.claimOutbox(now: now.addingTimeInterval(1), limit: 10, lease: 60).isEmpty)
        // Due again: both, in order, in one claim.
        let retry = try await two.claimOutbox(now: now.addingTimeInterval(31), limit: 10, lease: 60)
        #expect(retry.map(\.type) == ["order.paid", "order.refund_required"])

        // A message given up on (parked) holds nothing back: the next one goes when due.
        try await two.reschedule(paid.id, attempts: 30, nextAttemptAt: now.addingTimeInterval(OutboxMessage.parkedDelay), error: "HTTP 503")
        let refund = try #require(retry.last)
        try await two.reschedule(refund.id, attempts: 1, nextAttemptAt: now.addingTimeInterval(40), error: "HTTP 503")
        #expect(try await one.claimOutbox(now: now.addingTimeInterval(41), limit: 10, lease: 60).map(\.id) == [refund.id])
        #expect(try await one.outbox(orderID: orderID).count == 2)
    }

    /// Six senders on as many connections (three instances on PostgreSQL) claim in small batches,
    /// as the webhook job does under load: no order ever has two messages in flight, each
    /// order's arrive in the order they were written, each once.
    @Test(.timeLimit(.minutes(2)), arguments: Backend.available)
    func sendersAtOnceNeverSendAnOrdersWebhooksOutOfOrder(backend: Backend) async throws {
        let location = try await backend.freshLocation()
        var instances: [any OrderStore] = [try await backend.open(location)]
        for _ in 1..<3 { instances.append(try await backend.open(location, migrate: false)) }
        let orders = 40
        var written: [String: [String]] = [:]
        for _ in 0..<orders {
            let id = try await Self.orderWithTwoWebhooks(instances[0])
            written[id] = try await instances[0].outbox(orderID: id).map(\.id)
        }

        /// What the endpoint saw: each order's messages in arrival order, and any order that had
        /// two messages in flight at once.
        final class Endpoint: Sendable {
            let state = Mutex<(inFlight: Set<String>, arrived: [String: [String]], overlaps: [String])>(([], [:], []))
            func start(_ message: OutboxMessage) {
                state.withLock {
                    if !$0.inFlight.insert(message.orderID).inserted { $0.overlaps.append(message.orderID) }
                    $0.arrived[message.orderID, default: []].append(message.id)
                }
            }
            func end(_ message: OutboxMessage) { _ = state.withLock { $0.inFlight.remove(message.orderID) } }
        }
        let endpoint = Endpoint()
        // Deliveries made: a sender with nothing to claim waits for the next one (others hold the rest).
        let delivered = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in 0..<6 {
                let store = instances[sender % instances.count]
                group.addTask {
                    for _ in 0..<4_000 {
                        let seen = delivered.value
                        let claimed = try await store.claimOutbox(now: Date(), limit: 3, lease: 60)
                        if claimed.isEmpty {
                            if try await store.dueOutbox(now: Date().addingTimeInterval(120), limit: 1).isEmpty { return }
                            await delivered.wait(atLeast: seen + 1, within: .seconds(10))
                            continue
                        }
                        for message in claimed {
                            endpoint.start(message)
                            try await Task.sleep(for: .microseconds(200))  // the endpoint's answer
                            endpoint.end(message)
                            try await store.markDelivered(message.id, at: Date())
                            delivered.add()
                        }
                    }
                    Issue.record("sender \(sender) gave up after 4,000 rounds")
                }
            }
            try await group.waitForAll()
        }
        let seen = endpoint.state.withLock { $0 }
        #expect(seen.overlaps.isEmpty, "orders with two webhooks in flight at once: \(seen.overlaps.count)")
        #expect(seen.arrived.count == orders)
        let outOfOrder = written.filter { seen.arrived[$0.key] != $0.value }
        #expect(outOfOrder.isEmpty, "\(outOfOrder.count) orders' webhooks arrived out of order or more than once")
    }
}
