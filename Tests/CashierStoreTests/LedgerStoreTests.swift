import Cashier
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierStore

/// Payments and refunds as records, on SQLite and PostgreSQL: attempts reserved and reused, a
/// success recorded once, a second payment kept and flagged, refunds reserved so they never add
/// up to more than was paid — from two connections at once, as two instances would.
@Suite struct LedgerStoreTests {
    typealias Backend = OrderStoreTests.Backend

    /// What a provider's check throws in these tests when it refuses an attempt.
    struct Refused: Error {}

    static func begin(
        _ store: any OrderStore, _ orderID: String, _ method: PaymentMethod, _ provider: PaymentProvider, at now: Date = Date()
    )
        async throws -> PaymentStart
    {
        try await store.beginPayment(NewPayment(orderID: orderID, method: method, provider: provider), now: now)
    }

    /// A new order with two open attempts at once: WeChat Pay Native and Alipay (`alipay`).
    static func orderWithTwoAttempts(_ store: any OrderStore, alipay: PaymentMethod = .alipayApp) async throws
        -> (order: StoredOrder, wechat: StoredPayment, alipay: StoredPayment)
    {
        let order = try await store.create(OrderStoreTests.newOrder())
        let wechat = try await begin(store, order.id, .wechatNative, .wechatV2).payment
        return (order, wechat, try await begin(store, order.id, alipay, .alipay).payment)
    }

    /// The provider accepted the attempt: the payer can pay it now.
    @discardableResult
    static func place(_ store: any OrderStore, _ payment: StoredPayment) async throws -> PaymentRecorded {
        try await store.recordPayment(.placed, of: payment.id, record: .init(kind: .paymentStarted), now: Date())
    }

    /// An attempt begun on `orderID` and placed at its provider.
    static func placed(_ store: any OrderStore, _ orderID: String, _ method: PaymentMethod, _ provider: PaymentProvider) async throws
        -> StoredPayment
    {
        let payment = try await begin(store, orderID, method, provider).payment
        try await place(store, payment)
        return payment
    }

    static func succeed(_ store: any OrderStore, _ payment: StoredPayment, duplicate: EventRecord? = nil, at now: Date = Date())
        async throws -> PaymentRecorded
    {
        try await store.recordPayment(
            .succeeded(transactionID: "T-" + payment.id, amount: payment.amount), of: payment.id, record: .init(kind: .notification),
            duplicate: duplicate, now: now)
    }

    /// Webhook event ids: `evt_` and 32 lowercase hex digits of a random UUID, never repeated.
    @Test func eventIDsAreUUIDHex() {
        let ids = (0..<1000).map { _ in SQLStatements.eventID() }
        #expect(Set(ids).count == ids.count)
        let malformed = ids.filter { id in
            !(id.hasPrefix("evt_") && id.utf8.count == 36 && id.dropFirst(4).allSatisfy { "0123456789abcdef".contains($0) }
                && id.dropFirst(4).uppercased() == UUID(uuidString: String(id.dropFirst(4)).uuidGrouped)?.uuidString.filter { $0 != "-" })
        }
        #expect(malformed.isEmpty, "\(malformed.prefix(5))")
    }

    /// A notification's success, found by its number in the same transaction: an unknown number
    /// or a refused check writes nothing; the attempt the wallet names (not another wallet's with
    /// the same number) is settled once, and a repeat is logged as a duplicate.
    @Test(arguments: Backend.available)
    func aSuccessFoundByNumberIsCheckedAndRecordedInOneTransaction(backend: Backend) async throws {
        let store = try await backend.store()
        let order = try await store.create(OrderStoreTests.newOrder())
        let wechat = try await Self.placed(store, order.id, .wechatNative, .wechatV2)
        let alipay = try await Self.placed(store, order.id, .alipayQR, .alipay)
        #expect(wechat.outTradeNo == alipay.outTradeNo)
        let outcome = PaymentOutcome.succeeded(transactionID: "42", amount: wechat.amount)
        func record(_ wallet: PaymentMethod.Wallet, _ number: String, accept: @escaping @Sendable (StoredPayment) throws -> Void = { _ in })
            async throws -> PaymentRecorded?
        {
            try await store.recordPayment(
                outcome, wallet: wallet, outTradeNo: number, accept: accept, record: .init(kind: .notification),
                duplicate: .init(kind: .notificationDuplicate), now: Date())
        }
        let before = try await store.events(orderID: order.id).count
        #expect(try await record(.wechat, order.outTradeNo + "X") == nil)
        await #expect(throws: Refused.self) { try await record(.wechat, order.outTradeNo) { _ in throw Refused() } }
        #expect(try await store.events(orderID: order.id).count == before)
        #expect(try await store.order(id: order.id)?.status == .pending)
        let seen = Mutex<[String]>([])
        guard
            case .settled(let paid, let payment) = try await record(
                .wechat, order.outTradeNo, accept: { p in seen.withLock { $0.append(p.id) } })
        else { throw Failure("the first success settles") }
        #expect(paid.status == .paid && payment.id == wechat.id && seen.withLock { $0 } == [wechat.id])
        guard case .unchanged = try await record(.wechat, order.outTradeNo) else { throw Failure("a repeat changes nothing") }
        let kinds = try await store.events(orderID: order.id).map(\.kind)
        #expect(kinds.filter { $0 == .notificationDuplicate }.count == 1 && kinds.filter { $0 == .notification }.count == 1)
        #expect(try await store.payment(wallet: .alipay, outTradeNo: alipay.outTradeNo)?.status == .pending)
    }

    /// Repeats of a recorded success — the usual notification — through the form that answers
    /// without a task (the one the merchant server's notifications take): twenty-four at once are each checked and logged once as a duplicate and change nothing; a
    /// success for another amount, or one its check refuses, writes nothing; and a first success
    /// is never taken for a repeat.
    @Test(arguments: Backend.available)
    func repeatsOfARecordedSuccessAreCheckedAndOnlyLogged(backend: Backend) async throws {
        let store = try await backend.store()
        let order = try await store.create(OrderStoreTests.newOrder())
        let payment = try await Self.placed(store, order.id, .wechatNative, .wechatV2)
        @Sendable func record(amount: Money? = nil, accept: @escaping @Sendable (StoredPayment) throws -> Void = { _ in }) async
            -> Result<PaymentRecorded?, any Error>
        {
            await withCheckedContinuation { continuation in
                store.recordPayment(
                    .succeeded(transactionID: "42", amount: amount ?? payment.amount), wallet: .wechat, outTradeNo: payment.outTradeNo,
                    accept: accept, record: .init(kind: .notification), duplicate: .init(kind: .notificationDuplicate), now: Date(),
                    then: { continuation.resume(returning: $0) })
            }
        }
        guard case .success(.settled?) = await record() else { throw Failure("the first success settles the order") }
        let repeats = await withTaskGroup(of: Result<PaymentRecorded?, any Error>.self) { group in
            for _ in 0..<24 { group.addTask { await record() } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(repeats.count == 24)
        #expect(repeats.allSatisfy { if case .success(.unchanged?) = $0 { true } else { false } })
        let otherAmount = Money(minorUnits: payment.amount.minorUnits + 1, currency: payment.amount.currency)
        guard case .failure = await record(amount: otherAmount) else { throw Failure("a success for another amount is refused") }
        guard case .failure(let refusal) = await record(accept: { _ in throw Refused() }), refusal is Refused else {
            throw Failure("a repeat its check refuses is refused")
        }
        let events = try await store.events(orderID: order.id)
        #expect(events.filter { $0.kind == .notificationDuplicate }.count == 24)
        #expect(events.filter { $0.kind == .notification }.count == 1)
        #expect(events.filter { $0.to == .paid }.count == 1)
        let recorded = try #require(try await store.payment(wallet: .wechat, outTradeNo: payment.outTradeNo))
        #expect(recorded.status == .succeeded && recorded.transactionID == "42" && recorded.amount == payment.amount)
        #expect(try await store.order(id: order.id)?.status == .paid)
    }

    @Test(arguments: Backend.available)
    func attemptsAreReusedPerKindAndNumberedPerWallet(backend: Backend) async throws {
        let store = try await backend.store()
        let order = try await store.create(OrderStoreTests.newOrder())
        let native = try await Self.begin(store, order.id, .wechatNative, .wechatV2)
        #expect(native.payment.outTradeNo == order.outTradeNo && !native.reused && native.superseded.isEmpty)
        // Reserved is not started: the order waits for the provider to accept it.
        #expect(native.order.status == .created && native.payment.status == .created)
        #expect(try await Self.place(store, native.payment).order.status == .pending)
        // The same kind again (the payer reopened the wallet): the same attempt and number.
        let again = try await Self.begin(store, order.id, .wechatNative, .wechatV2)
        #expect(again.reused && again.payment.id == native.payment.id)
        // Another wallet: its own space of numbers, so the order's number again; WeChat is superseded.
        let alipay = try await Self.begin(store, order.id, .alipayQR, .alipay)
        #expect(alipay.payment.outTradeNo == order.outTradeNo && alipay.superseded.map(\.id) == [native.payment.id])
        try await Self.place(store, alipay.payment)
        // Another WeChat method (v3, even): the wallet has seen the number, so a derived one.
        let app = try await Self.begin(store, order.id, .wechatApp, .wechatV3)
        #expect(
            app.payment.outTradeNo == order.outTradeNo + "P2" && Set(app.superseded.map(\.id)) == [native.payment.id, alipay.payment.id])
        #expect(try await store.payment(wallet: .wechat, outTradeNo: order.outTradeNo + "P2")?.id == app.payment.id)
        #expect(try await store.payment(wallet: .alipay, outTradeNo: order.outTradeNo)?.id == alipay.payment.id)
        // Closed attempts stay closed; the order stays pending while one is open.
        let closed = try await store.recordPayment(
            .closed(reason: "superseded"), of: native.payment.id, record: .init(kind: .paymentClosed), now: Date())
        guard case .updated(let stillPending, let closedPayment) = closed else { throw Failure("closing must update") }
        #expect(stillPending.status == .pending && closedPayment.status == .closed && closedPayment.failureReason == "superseded")
        let events = try await store.events(orderID: order.id)
        #expect(events.map(\.kind) == [.paymentStarted, .paymentStarted, .paymentClosed])
        #expect(events.first?.to == .pending && events.first?.detail.contains(native.payment.id) == true)
        // Placed again after it closed (a start that lost a race): nothing changes.
        guard case .unchanged = try await Self.place(store, native.payment) else { throw Failure("a closed attempt stays closed") }
    }

    /// A webhook announced under an event id the caller derived is queued once, however often and
    /// at once it is asked; every ask adds its log line.
    @Test(arguments: Backend.available)
    func anAnnouncementIsQueuedOncePerEventID(backend: Backend) async throws {
        let store = try await backend.store()
        let (order, wechat, _) = try await Self.orderWithTwoAttempts(store)
        let dispute = DisputeJSON(
            id: "dp_1", processor: "stripe", paymentID: wechat.id, amount: wechat.amount, reason: "fraudulent", status: "needs_response",
            evidenceDueBy: 1_800_000_000)
        let eventID = "evt_" + String(repeating: "ab", count: 16)
        let queued = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await store.announce(
                        "order.disputed", dispute: dispute, eventID: eventID, record: EventRecord(kind: .dispute), to: order.id, now: Date()
                    )
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(queued.filter { $0 }.count == 1, "\(queued)")
        let due = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10)
        #expect(due.map(\.id) == [eventID] && due.first?.type == "order.disputed")
        #expect(
            due.first?.payload.contains(#""dispute":{"#) == true && due.first?.payload.contains(#""evidence_due_by":1800000000"#) == true)
        #expect(try await store.events(orderID: order.id).filter { $0.kind == .dispute }.count == 8)
        await #expect(throws: StoreError.self) {
            try await store.announce("order.disputed", dispute: dispute, eventID: "evt_other", record: nil, to: "ord_none", now: Date())
        }
    }

    @Test(arguments: Backend.available)
    func aSuccessSettlesOnceAndASecondPaymentIsFlagged(backend: Backend) async throws {
        let store = try await backend.store()
        let (order, wechat, alipay) = try await Self.orderWithTwoAttempts(store, alipay: .alipayQR)
        // Another amount is never recorded as this payment's success.
        let wrong = await #expect(throws: StoreError.self) {
            try await store.recordPayment(
                .succeeded(transactionID: "x", amount: Money(minorUnits: 5099, currency: .cny)), of: alipay.id,
                record: .init(kind: .notification), now: Date())
        }
        #expect(wrong?.code == .illegalTransition)
        guard case .settled(let paid, let settling) = try await Self.succeed(store, alipay) else { throw Failure("alipay must settle") }
        #expect(
            paid.status == .paid && paid.settledPaymentID == alipay.id && !paid.refundRequired && settling.transactionID == "T-" + alipay.id
        )
        // The same success again: nothing changes, the duplicate is logged.
        guard case .unchanged = try await Self.succeed(store, alipay, duplicate: .init(kind: .notificationDuplicate)) else {
            throw Failure("a repeated success changes nothing")
        }
        // The payer pays the WeChat QR too: kept, flagged, announced — the order stays paid by Alipay.
        guard case .duplicatePayment(let still, let second) = try await Self.succeed(store, wechat) else {
            throw Failure("a second payment is a duplicate")
        }
        #expect(still.status == .paid && still.settledPaymentID == alipay.id && still.refundRequired && second.refundRequired)
        // It can be refunded; once it is, nothing is owed and the order is still paid.
        let refund = try await store.reserveRefund(NewRefund(orderID: order.id, paymentID: wechat.id), now: Date())
        #expect(refund.refund.amount == wechat.amount)
        guard
            case .changed(let settled, _) = try await store.finishRefund(
                refund.refund.id, outcome: .succeeded(providerRefundID: "r"), now: Date())
        else { throw Failure("the refund must finish") }
        #expect(settled.status == .paid && !settled.refundRequired && settled.refunded.minorUnits == 0)
        let types = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10).map(\.type)
        #expect(types == ["order.paid", "order.refund_required", "order.refunded"])
        let flagged = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10)[1].payload
        #expect(flagged.contains(#""id":"\#(wechat.id)""#) && flagged.contains(#""refund_required":true"#))
        #expect(try await store.events(orderID: order.id).filter { $0.to == .paid }.count == 1)
        #expect(try await store.events(orderID: order.id).contains { $0.kind == .duplicatePayment })
        // Nothing new starts on a paid order.
        let refused = await #expect(throws: StoreError.self) { try await Self.begin(store, order.id, .alipayApp, .alipay) }
        #expect(refused?.code == .illegalTransition)
    }

    @Test(arguments: Backend.available)
    func aPaymentForAClosedOrderIsKeptAndFlagged(backend: Backend) async throws {
        let store = try await backend.store()
        let order = try await store.create(OrderStoreTests.newOrder())
        let attempt = try await Self.begin(store, order.id, .wechatNative, .wechatV2).payment
        guard case .applied(let closed, _) = try await store.close(orderID: order.id, record: .init(kind: .close), now: Date()) else {
            throw Failure("closing must apply")
        }
        #expect(closed.status == .closed)
        #expect(try await store.payment(id: attempt.id)?.status == .closed)
        guard case .unchanged = try await store.close(orderID: order.id, record: .init(kind: .close), now: Date()) else {
            throw Failure("closing twice changes nothing")
        }
        let refused = await #expect(throws: StoreError.self) { try await Self.begin(store, order.id, .wechatApp, .wechatV2) }
        #expect(refused?.code == .illegalTransition)
        // The payer had the QR open: the money arrives anyway and must go back.
        guard case .settled(let paid, let payment) = try await Self.succeed(store, attempt) else {
            throw Failure("recorded, never dropped")
        }
        #expect(paid.status == .paid && paid.refundRequired && payment.refundRequired)
        let types = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10).map(\.type)
        #expect(types == ["order.closed", "order.paid", "order.refund_required"])
    }

    @Test(arguments: Backend.available)
    func refundsAreReservedAndNeverExceedThePayment(backend: Backend) async throws {
        let store = try await backend.store()
        let order = try await store.create(OrderStoreTests.newOrder(minor: 10_000))
        let none = await #expect(throws: StoreError.self) { try await store.reserveRefund(NewRefund(orderID: order.id), now: Date()) }
        #expect(none?.code == .illegalTransition)
        try await OrderStoreTests.pay(store, order.id)
        let yuan = { (minor: Int64) in Money(minorUnits: minor, currency: .cny) }
        let first = try await store.reserveRefund(NewRefund(orderID: order.id, amount: yuan(3000), outRefundNo: "R1"), now: Date())
        guard case .reserved(let pending, let payment) = first else { throw Failure("reserved") }
        #expect(pending.status == .pending && payment.reserved.minorUnits == 3000 && payment.refunded.minorUnits == 0)
        // The same number again is the same refund, not a second one.
        guard
            case .existing(let same, _) = try await store.reserveRefund(
                NewRefund(orderID: order.id, amount: yuan(3000), outRefundNo: "R1"), now: Date())
        else { throw Failure("a retry finds its refund") }
        #expect(same.id == pending.id)
        let reused = await #expect(throws: StoreError.self) {
            try await store.reserveRefund(NewRefund(orderID: order.id, amount: yuan(100), outRefundNo: "R1"), now: Date())
        }
        #expect(reused?.code == .conflict)
        // 70.00 is left, counting the pending 30.00: 70.01 is refused.
        let over = await #expect(throws: StoreError.self) {
            try await store.reserveRefund(NewRefund(orderID: order.id, amount: yuan(7001)), now: Date())
        }
        #expect(over?.code == .limitExceeded)
        _ = try await store.finishRefund(pending.id, outcome: .succeeded(providerRefundID: "5001"), now: Date())
        #expect(try await store.order(id: order.id)?.status == .partiallyRefunded)
        // The rest, then a failure for it: released, refundable again.
        guard case .reserved(let rest, _) = try await store.reserveRefund(NewRefund(orderID: order.id), now: Date()) else {
            throw Failure("the rest")
        }
        #expect(rest.amount.minorUnits == 7000)
        guard
            case .changed(let afterFailure, let failed) = try await store.finishRefund(
                rest.id, outcome: .failed(reason: "NOTENOUGH"), now: Date())
        else { throw Failure("the failure must be recorded") }
        #expect(afterFailure.status == .partiallyRefunded && failed.status == .failed && failed.failureReason == "NOTENOUGH")
        #expect(try await store.payments(orderID: order.id).first?.reserved.minorUnits == 3000)
        // A refund reported failed after it had succeeded takes its amount back off the order.
        guard
            case .changed(let reversed, _) = try await store.finishRefund(pending.id, outcome: .failed(reason: "REFUNDCLOSE"), now: Date())
        else { throw Failure("a late failure reverses") }
        #expect(reversed.status == .paid && reversed.refunded.minorUnits == 0)
        guard case .unchanged = try await store.finishRefund(pending.id, outcome: .succeeded(providerRefundID: nil), now: Date()) else {
            throw Failure("a failed refund does not succeed again")
        }
        let types = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 10).map(\.type)
        #expect(types == ["order.paid", "order.refunded", "order.refund_failed", "order.refund_failed"])
        #expect(try await store.events(orderID: order.id).compactMap(\.to) == [.paid, .partiallyRefunded, .paid])
    }

    @Test(arguments: Backend.available)
    func concurrentRefundsReserveOnlyWhatWasPaid(backend: Backend) async throws {
        // Two connections, as two instances: eight refunds of 30.00 on a 100.00 payment at once.
        let location = try await backend.freshLocation()
        let store = try await backend.open(location)
        let other = try await backend.open(location)
        let order = try await store.create(OrderStoreTests.newOrder(minor: 10_000))
        try await OrderStoreTests.pay(store, order.id)
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                let store = index.isMultiple(of: 2) ? store : other
                group.addTask {
                    do {
                        let reservation = try await store.reserveRefund(
                            NewRefund(orderID: order.id, amount: Money(minorUnits: 3000, currency: .cny)), now: Date())
                        _ = try await store.finishRefund(reservation.refund.id, outcome: .succeeded(providerRefundID: nil), now: Date())
                        return "refunded"
                    } catch let error as StoreError where error.code == .limitExceeded {
                        return "refused"
                    }
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "refunded" }.count == 3 && outcomes.filter { $0 == "refused" }.count == 5)
        let paid = try #require(try await store.order(id: order.id))
        #expect(paid.status == .partiallyRefunded && paid.refunded.minorUnits == 9000)
        let refunds = try await store.refunds(orderID: order.id)
        #expect(refunds.count == 3 && Set(refunds.map(\.outRefundNo)).count == 3)
    }

    @Test(arguments: Backend.available)
    func concurrentSuccessesOfOneAttemptAndOfTwoSettleOnce(backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let store = try await backend.open(location)
        let other = try await backend.open(location)
        let (order, wechat, alipay) = try await Self.orderWithTwoAttempts(store)
        // Fifty copies of each payment's success, from two connections at once.
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<100 {
                let store = index.isMultiple(of: 2) ? store : other
                let payment = index % 4 < 2 ? wechat : alipay
                group.addTask {
                    switch try await Self.succeed(store, payment) {
                    case .settled: "settled"
                    case .duplicatePayment: "duplicate"
                    default: "unchanged"
                    }
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == "settled" }.count == 1 && outcomes.filter { $0 == "duplicate" }.count == 1)
        let final = try #require(try await store.order(id: order.id))
        #expect(final.status == .paid && final.refundRequired)
        #expect(try await store.events(orderID: order.id).filter { $0.to == .paid }.count == 1)
        let types = try await store.dueOutbox(now: Date().addingTimeInterval(1), limit: 100).map(\.type)
        #expect(types == ["order.paid", "order.refund_required"])
    }

    @Test(arguments: Backend.available)
    func anOrdersWebhooksComeOutInTheOrderItsChangesCommitted(backend: Backend) async throws {
        // A caller reads the clock, then waits for the order's lock: the change committed second
        // can carry the earlier time. Ordered by that time, order.refund_required went out first
        // (seen in the concurrent test above, on PostgreSQL).
        let store = try await backend.store()
        let (order, wechat, alipay) = try await Self.orderWithTwoAttempts(store)
        let now = Date()
        guard case .settled = try await Self.succeed(store, wechat, at: now) else {
            Issue.record("not settled")
            return
        }
        guard case .duplicatePayment = try await Self.succeed(store, alipay, at: now.addingTimeInterval(-1)) else {
            Issue.record("not a duplicate")
            return
        }
        let due = try await store.dueOutbox(now: now.addingTimeInterval(1), limit: 100).map(\.type)
        #expect(due == ["order.paid", "order.refund_required"])
        #expect(try await store.outbox(orderID: order.id).map(\.type) == due)
        let claimed = try await store.claimOutbox(now: now.addingTimeInterval(1), limit: 100, lease: 30).map(\.type)
        #expect(claimed == due)
    }

    @Test(arguments: Backend.available)
    func anAuthorisationInFlightHoldsTheOrderAndATokenIsUsedOnce(backend: Backend) async throws {
        let store = try await backend.store()
        let order = try await store.create(OrderStoreTests.newOrder())
        let other = try await store.create(OrderStoreTests.newOrder())
        let now = Date()
        let authorizing = try await store.beginPayment(
            NewPayment(orderID: order.id, method: .applePay, provider: .applePay, status: .processing, walletToken: "tok-1"), now: now)
        #expect(authorizing.payment.status == .processing)
        let busy = await #expect(throws: StoreError.self) { try await Self.begin(store, order.id, .wechatNative, .wechatV2, at: now) }
        #expect(busy?.code == .inProgress)
        let closing = await #expect(throws: StoreError.self) {
            try await store.close(orderID: order.id, record: .init(kind: .close), now: now)
        }
        #expect(closing?.code == .inProgress)
        let reused = await #expect(throws: StoreError.self) {
            try await store.beginPayment(
                NewPayment(orderID: other.id, method: .applePay, provider: .applePay, status: .processing, walletToken: "tok-1"), now: now)
        }
        #expect(reused?.code == .conflict)
        // Declined: the order is free again; the token is still spent.
        _ = try await store.recordPayment(
            .failed(reason: "declined"), of: authorizing.payment.id, record: .init(kind: .applePayDeclined), now: now)
        #expect(try await store.order(id: order.id)?.status == .failed)
        let next = try await Self.begin(store, order.id, .wechatNative, .wechatV2, at: now)
        #expect(try await Self.place(store, next.payment).order.status == .pending)
        // A holder that died mid-call blocks others only for a while.
        let stuck = try await store.beginPayment(
            NewPayment(orderID: other.id, method: .applePay, provider: .applePay, status: .processing, walletToken: "tok-2"), now: now)
        #expect(stuck.payment.status == .processing)
        #expect(try await Self.begin(store, other.id, .alipayQR, .alipay, at: now.addingTimeInterval(121)).payment.method == .alipayQR)
    }

    @Test(arguments: Backend.available)
    func expiredOrdersTakeNoPayment(backend: Backend) async throws {
        let store = try await backend.store()
        var new = OrderStoreTests.newOrder()
        new.expiresAt = Date().addingTimeInterval(60)
        let order = try await store.create(new)
        let late = await #expect(throws: StoreError.self) {
            try await Self.begin(store, order.id, .wechatNative, .wechatV2, at: Date().addingTimeInterval(61))
        }
        #expect(late?.code == .illegalTransition && late?.message.contains("expired") == true)
    }

    @Test(arguments: Backend.available)
    func ordersPaidBeforeRecordsGetTheirPaymentAndRefund(backend: Backend) async throws {
        // A database as the version before payments were records left it: migrations 001–006,
        // orders moved by hand the way that version did.
        let location = try await backend.freshLocation()
        let store = try await backend.open(location, migrate: false)
        let sql = try #require(store as? any SQLOrderStore)
        let dialect: SQLDialect = backend == .sqlite ? .sqlite : .postgres
        let old = Migration.all
        _ = try await sql.withTransaction { try Migration.apply(Array(old.prefix(6)), as: dialect, on: $0.connection) }
        _ = try await sql.withTransaction { session in
            let connection = session.connection
            for (id, status, refunded) in [("ord_paid", "partially_refunded", 1000), ("ord_open", "pending", 0), ("ord_new", "created", 0)]
            {
                try connection.query(
                    """
                    INSERT INTO orders (id, out_trade_no, status, currency, total_minor, refunded_minor, description, metadata, items,
                        client_secret, created_at, updated_at) VALUES (?, ?, ?, 'CNY', 5100, ?, 'x', '{}', '[]', 's', 1, 1)
                    """, [.text(id), .text("C" + id), .text(status), .integer(Int64(refunded))])
                guard id != "ord_new" else { continue }
                try SQLStatements.insert(
                    EventRecord(kind: .paymentStarted, detail: #"{"api":"v3","appid":"wx1","method":"wechat.native"}"#), orderID: id,
                    from: nil, to: nil, at: SQLStatements.stamp(Date()), connection)
            }
        }
        #expect(try await store.migrate().count == old.count - 6)
        let paid = try #require(try await store.order(id: "ord_paid"))
        let open = try #require(try await store.order(id: "ord_open"))
        let payment = try #require(try await store.payments(orderID: paid.id).first)
        #expect(payment.provider == .wechatV3 && payment.method == .wechatNative && payment.status == .succeeded && payment.appID == "wx1")
        #expect(payment.outTradeNo == paid.outTradeNo && payment.refunded.minorUnits == 1000 && payment.reserved.minorUnits == 1000)
        #expect(try await store.refunds(orderID: paid.id).map(\.amount.minorUnits) == [1000])
        #expect(try await store.order(id: paid.id)?.settledPaymentID == payment.id)
        #expect(try await store.payments(orderID: open.id).map(\.status) == [.pending])
        #expect(try await store.payments(orderID: "ord_new").isEmpty)
        // And they go on as any other: the rest is refundable, never more.
        let rest = try await store.reserveRefund(NewRefund(orderID: paid.id), now: Date())
        #expect(rest.refund.amount.minorUnits == 4100)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}

extension String {
    /// 32 hex digits grouped 8-4-4-4-12, as a UUID is written.
    fileprivate var uuidGrouped: String {
        let characters = Array(self)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    /// A day's succeeded payments a page at a time (reconciliation): each once, in order of
    /// success then id, with several sharing one millisecond that is not a whole second, and a
    /// page boundary among them; nothing outside the day.
    @Test(arguments: OrderStoreTests.Backend.available)
    func aDaysSucceededPaymentsComeAPageAtATimeEachOnce(backend: OrderStoreTests.Backend) async throws {
        let store = try #require(try await backend.store() as? any SQLOrderStore)
        let day = Date(timeIntervalSince1970: 1_764_547_200)
        // Paid at 0.123 s (five at once), 1.001 s, 7.5 s; one the day before, one the day after, one unpaid.
        let paidAt: [Double?] = [0.123, 0.123, 0.123, 0.123, 0.123, 1.001, 7.5, -10, 86_400, nil]
        let orders = paidAt.enumerated().map { index, offset in
            HistoricalOrder(
                id: "ord_day\(index)", outTradeNo: "D\(index)", merchant: nil, createdAt: day.addingTimeInterval(-20),
                total: Money(minorUnits: 100 + Int64(index), currency: .cny), method: .wechatNative, provider: .wechatV2,
                transactionID: offset == nil ? nil : "42\(index)", paidAt: offset.map { day.addingTimeInterval($0) }, refunds: [])
        }
        try await store.insertHistory(orders)
        var read: [StoredPayment] = []
        var page = try await store.succeededPayments(from: day, until: day.addingTimeInterval(86_400), after: nil, limit: 2)
        while let last = page.last {
            read += page
            #expect(read.count <= 7, "a page came back again")
            guard read.count <= 7 else { break }
            page = try await store.succeededPayments(from: day, until: day.addingTimeInterval(86_400), after: last, limit: 2)
        }
        #expect(read.map(\.outTradeNo).sorted() == (0..<7).map { "D\($0)" })
        #expect(Set(read.map(\.id)).count == 7)
        let order = read.map { "\(Int64((($0.succeededAt ?? .distantPast).timeIntervalSince1970 * 1000).rounded())) \($0.id)" }
        #expect(order == order.sorted(), "in order of success, then id")
    }

    /// A wallet's payments by their numbers, as reconciliation asks for a batch of bill lines: more
    /// numbers than one statement takes, some unknown, one repeated, another wallet's left out.
    @Test(arguments: OrderStoreTests.Backend.available)
    func aWalletsPaymentsAreFoundByTheirNumbersInBatches(backend: OrderStoreTests.Backend) async throws {
        let store = try #require(try await backend.store() as? any SQLOrderStore)
        let day = Date(timeIntervalSince1970: 1_764_547_200)
        let orders = (0..<2_100).map { (index: Int) -> HistoricalOrder in
            let alipay = index % 7 == 0
            let created = day.addingTimeInterval(Double(index))
            return HistoricalOrder(
                id: "ord_batch\(index)", outTradeNo: "B\(index)", merchant: nil, createdAt: created,
                total: Money(minorUnits: 100, currency: .cny), method: alipay ? PaymentMethod.alipayQR : .wechatNative,
                provider: alipay ? PaymentProvider.alipay : .wechatV2, transactionID: "42\(index)",
                paidAt: created.addingTimeInterval(1), refunds: [])
        }
        try await store.insertHistory(orders)
        let asked = (0..<2_100).map { "B\($0)" } + ["B5", "nobody", "B2099"]
        let found = try await store.payments(wallet: .wechat, outTradeNos: asked)
        let expected = Set((0..<2_100).filter { $0 % 7 != 0 }.map { "B\($0)" })
        #expect(Set(found.keys) == expected)
        #expect(found.allSatisfy { $0.key == $0.value.outTradeNo && $0.value.method.wallet == .wechat })
        #expect(try await store.payments(wallet: .alipay, outTradeNos: ["B7", "B8"]).keys.sorted() == ["B7"])
    }
}
