import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// An order's payment sheet may reprice it at most ``OrderStoreLimits/sheetChangesPerOrder``
/// times, counted in the transaction that locks the order, so that two servers sharing the
/// database cannot pass it together; a refused change changes nothing.
@Suite struct SheetChangeLimitTests {
    typealias Backend = OrderStoreTests.Backend

    /// Eight sheets changing one order at once through two store instances, each reading the
    /// order again when its version moved, until refused. The log ends with exactly the limit
    /// of changes, the order's version moved once for each, and every sheet is refused in the
    /// end with a message that says what to do.
    @Test(arguments: Backend.available)
    func anOrderIsRepricedAtMostItsLimitFromEveryInstanceAtOnce(backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let stores = [try await backend.open(location), try await backend.open(location, migrate: false)]
        let order = try await stores[0].create(OrderStoreTests.newOrder(minor: 5100))
        let results = await withTaskGroup(of: Result<Int, any Error>.self) { group in
            for sheet in 0..<8 {
                let store = stores[sheet % stores.count]
                group.addTask {
                    var made = 0
                    for attempt in 0..<1_000 {
                        do {
                            guard let current = try await store.order(id: order.id) else { return .success(made) }
                            let minor: Int64 = 5100 + Int64((sheet + attempt) % 3) * 1000
                            let repriced = try await store.reprice(
                                orderID: order.id, version: current.version, itemsJSON: "[]",
                                total: Money(minorUnits: minor, currency: .cny), sheetJSON: "{}",
                                record: EventRecord(kind: .sheetUpdated, detail: #"{"total_minor":"\#(minor)"}"#), now: Date())
                            if repriced != nil { made += 1 }
                        } catch let error as StoreError where error.code == .busy {
                            continue  // a lock held past the store's own retries: the sheet tries again
                        } catch {
                            return .failure(error)
                        }
                    }
                    return .success(made)
                }
            }
            return await group.reduce(into: [Result<Int, any Error>]()) { $0.append($1) }
        }
        let refusals = results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        #expect(refusals.count == 8, "every sheet is refused in the end: \(results)")
        for refusal in refusals {
            let error = try #require(refusal as? StoreError, "\(refusal)")
            #expect(error.code == .illegalTransition && error.message.contains("create a new order"), "\(error)")
        }
        let changes = try await stores[0].events(orderID: order.id).filter { $0.kind == .sheetUpdated }
        #expect(changes.count == OrderStoreLimits.sheetChangesPerOrder)
        let full = try #require(try await stores[1].order(id: order.id))
        #expect(full.version == order.version + Int64(OrderStoreLimits.sheetChangesPerOrder))

        // Past the limit a change is refused and changes nothing: not the total, the version or the log.
        let refused = await #expect(throws: StoreError.self) {
            try await stores[1].reprice(
                orderID: order.id, version: full.version, itemsJSON: "[]", total: Money(minorUnits: 100, currency: .cny),
                sheetJSON: "{}", record: EventRecord(kind: .sheetUpdated), now: Date())
        }
        #expect(
            refused?.message.contains("changed it \(OrderStoreLimits.sheetChangesPerOrder) times") == true, "\(String(describing: refused))"
        )
        let after = try #require(try await stores[0].order(id: order.id))
        #expect(after.version == full.version && after.total == full.total)
        #expect(try await stores[0].events(orderID: order.id).filter { $0.kind == .sheetUpdated }.count == changes.count)
        for store in stores { await store.close() }
    }

    /// Other lines in the order's log do not count: only the sheet's changes do.
    @Test func onlyTheSheetsChangesCount() async throws {
        let store = try await Backend.sqlite.store()
        let order = try await store.create(OrderStoreTests.newOrder())
        // An attempt the payer left: its closing is a line of the log, not the sheet's.
        let left = try await LedgerStoreTests.begin(store, order.id, .wechatNative, .wechatV2)
        try await store.recordPayment(
            .closed(reason: "the payer switched"), of: left.payment.id, record: .init(kind: .paymentClosed), now: Date())
        var current = try #require(try await store.order(id: order.id))
        for _ in 1..<OrderStoreLimits.sheetChangesPerOrder {
            current = try #require(
                try await store.reprice(
                    orderID: order.id, version: current.version, itemsJSON: "[]", total: Money(minorUnits: 4200, currency: .cny),
                    sheetJSON: "{}", record: EventRecord(kind: .sheetUpdated), now: Date()))
        }
        // One change is left; lines of other kinds (here the attempt's) are not counted against it.
        #expect(try await store.events(orderID: order.id).contains { $0.kind != .sheetUpdated })
        let last = try await store.reprice(
            orderID: order.id, version: current.version, itemsJSON: "[]", total: Money(minorUnits: 4300, currency: .cny),
            sheetJSON: "{}", record: EventRecord(kind: .sheetUpdated), now: Date())
        #expect(last?.total.minorUnits == 4300)
        await #expect(throws: StoreError.self) {
            try await store.reprice(
                orderID: order.id, version: last?.version ?? 0, itemsJSON: "[]", total: Money(minorUnits: 4400, currency: .cny),
                sheetJSON: "{}", record: EventRecord(kind: .sheetUpdated), now: Date())
        }
        await store.close()
    }
}
