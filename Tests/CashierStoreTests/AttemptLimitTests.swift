import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// An order takes at most ``OrderStoreLimits/attemptsPerOrder`` payment attempts, counted in the
/// transaction that locks the order, so that two servers sharing the database cannot pass it.
@Suite struct AttemptLimitTests {
    typealias Backend = OrderStoreTests.Backend

    /// Eight payers' pages switching wallets at once through two store instances (two servers on
    /// one database), each closing its attempt as the server does when the payer switches, until
    /// refused. The order ends with exactly the limit of attempts. Every page is refused in the
    /// end, with a message that says what to do, and nothing else fails.
    @Test(arguments: Backend.available)
    func anOrderTakesAtMostItsLimitOfAttemptsFromEveryInstanceAtOnce(backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let stores = [try await backend.open(location), try await backend.open(location, migrate: false)]
        let order = try await stores[0].create(OrderStoreTests.newOrder())
        let kinds: [(PaymentMethod, PaymentProvider)] = [
            (.wechatNative, .wechatV2), (.alipayQR, .alipay), (.wechatApp, .wechatV2), (.alipayApp, .alipay),
        ]
        let results = await withTaskGroup(of: Result<Int, any Error>.self) { group in
            for page in 0..<8 {
                let store = stores[page % stores.count]
                group.addTask {
                    for switches in 0..<200 {
                        let (method, provider) = kinds[(page + switches) % kinds.count]
                        do {
                            let start = try await LedgerStoreTests.begin(store, order.id, method, provider)
                            try await store.recordPayment(
                                .closed(reason: "the payer switched"), of: start.payment.id, record: .init(kind: .paymentClosed),
                                now: Date())
                        } catch let error as StoreError where error.code == .busy {
                            continue  // a lock held past the store's own retries: the page tries again
                        } catch {
                            return .failure(error)
                        }
                    }
                    return .success(200)
                }
            }
            return await group.reduce(into: [Result<Int, any Error>]()) { $0.append($1) }
        }
        let refusals = results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        #expect(refusals.count == 8)
        for refusal in refusals {
            let error = try #require(refusal as? StoreError, "\(refusal)")
            #expect(error.code == .illegalTransition && error.message.contains("create a new order"), "\(error)")
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
}
