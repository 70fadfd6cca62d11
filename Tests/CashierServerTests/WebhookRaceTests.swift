import Cashier
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Many orders paid at once, while every instance's webhook job delivers with sixteen orders in
/// flight from one shared outbox (SQLite, or three instances sharing PostgreSQL): each order is
/// paid once, announced once — no event lost or sent twice by two instances claiming the same
/// message — and what the webhooks announced adds up to what the provider took.
@Suite(.timeLimit(.minutes(3))) struct WebhookRaceTests {
    typealias Backend = MoneyWorld.Backend

    @Test(arguments: Backend.available)
    func ordersPaidAtOnceAreAnnouncedOnceEach(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        // Three rounds of sixteen for one instance; amounts differ so a mixed-up event would show.
        var orders: [(id: String, number: String, fen: Int64)] = []
        for index in 0..<48 {
            let fen = Int64(100 + index)
            let order = try await world.order(Money(minorUnits: fen, currency: .cny).decimalString)
            let started = try await world.start(order.id, "wechat.native")
            orders.append((order.id, try #require(started["out_trade_no"] as? String), fen))
        }
        // Every payer pays at once, each twice (a double tap): the sandbox takes the money once
        // and notifies the instances, which race to record it and to deliver what it queued.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for order in orders {
                for _ in 0..<2 { group.addTask { try await world.pay("wechat", number: order.number) } }
            }
            try await group.waitForAll()
        }
        for order in orders { #expect(try await world.waitFor(order.id, .paid), "\(order.id)") }
        await world.settled()  // every delivery made, and a second of any of them would have arrived by now
        #expect(orders.allSatisfy { !world.webhooks("order.paid", order: $0.id).isEmpty })

        var announced: Int64 = 0
        for order in orders {
            let events = world.webhooks("order.paid", order: order.id)
            #expect(events.count == 1, "\(order.id): \(events.count) order.paid webhooks")
            let amount = (events.first?["data"] as? [String: Any])?["amount"] as? [String: Any]
            #expect(amount?["amount_minor"] as? Int64 == order.fen, "\(order.id): \(String(describing: amount))")
            announced += amount?["amount_minor"] as? Int64 ?? 0
        }
        let ids = world.receiver.received.map(\.eventID)
        #expect(Set(ids).count == ids.count, "an event was delivered twice")
        let numbers = Set(orders.map(\.number))
        let taken = try await world.ledger().filter { $0.paid && numbers.contains($0.out_trade_no) }
        let paidHere = try await world.store.payments(orderIDs: orders.map(\.id)).filter { $0.status == .succeeded }
        #expect(taken.count == orders.count && paidHere.count == orders.count)
        #expect(announced == taken.reduce(0) { $0 + $1.amount_minor })
        #expect(announced == paidHere.reduce(0) { $0 + $1.amount.minorUnits })
        try await world.expectBooksAgreeThenStop()
    }
}
