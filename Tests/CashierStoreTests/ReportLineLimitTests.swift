import Cashier
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierStore

/// An order's log keeps a bounded number of lines of providers' messages that changed nothing
/// (``ReportLineLimit``): copies past it are still checked and answered, but only counted, so a
/// replayed notification cannot grow the log without end. Changes are always logged.
@Suite struct ReportLineLimitTests {
    typealias Backend = OrderStoreTests.Backend

    /// A copy of the notification that paid the order: the same body, so the same hash.
    static let body = EventRecord(
        kind: .notification, detail: #"{"result_code":"SUCCESS"}"#, bodySHA256: String(repeating: "ab", count: 32))

    static func repeatOf(_ store: any OrderStore, _ payment: StoredPayment) async throws -> PaymentRecorded? {
        try await store.recordPayment(
            .succeeded(transactionID: "42", amount: payment.amount), wallet: .wechat, outTradeNo: payment.outTradeNo, accept: { _ in },
            record: body, duplicate: EventRecord(kind: .notificationDuplicate, detail: body.detail, bodySHA256: body.bodySHA256),
            now: Date())
    }

    /// Forty copies at once of the notification that paid an order whose log keeps six: all are
    /// answered as repeats, six lines of the provider's messages are in the log (the paying one and
    /// five repeats), and the other thirty-five are counted. A provider's message appended later is
    /// left out too; a line of the merchant's own is logged, and so is a change (a refund).
    @Test(arguments: Backend.available)
    func copiesPastTheLimitAreAnsweredAndCountedNotLogged(backend: Backend) async throws {
        let store = try await backend.open(try await backend.freshLocation(), reportLines: 6)
        defer { Task { await store.close() } }
        let order = try await store.create(OrderStoreTests.newOrder())
        let payment = try await LedgerStoreTests.placed(store, order.id, .wechatNative, .wechatV2)
        guard case .settled? = try await Self.repeatOf(store, payment) else { throw LedgerStoreTests.Failure("the first success settles") }
        let copies = try await withThrowingTaskGroup(of: PaymentRecorded?.self) { group in
            for _ in 0..<40 { group.addTask { try await Self.repeatOf(store, payment) } }
            return try await group.reduce(into: [PaymentRecorded?]()) { $0.append($1) }
        }
        #expect(copies.count == 40)
        #expect(copies.allSatisfy { if case .unchanged? = $0 { true } else { false } })
        var events = try await store.events(orderID: order.id)
        #expect(events.filter { $0.bodySHA256 != nil }.count == 6)
        #expect(events.filter { $0.kind == .notificationDuplicate }.count == 5)
        #expect(store.unloggedReportLines == 35)

        try await store.append(
            EventRecord(kind: .refundNotification, bodySHA256: String(repeating: "cd", count: 32)), to: order.id, now: Date())
        try await store.append(EventRecord(kind: .webhookResent, detail: #"{"by":"api"}"#), to: order.id, now: Date())
        let refund = try await store.reserveRefund(
            NewRefund(orderID: order.id, paymentID: payment.id, amount: Money(minorUnits: 100, currency: payment.amount.currency)),
            now: Date()
        ).refund
        _ = try await store.finishRefund(refund.id, outcome: .succeeded(providerRefundID: "R1"), now: Date())
        events = try await store.events(orderID: order.id)
        #expect(events.filter { $0.bodySHA256 != nil }.count == 6)
        #expect(events.contains { $0.kind == .webhookResent })
        #expect(events.contains { $0.kind == .refund })
        #expect(store.unloggedReportLines == 36)
        #expect(try await store.order(id: order.id)?.refunded.minorUnits == 100)
    }

    /// Copies of a processor's dispute webhook, eight at once: one announces it, with its line;
    /// the copies' lines stop at the order's limit. One webhook is queued.
    @Test(arguments: Backend.available)
    func copiesOfAnAnnouncedDisputeAreLoggedUpToTheLimit(backend: Backend) async throws {
        let store = try await backend.open(try await backend.freshLocation(), reportLines: 3)
        defer { Task { await store.close() } }
        let (order, wechat, _) = try await LedgerStoreTests.orderWithTwoAttempts(store)
        let dispute = DisputeJSON(
            id: "dp_1", processor: "adyen", paymentID: wechat.id, amount: wechat.amount, reason: "fraudulent", status: "needs_response",
            evidenceDueBy: 1_800_000_000)
        let record = EventRecord(kind: .dispute, bodySHA256: String(repeating: "ef", count: 32))
        let queued = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await store.announce(
                        "order.disputed", dispute: dispute, eventID: "evt_dp_1", record: record, to: order.id, now: Date())
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(queued.filter { $0 }.count == 1)
        #expect(try await store.events(orderID: order.id).filter { $0.kind == .dispute }.count == 3)
        #expect(store.unloggedReportLines == 5)
        #expect(try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10).map(\.id) == ["evt_dp_1"])
    }

    /// Another instance on the same database (a restart, or a second server) reads the order's
    /// count from the log rather than starting at nothing.
    @Test(arguments: Backend.available)
    func anotherInstanceReadsTheCountFromTheLog(backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let first = try await backend.open(location, reportLines: 4)
        let order = try await first.create(OrderStoreTests.newOrder())
        let payment = try await LedgerStoreTests.placed(first, order.id, .wechatNative, .wechatV2)
        for _ in 0..<5 { _ = try await Self.repeatOf(first, payment) }  // the success, then four repeats
        #expect(first.unloggedReportLines == 1)
        await first.close()

        let second = try await backend.open(location, migrate: false, reportLines: 4)
        defer { Task { await second.close() } }
        #expect(try await Self.repeatOf(second, payment).map { if case .unchanged = $0 { true } else { false } } == true)
        #expect(try await second.events(orderID: order.id).filter { $0.bodySHA256 != nil }.count == 4)
        #expect(second.unloggedReportLines == 1)
        // A larger limit on the next start logs again, up to it.
        let third = try await backend.open(location, migrate: false, reportLines: 5)
        defer { Task { await third.close() } }
        _ = try await Self.repeatOf(third, payment)
        _ = try await Self.repeatOf(third, payment)
        #expect(try await third.events(orderID: order.id).filter { $0.bodySHA256 != nil }.count == 5)
        #expect(third.unloggedReportLines == 1)
    }

    /// Eight threads admitting lines for one order at once admit exactly the limit, and count the rest.
    @Test func concurrentAdmissionsStopAtTheLimit() async throws {
        final class Tally: Sendable {
            let admitted = Atomic<Int>(0)
            let reads = Atomic<Int>(0)
        }
        let limit = ReportLineLimit(perOrder: 100)
        let tally = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await onOwnThread {
                        for _ in 0..<50 {
                            let admitted = limit.admit("ord_1") {
                                tally.reads.add(1, ordering: .relaxed)
                                return 0
                            }
                            if admitted { tally.admitted.add(1, ordering: .relaxed) }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(tally.admitted.load(ordering: .relaxed) == 100)
        #expect(limit.unlogged == 300)
        #expect((1...8).contains(tally.reads.load(ordering: .relaxed)))
    }

    /// An order forgotten (after many others were counted) is read from the log again, and a full
    /// one stays full.
    @Test func aForgottenOrderIsReadAgain() {
        let limit = ReportLineLimit(perOrder: 3)
        var reads = 0
        for _ in 0..<5 {
            _ = limit.admit("ord_full") {
                reads += 1
                return 0
            }
        }
        #expect(reads == 1 && limit.unlogged == 2)
        for index in 0..<20_000 { _ = limit.admit("ord_\(index)") { 0 } }
        #expect(
            !limit.admit("ord_full") {
                reads += 1
                return 3
            })
        #expect(reads == 2)
        #expect(limit.unlogged == 3)
    }
}
