import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// Recurring payments as records, on SQLite and PostgreSQL: a period opened once and an attempt
/// claimed once however many connections (instances) race for it; a failure recorded once; the
/// dunning schedule's end cancels the subscription; an agreement that ends cancels what is
/// charged under it; periods counted by the calendar.
@Suite struct RecurringStoreTests {
    typealias Backend = OrderStoreTests.Backend

    static func agreement(_ store: any OrderStore, active: Bool = true) async throws -> StoredAgreement {
        let (reserved, _) = try await store.reserveAgreement(
            NewAgreement(
                merchant: nil, provider: "alipay", method: "alipay.app", externalNo: "A" + UUID().uuidString.prefix(12), payer: nil,
                planID: nil, description: "会员", periodUnit: .month, periodCount: 1, singleLimit: Money(minorUnits: 3000, currency: .cny),
                firstChargeAt: nil), now: Date())
        guard active else { return reserved }
        return try await store.moveAgreement(
            reserved.id, to: AgreementProgress(status: .active, providerState: "NORMAL", providerAgreementID: "2088" + reserved.externalNo),
            now: Date()
        ).agreement
    }

    static func subscription(_ store: any OrderStore, _ agreement: StoredAgreement, anchor: Date = Date(), attempts: Int = 3) async throws
        -> StoredSubscription
    {
        try await store.createSubscription(
            NewSubscription(
                agreementID: agreement.id, amount: Money(minorUnits: 2500, currency: .cny), description: "月度会员", intervalUnit: .month,
                intervalCount: 1, anchor: anchor, maxAttempts: attempts), now: Date())
    }

    static func order(_ subscription: StoredSubscription) -> NewOrder {
        var order = OrderStoreTests.newOrder(minor: subscription.amount.minorUnits)
        order.metadata = ["subscription": subscription.id]
        return order
    }

    /// Three connections, ten tries each, at one due period: one invoice, one order, the period counted once.
    @Test(arguments: Backend.available)
    func aPeriodIsOpenedOnceWhoeverTries(backend: Backend) async throws {
        let location = try await backend.freshLocation()
        let stores = [try await backend.open(location), try await backend.open(location), try await backend.open(location)]
        let agreement = try await Self.agreement(stores[0])
        let subscription = try await Self.subscription(stores[0], agreement, anchor: Date().addingTimeInterval(-60))
        let opened = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<30 {
                let store = stores[index % 3]
                group.addTask {
                    try await store.openInvoice(
                        subscription: subscription.id, order: Self.order(subscription), whileSigning: false, now: Date())
                        == nil ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(opened == 1)
        let invoices = try await stores[1].invoices(subscriptionID: subscription.id)
        #expect(invoices.map(\.period) == [1])
        let after = try #require(try await stores[2].subscription(id: subscription.id))
        #expect(after.period == 1 && after.nextChargeAt == subscription.start(ofPeriod: 2))
        #expect(try await stores[0].dueSubscriptions(now: Date(), limit: 10).isEmpty)
        // One attempt number, claimed by one of three.
        let claims = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<9 {
                let store = stores[index % 3]
                group.addTask {
                    try await store.claimInvoiceAttempt(invoices[0].id, seen: 0, lookAgainAt: Date().addingTimeInterval(60), now: Date())
                        == nil
                        ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(claims == 1)
        #expect(try await stores[0].invoice(id: invoices[0].id)?.attempts == 1)
    }

    /// A failed attempt is recorded once (a second word of it changes nothing); the last one fails
    /// the invoice and cancels the subscription; each step has its webhook, once.
    @Test(arguments: Backend.available)
    func failuresRecordedOnceThenTheSubscriptionEnds(backend: Backend) async throws {
        let store = try await backend.store()
        let subscription = try await Self.subscription(
            store, try await Self.agreement(store), anchor: Date().addingTimeInterval(-1), attempts: 2)
        let invoice = try #require(
            try await store.openInvoice(subscription: subscription.id, order: Self.order(subscription), whileSigning: false, now: Date()))
        _ = try #require(try await store.claimInvoiceAttempt(invoice.id, seen: 0, lookAgainAt: Date(), now: Date()))
        let retry = Date().addingTimeInterval(86_400)
        let first = try await store.finishInvoice(
            invoice.id, as: .attemptFailed(reason: "ACQ.BUYER_BALANCE_NOT_ENOUGH", retryAt: retry), now: Date())
        #expect(first.changed && first.invoice.status == .open && first.invoice.failures == 1)
        let again = try await store.finishInvoice(
            invoice.id, as: .attemptFailed(reason: "ACQ.BUYER_BALANCE_NOT_ENOUGH", retryAt: retry), now: Date())
        #expect(again.invoice.failures == 1 && again.invoice.nextAttemptAt == first.invoice.nextAttemptAt)
        #expect(try await store.subscription(id: subscription.id)?.status == .pastDue)
        #expect(try await store.dueInvoices(now: Date(), limit: 10).isEmpty)
        _ = try #require(try await store.claimInvoiceAttempt(invoice.id, seen: 1, lookAgainAt: Date(), now: Date()))
        let last = try await store.finishInvoice(
            invoice.id, as: .attemptFailed(reason: "ACQ.BUYER_BALANCE_NOT_ENOUGH", retryAt: nil), now: Date())
        #expect(last.invoice.status == .failed && last.invoice.finishedAt != nil)
        let ended = try #require(try await store.subscription(id: subscription.id))
        #expect(ended.status == .canceled && ended.nextChargeAt == nil && ended.cancelReason?.contains("every attempt") == true)
        let types = try await store.outbox(orderID: invoice.orderID).map(\.type) + store.outbox(orderID: subscription.id).map(\.type)
        #expect(types.filter { $0 == "invoice.payment_failed" }.count == 2)
        #expect(types.filter { $0 == "subscription.past_due" }.count == 1)
        #expect(types.filter { $0 == "subscription.canceled" }.count == 1)
        // A paid word after the end changes nothing.
        #expect(try await store.finishInvoice(invoice.id, as: .paid, now: Date()).changed == false)
    }

    /// An agreement the payer ends cancels its subscriptions and voids their open invoice; an ended
    /// agreement never moves back; a subscription cannot be made under it.
    @Test(arguments: Backend.available)
    func anAgreementThatEndsStopsItsCharges(backend: Backend) async throws {
        let store = try await backend.store()
        let agreement = try await Self.agreement(store)
        let subscription = try await Self.subscription(store, agreement, anchor: Date().addingTimeInterval(-1))
        let invoice = try #require(
            try await store.openInvoice(subscription: subscription.id, order: Self.order(subscription), whileSigning: false, now: Date()))
        let ended = try await store.moveAgreement(
            agreement.id, to: AgreementProgress(status: .terminated, providerState: "UNSIGN", reason: "the payer unsigned"), now: Date())
        #expect(ended.agreement.status == .terminated && ended.agreement.endReason == "the payer unsigned")
        #expect(try await store.subscription(id: subscription.id)?.status == .canceled)
        #expect(try await store.invoice(id: invoice.id)?.status == .void)
        let back = try await store.moveAgreement(agreement.id, to: AgreementProgress(status: .active, providerState: "NORMAL"), now: Date())
        #expect(back == .unchanged(ended.agreement))
        await #expect(throws: StoreError.self) { try await Self.subscription(store, ended.agreement) }
        #expect(try await store.outbox(orderID: agreement.id).map(\.type) == ["agreement.active", "agreement.terminated"])
    }

    /// Pause, then resume after two periods went by: those are not charged; the next one is.
    @Test(arguments: Backend.available)
    func resumingSkipsThePeriodsWhilePaused(backend: Backend) async throws {
        let store = try await backend.store()
        let anchor = Date().addingTimeInterval(-70 * 86_400)
        let subscription = try await Self.subscription(store, try await Self.agreement(store), anchor: anchor)
        #expect(try await store.changeSubscription(subscription.id, to: .paused, reason: nil, now: Date()).subscription.status == .paused)
        #expect(try await store.dueSubscriptions(now: Date(), limit: 10).isEmpty)
        let resumed = try await store.changeSubscription(subscription.id, to: .active, reason: nil, now: Date()).subscription
        #expect(resumed.status == .active)
        let next = try #require(resumed.nextChargeAt)
        #expect(next >= Date().addingTimeInterval(-1) && resumed.period >= 2)
        // Resuming again changes nothing; past_due is not the merchant's to set.
        #expect(try await store.changeSubscription(subscription.id, to: .active, reason: nil, now: Date()).changed == false)
        await #expect(throws: StoreError.self) {
            try await store.changeSubscription(subscription.id, to: .pastDue, reason: nil, now: Date())
        }
    }

    /// Months in Beijing time keep the anchor's day where the month has it.
    @Test func monthlyPeriodsKeepTheDay() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Shanghai")!
        let anchor = try #require(calendar.date(from: DateComponents(year: 2027, month: 1, day: 31, hour: 10)))
        let days = (1...3).map {
            calendar.component(.day, from: StoredSubscription.start(anchor: anchor, unit: .month, count: 1, period: $0))
        }
        #expect(days == [31, 28, 31])
        let weekly = StoredSubscription.start(anchor: anchor, unit: .week, count: 2, period: 3)
        #expect(weekly.timeIntervalSince(anchor) == 28 * 86_400)
    }
}
