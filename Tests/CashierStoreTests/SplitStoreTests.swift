import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// Profit sharing as records, on SQLite and PostgreSQL: splits reserved against the payment with
/// refunds — from two connections at once, as two instances would — so that together they never
/// exceed what was paid; shares closed or failed give their money back; returns bounded by their
/// share; the order's sharing ended once; receivers kept once.
@Suite struct SplitStoreTests {
    typealias Backend = OrderStoreTests.Backend
    typealias Failure = LedgerStoreTests.Failure

    /// A paid order of `minor` placed for profit sharing, and its payment.
    static func sharedOrder(_ store: any OrderStore, minor: Int64 = 10_000, sharing: Bool = true) async throws
        -> (order: StoredOrder, payment: StoredPayment)
    {
        var new = OrderStoreTests.newOrder(minor: minor)
        new.profitSharing = sharing
        let order = try await store.create(new)
        try await OrderStoreTests.pay(store, order.id, method: .wechatNative, provider: .wechatV3)
        let payment = try #require(try await store.payments(orderID: order.id).first)
        return (order, payment)
    }

    static func split(_ orderID: String, _ amounts: [Int64], finish: Bool = false, number: String = "S" + UUID().uuidString.prefix(8))
        -> NewSplit
    {
        NewSplit(
            id: "spl_" + UUID().uuidString.prefix(12), orderID: orderID, merchant: nil, outOrderNo: number,
            shares: amounts.enumerated().map { index, amount in
                StoredSplit.Share(type: "MERCHANT_ID", account: "19000001\(index)", amountMinor: amount, description: "分成")
            }, finish: finish, description: "分账")
    }

    static func finished(_ split: StoredSplit, closing: Set<String> = []) -> SplitProgress {
        SplitProgress(
            status: .finished, providerState: "FINISHED", providerOrderID: "P" + split.outOrderNo,
            shares: split.shares.map {
                .init(
                    type: $0.type, account: $0.account, result: closing.contains($0.account) ? .closed : .succeeded,
                    failReason: closing.contains($0.account) ? "NO_RELATION" : nil, detailID: "D" + $0.account)
            })
    }

    @Test(arguments: Backend.available)
    func anOrderNotPlacedForSharingOrNotPaidIsNotShared(backend: Backend) async throws {
        let store = try await backend.store()
        let (plain, _) = try await Self.sharedOrder(store, sharing: false)
        let refused = await #expect(throws: StoreError.self) { try await store.reserveSplit(Self.split(plain.id, [100]), now: Date()) }
        #expect(refused?.code == .illegalTransition && refused?.message.contains("profit_sharing") == true)
        var unpaid = OrderStoreTests.newOrder()
        unpaid.profitSharing = true
        let created = try await store.create(unpaid)
        #expect(created.profitSharing)
        let notPaid = await #expect(throws: StoreError.self) { try await store.reserveSplit(Self.split(created.id, [100]), now: Date()) }
        #expect(notPaid?.code == .illegalTransition)
        let none = try await store.splits(orderID: plain.id) + store.splits(orderID: created.id)
        #expect(none.isEmpty)
    }

    /// Eight splits and eight refunds of 20.00 on a 100.00 payment, at once from two connections:
    /// five of the sixteen go through, whichever they are, and the payment's counts add up.
    @Test(arguments: Backend.available)
    func splitsAndRefundsAtOnceNeverMoveMoreThanWasPaid(backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let store = try await backend.open(location)
        let other = try await backend.open(location)
        let (order, payment) = try await Self.sharedOrder(store)
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<16 {
                let store = index.isMultiple(of: 2) ? store : other
                group.addTask {
                    do {
                        if index % 4 < 2 {
                            _ = try await store.reserveSplit(Self.split(order.id, [2000]), now: Date())
                            return "split"
                        }
                        _ = try await store.reserveRefund(
                            NewRefund(orderID: order.id, amount: Money(minorUnits: 2000, currency: .cny)), now: Date())
                        return "refund"
                    } catch let error as StoreError where error.code == .limitExceeded {
                        return "refused"
                    }
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 != "refused" }.count == 5, "\(outcomes)")
        let now = try #require(try await store.payment(id: payment.id))
        let splits = try await store.splits(orderID: order.id)
        let refunds = try await store.refunds(orderID: order.id)
        #expect(now.sharedMinor == splits.reduce(0) { $0 + $1.amount.minorUnits })
        #expect(now.reserved.minorUnits == refunds.reduce(0) { $0 + $1.amount.minorUnits })
        #expect(now.sharedMinor + now.reserved.minorUnits == 10_000 && now.refundable.minorUnits == 0)
    }

    @Test(arguments: Backend.available)
    func aRefundOfASharedOrderSaysToReturnTheSharesFirst(backend: Backend) async throws {
        let store = try await backend.store()
        let (order, _) = try await Self.sharedOrder(store)
        _ = try await store.reserveSplit(Self.split(order.id, [3000]), now: Date())
        let refused = await #expect(throws: StoreError.self) {
            try await store.reserveRefund(NewRefund(orderID: order.id, amount: Money(minorUnits: 8000, currency: .cny)), now: Date())
        }
        #expect(refused?.code == .limitExceeded && refused?.message.contains("Return the shares first") == true)
        // What is not shared may be refunded; "everything left" is what is not shared.
        let rest = try await store.reserveRefund(NewRefund(orderID: order.id), now: Date())
        #expect(rest.refund.amount.minorUnits == 7000)
    }

    /// The provider's answers: accepted, then finished with one share closed (its money is the
    /// merchant's again); a word about an earlier state, or after the end, moves nothing; a
    /// failure releases the whole split. Each move queues its webhook under the order.
    @Test(arguments: Backend.available)
    func sharesClosedOrFailedGiveTheirMoneyBack(backend: Backend) async throws {
        let store = try await backend.store()
        let (order, payment) = try await Self.sharedOrder(store)
        let split = try await store.reserveSplit(Self.split(order.id, [1000, 500]), now: Date()).split
        #expect(try await store.payment(id: payment.id)?.sharedMinor == 1500)
        let processing = SplitProgress(status: .processing, providerState: "PROCESSING", providerOrderID: "P1")
        guard case .changed = try await store.moveSplit(split.id, to: processing, now: Date()) else { throw Failure("accepted") }
        guard
            case .changed(_, let done) = try await store.moveSplit(split.id, to: Self.finished(split, closing: ["190000011"]), now: Date())
        else { throw Failure("finished") }
        #expect(
            done.status == .finished && done.shares.map(\.result) == [.succeeded, .closed] && done.providerOrderID == "P" + split.outOrderNo
        )
        #expect(try await store.payment(id: payment.id)?.sharedMinor == 1000)
        guard case .unchanged = try await store.moveSplit(split.id, to: processing, now: Date()) else { throw Failure("final stays") }
        let failing = try await store.reserveSplit(Self.split(order.id, [700]), now: Date()).split
        #expect(try await store.payment(id: payment.id)?.sharedMinor == 1700)
        _ = try await store.moveSplit(
            failing.id,
            to: SplitProgress(status: .failed, providerState: "REFUSED", providerOrderID: nil, failureReason: "INVALID_REQUEST"),
            now: Date())
        #expect(try await store.payment(id: payment.id)?.sharedMinor == 1000)
        let queued = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 20).filter { $0.type.hasPrefix("split.") }
        #expect(queued.map(\.type) == ["split.created", "split.finished", "split.failed"])
        #expect(queued.allSatisfy { $0.orderID == order.id })
        #expect(try await store.unfinishedSplits(before: Date().addingTimeInterval(1), limit: 10).isEmpty)
    }

    /// Returns: never more than the share brought less other returns (those pending count); a
    /// success gives the money back to the payment, a failure gives the share its room back.
    @Test(arguments: Backend.available)
    func returnsAreBoundedByTheirShare(backend: Backend) async throws {
        let store = try await backend.store()
        let (order, payment) = try await Self.sharedOrder(store)
        let split = try await store.reserveSplit(Self.split(order.id, [1000]), now: Date()).split
        let notYet = await #expect(throws: StoreError.self) {
            try await store.reserveSplitReturn(
                NewSplitReturn(
                    id: "sret_a", splitID: split.id, outReturnNo: "Ba", account: "190000010", amountMinor: 100, description: "x"),
                now: Date())
        }
        #expect(notYet?.code == .illegalTransition)
        _ = try await store.moveSplit(split.id, to: Self.finished(split), now: Date())
        func ask(_ number: String, _ amount: Int64) async throws -> StoredSplitReturn {
            try await store.reserveSplitReturn(
                NewSplitReturn(
                    id: "sret_" + number, splitID: split.id, outReturnNo: number, account: "190000010", amountMinor: amount,
                    description: "退款"),
                now: Date()
            ).splitReturn
        }
        let first = try await ask("B1", 600)
        let tooMuch = await #expect(throws: StoreError.self) { try await ask("B2", 500) }
        #expect(tooMuch?.code == .limitExceeded)
        #expect(try await ask("B1", 600).id == first.id)  // the same number: the same return
        let conflict = await #expect(throws: StoreError.self) { try await ask("B1", 300) }
        #expect(conflict?.code == .conflict)
        let back = try await store.moveSplitReturn(
            first.id, to: SplitReturnProgress(status: .succeeded, providerState: "SUCCESS", providerReturnID: "R1"), now: Date())
        #expect(back.status == .succeeded)
        #expect(try await store.payment(id: payment.id)?.sharedMinor == 400)
        let second = try await ask("B3", 400)
        _ = try await store.moveSplitReturn(
            second.id,
            to: SplitReturnProgress(status: .failed, providerState: "FAILED", providerReturnID: nil, failureReason: "BALANCE_NOT_ENOUGH"),
            now: Date())
        #expect(try await store.payment(id: payment.id)?.sharedMinor == 400)
        #expect(try await store.split(id: split.id)?.shares.first?.returnableMinor == 400)
        #expect(try await store.splitReturns(orderID: order.id).map(\.status) == [.succeeded, .failed])
        let types = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 20).map(\.type).filter { $0.hasPrefix("split.") }
        #expect(types.suffix(2) == ["split.returned", "split.return_failed"])
    }

    @Test(arguments: Backend.available)
    func finishingEndsTheOrdersSharingAndANumberIsOneSplit(backend: Backend) async throws {
        let store = try await backend.store()
        let (order, _) = try await Self.sharedOrder(store)
        let first = Self.split(order.id, [100], number: "Sone")
        guard case .reserved(let made) = try await store.reserveSplit(first, now: Date()) else { throw Failure("reserved") }
        guard case .existing(let again) = try await store.reserveSplit(first, now: Date()), again.id == made.id else {
            throw Failure("the same number is the same split")
        }
        let (otherOrder, _) = try await Self.sharedOrder(store)
        let misused = await #expect(throws: StoreError.self) {
            try await store.reserveSplit(Self.split(otherOrder.id, [100], number: "Sone"), now: Date())
        }
        #expect(misused?.code == .conflict)
        _ = try await store.reserveSplit(Self.split(order.id, [], finish: true), now: Date())
        let ended = await #expect(throws: StoreError.self) { try await store.reserveSplit(Self.split(order.id, [100]), now: Date()) }
        #expect(ended?.code == .illegalTransition && ended?.message.contains("finished") == true)
    }

    @Test(arguments: Backend.available)
    func receiversAreKeptOncePerMerchantProviderAndAccount(backend: Backend) async throws {
        let store = try await backend.store()
        func receiver(_ id: String, merchant: String? = nil, relation: String = "STORE") -> StoredReceiver {
            StoredReceiver(
                id: id, merchant: merchant, provider: "wechat.v3", type: "MERCHANT_ID", account: "1900000109", relationType: relation,
                customRelation: nil, status: .active, createdAt: Date(), updatedAt: Date())
        }
        let made = try await store.saveReceiver(receiver("rcv_1"), now: Date())
        #expect(made.created && made.receiver.id == "rcv_1")
        let again = try await store.saveReceiver(receiver("rcv_2", relation: "PARTNER"), now: Date())
        #expect(!again.created && again.receiver.id == "rcv_1" && again.receiver.relationType == "PARTNER")
        let north = try await store.saveReceiver(receiver("rcv_3", merchant: "north"), now: Date())
        #expect(north.created)
        #expect(try await store.receivers(merchant: nil, includingRemoved: false, limit: 10, offset: 0).map(\.id) == ["rcv_1"])
        #expect(try await store.removeReceiver("rcv_1", now: Date()).status == .removed)
        #expect(try await store.receivers(merchant: nil, includingRemoved: false, limit: 10, offset: 0).isEmpty)
        #expect(try await store.saveReceiver(receiver("rcv_4"), now: Date()).receiver.status == .active)
    }
}
