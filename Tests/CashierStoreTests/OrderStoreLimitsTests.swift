import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// The bounds of ``OrderStoreLimits``: an order takes at most
/// ``OrderStoreLimits/attemptsPerOrder`` payment attempts, and its payment sheet may reprice it
/// at most ``OrderStoreLimits/sheetChangesPerOrder`` times. Each is counted in the transaction
/// that locks the order, so that two servers sharing the database cannot pass it together, and a
/// refused step changes nothing.
@Suite struct OrderStoreLimitsTests {
    typealias Backend = OrderStoreTests.Backend

    /// Eight callers at once through two store instances (two servers on one database), each
    /// taking `step` (its number, the step's number) over and over until it is refused; a lock
    /// held past the store's own retries (`busy`) is tried again. Every caller must be refused in
    /// the end, with a message that says what to do, and nothing else may fail.
    static func everyCallerIsRefused(
        _ stores: [any OrderStore], _ step: @escaping @Sendable (any OrderStore, Int, Int) async throws -> Void
    ) async throws {
        let results = await withTaskGroup(of: Result<Int, any Error>.self) { group in
            for caller in 0..<8 {
                let store = stores[caller % stores.count]
                group.addTask {
                    for number in 0..<1_000 {
                        do {
                            try await step(store, caller, number)
                        } catch let error as StoreError where error.code == .busy {
                            continue
                        } catch {
                            return .failure(error)
                        }
                    }
                    return .success(1_000)
                }
            }
            return await group.reduce(into: [Result<Int, any Error>]()) { $0.append($1) }
        }
        let refusals = results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        #expect(refusals.count == 8, "every caller is refused in the end: \(results)")
        for refusal in refusals {
            let error = try #require(refusal as? StoreError, "\(refusal)")
            #expect(error.code == .illegalTransition && error.message.contains("create a new order"), "\(error)")
        }
    }

    /// Eight payers' pages switching wallets at once, each closing its attempt as the server does
    /// when the payer switches, until refused. The order ends with exactly the limit of attempts.
    @Test(arguments: Backend.available)
    func anOrderTakesAtMostItsLimitOfAttemptsFromEveryInstanceAtOnce(backend: Backend) async throws {
        let stores = try await backend.twoInstances()
        let order = try await stores[0].create(OrderStoreTests.newOrder())
        let kinds: [(PaymentMethod, PaymentProvider)] = [
            (.wechatNative, .wechatV2), (.alipayQR, .alipay), (.wechatApp, .wechatV2), (.alipayApp, .alipay),
        ]
        try await Self.everyCallerIsRefused(stores) { store, page, switches in
            let (method, provider) = kinds[(page + switches) % kinds.count]
            let start = try await LedgerStoreTests.begin(store, order.id, method, provider)
            try await store.recordPayment(
                .closed(reason: "the payer switched"), of: start.payment.id, record: .init(kind: .paymentClosed), now: Date())
        }
        #expect(try await stores[0].payments(orderID: order.id).count == OrderStoreLimits.attemptsPerOrder)

        // Past the limit, a new kind is refused; none was added.
        await #expect(throws: StoreError.self) { try await LedgerStoreTests.begin(stores[1], order.id, .wechatH5, .wechatV2) }
        #expect(try await stores[0].payments(orderID: order.id).count == OrderStoreLimits.attemptsPerOrder)
        for store in stores { await store.close() }
    }

    /// The open attempt of the same kind is reused whatever the count: the payer reopening the
    /// wallet is not refused once the order is full.
    @Test func theOpenAttemptIsReusedAtTheLimit() async throws {
        let store = try await Backend.sqlite.store()
        let order = try await store.create(OrderStoreTests.newOrder())
        for _ in 1..<OrderStoreLimits.attemptsPerOrder {
            let start = try await LedgerStoreTests.begin(store, order.id, .wechatNative, .wechatV2)
            try await store.recordPayment(
                .closed(reason: "switched"), of: start.payment.id, record: .init(kind: .paymentClosed), now: Date())
        }
        let last = try await LedgerStoreTests.begin(store, order.id, .alipayQR, .alipay)
        #expect(!last.reused)
        let again = try await LedgerStoreTests.begin(store, order.id, .alipayQR, .alipay)
        #expect(again.reused && again.payment.id == last.payment.id)
        await #expect(throws: StoreError.self) { try await LedgerStoreTests.begin(store, order.id, .wechatNative, .wechatV2) }
        await store.close()
    }

    /// Eight sheets changing one order at once, each reading the order again when its version
    /// moved, until refused. The log ends with exactly the limit of changes and the order's
    /// version moved once for each.
    @Test(arguments: Backend.available)
    func anOrderIsRepricedAtMostItsLimitFromEveryInstanceAtOnce(backend: Backend) async throws {
        let stores = try await backend.twoInstances()
        let order = try await stores[0].create(OrderStoreTests.newOrder(minor: 5100))
        try await Self.everyCallerIsRefused(stores) { store, sheet, change in
            guard let current = try await store.order(id: order.id) else { return }
            _ = try await Self.reprice(store, current, to: 5100 + Int64((sheet + change) % 3) * 1000)
        }
        let changes = try await stores[0].events(orderID: order.id).filter { $0.kind == .sheetUpdated }
        #expect(changes.count == OrderStoreLimits.sheetChangesPerOrder)
        let full = try #require(try await stores[1].order(id: order.id))
        #expect(full.version == order.version + Int64(OrderStoreLimits.sheetChangesPerOrder))

        // Past the limit a change is refused and changes nothing: not the total, the version or the log.
        let refused = await #expect(throws: StoreError.self) { try await Self.reprice(stores[1], full, to: 100) }
        let limit = OrderStoreLimits.sheetChangesPerOrder
        #expect(refused?.message.contains("changed it \(limit) times") == true, "\(String(describing: refused))")
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
            current = try #require(try await Self.reprice(store, current, to: 4200))
        }
        #expect(try await store.events(orderID: order.id).contains { $0.kind != .sheetUpdated })
        // One change is left.
        let last = try #require(try await Self.reprice(store, current, to: 4300))
        #expect(last.total.minorUnits == 4300)
        await #expect(throws: StoreError.self) { try await Self.reprice(store, last, to: 4400) }
        await store.close()
    }

    /// Reprices `order` (at its version) to `minor` fen, as a sheet's change does.
    static func reprice(_ store: any OrderStore, _ order: StoredOrder, to minor: Int64) async throws -> StoredOrder? {
        try await store.reprice(
            orderID: order.id, version: order.version, itemsJSON: "[]", total: Money(minorUnits: minor, currency: .cny),
            sheetJSON: "{}", record: EventRecord(kind: .sheetUpdated, detail: #"{"total_minor":"\#(minor)"}"#), now: Date())
    }
}
