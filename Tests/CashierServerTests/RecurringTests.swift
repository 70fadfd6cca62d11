import Cashier
import CashierServer
import CashierStore
import CashierWire
import Foundation
import TestSupport
import Testing

@testable import CashierSandbox

/// Recurring payments end to end, for each wallet, on SQLite and on three PostgreSQL instances:
/// an agreement signed by the payer in the sandbox (never on the app's word), a subscription
/// charged three periods with the clock advanced — the job run on every instance at once, no
/// period charged twice —, a failed charge retried on the dunning schedule, and the payer's
/// unsign stopping the charges; the books agree with the sandbox's at the end.
@Suite struct RecurringTests {
    typealias Backend = MoneyWorld.Backend

    /// 2027-01-10 12:00 in Beijing: a monthly anchor on the 10th (Alipay takes days 1 to 28).
    static let start = Date(timeIntervalSince1970: 1_799_553_600)

    static func world(_ backend: Backend, clock: ManualClock) async throws -> MoneyWorld {
        let world = try await MoneyWorld(backend, clock: clock) { configuration in
            configuration.recurringInterval = .seconds(3600)  // the test runs the job itself
            configuration.recurringRetryDelays = [86_400]
        }
        await world.sandbox.alipay.setAgreementClock { clock.now() }
        return world
    }

    /// The job run on every instance at once, then the notifications it caused answered.
    static func runJob(_ world: MoneyWorld) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for server in world.servers {
                group.addTask { _ = try await server.chargeDue() }
            }
            try await group.waitForAll()
        }
        await world.settled()
    }

    /// The subscription's invoices, oldest first.
    static func invoices(_ world: MoneyWorld, _ id: String) async throws -> [[String: Any]] {
        let read = try await world.call("GET", "/v1/subscriptions/\(id)")
        try #require(read.status == 200, "\(read.object)")
        return ((read.object["invoices"] as? [[String: Any]]) ?? []).reversed()
    }

    static func webhookTypes(_ world: MoneyWorld) -> [String] {
        var seen: Set<String> = []
        return world.receiver.received.compactMap { delivery -> String? in
            guard let event = try? JSONDecoder().decode(RecurringEventJSON.self, from: Data(delivery.body)), seen.insert(event.id).inserted
            else { return nil }
            return event.type
        }
    }

    @Test(.timeLimit(.minutes(5)), arguments: Backend.available)
    func alipayChargesThreePeriodsRetriesAndStopsWhenThePayerUnsigns(backend: Backend) async throws {
        let clock = ManualClock(Self.start)
        let world = try await Self.world(backend, clock: clock)
        let appID = try #require(world.mode.configuration.alipay?.appID)
        await world.sandbox.alipay.setApplicationGateway(appID: appID, url: world.base(0) + "/notify/alipay/gateway")
        let body: [String: Any] = [
            "method": "alipay.app", "description": "月度会员", "period": ["unit": "month", "count": 1], "single_limit": 3000,
        ]
        let made = try await world.call("POST", "/v1/agreements", headers: ["Idempotency-Key": "member-8812"], json: body)
        try #require(made.status == 201, "\(made.object)")
        let id = try #require(made.object["id"] as? String)
        let launch = try #require(made.object["launch"] as? [String: Any])
        #expect(made.object["status"] as? String == "pending" && launch["kind"] as? String == "alipay_sign_string")
        let signString = try #require(launch["sign_string"] as? String)
        // The same key again: the same agreement; other terms under it: refused.
        let again = try await world.call("POST", "/v1/agreements", headers: ["Idempotency-Key": "member-8812"], json: body)
        #expect(again.object["id"] as? String == id)
        var other = body
        other["single_limit"] = 5000
        #expect(try await world.call("POST", "/v1/agreements", headers: ["Idempotency-Key": "member-8812"], json: other).status == 409)
        // Nothing is charged before the payer signs.
        let subscribed = try await world.call("POST", "/v1/subscriptions", json: ["agreement": id, "amount": 2500])
        try #require(subscribed.status == 201, "\(subscribed.object)")
        let subscription = try #require(subscribed.object["id"] as? String)
        #expect(try await world.call("POST", "/v1/subscriptions", json: ["agreement": id, "amount": 3001]).status == 400)
        try await Self.runJob(world)
        #expect(try await Self.invoices(world, subscription).isEmpty)

        // The payer signs in Alipay: dut_user_sign makes it active.
        let signed = try await world.sandboxCall(
            "POST", "/sandbox/alipay/agreements/sign", json: ["sign_string": signString, "outcome": "agree"])
        try #require(signed.status == 200, "\(String(decoding: signed.body, as: UTF8.self))")
        await world.settled()
        let active = try await world.call("GET", "/v1/agreements/\(id)").object
        #expect(active["status"] as? String == "active" && (active["provider_agreement_id"] as? String)?.isEmpty == false, "\(active)")

        // Period 1 now, period 2 a month later: each charged once, however many instances run the job.
        try await Self.runJob(world)
        try await Self.runJob(world)
        clock.advance(by: 31 * 86_400)
        try await Self.runJob(world)
        try await Self.runJob(world)
        var invoices = try await Self.invoices(world, subscription)
        #expect(invoices.map { $0["status"] as? String } == ["paid", "paid"], "\(invoices)")
        #expect(invoices.map { $0["period"] as? Int } == [1, 2])

        // Period 3: the payer's balance is short; past_due, retried a day later, paid.
        let number = try #require(active["provider_agreement_id"] as? String)
        #expect(
            try await world.sandboxCall(
                "POST", "/sandbox/alipay/agreements/balance", json: ["agreement_no": number, "outcome": "insufficient"]
            )
            .status == 200)
        clock.advance(by: 28 * 86_400)
        try await Self.runJob(world)
        invoices = try await Self.invoices(world, subscription)
        #expect(invoices.last?["status"] as? String == "open" && invoices.last?["attempts"] as? Int == 1, "\(invoices)")
        #expect((invoices.last?["last_error"] as? String)?.contains("BALANCE") == true)
        #expect(try await world.call("GET", "/v1/subscriptions/\(subscription)").object["status"] as? String == "past_due")
        #expect(
            try await world.sandboxCall(
                "POST", "/sandbox/alipay/agreements/balance", json: ["agreement_no": number, "outcome": "sufficient"]
            )
            .status == 200)
        try await Self.runJob(world)  // not due yet: nothing
        #expect(try await Self.invoices(world, subscription).last?["attempts"] as? Int == 1)
        clock.advance(by: 86_400 + 60)
        try await Self.runJob(world)
        invoices = try await Self.invoices(world, subscription)
        #expect(invoices.map { $0["status"] as? String } == ["paid", "paid", "paid"], "\(invoices)")
        #expect(try await world.call("GET", "/v1/subscriptions/\(subscription)").object["status"] as? String == "active")

        // The payer unsigns in Alipay: dut_user_unsign at the gateway ends it; nothing more is charged.
        #expect(try await world.sandboxCall("POST", "/sandbox/alipay/agreements/unsign", json: ["agreement_no": number]).status == 200)
        await world.settled()
        #expect(try await world.call("GET", "/v1/agreements/\(id)").object["status"] as? String == "terminated")
        #expect(try await world.call("GET", "/v1/subscriptions/\(subscription)").object["status"] as? String == "canceled")
        clock.advance(by: 31 * 86_400)
        try await Self.runJob(world)
        #expect(try await Self.invoices(world, subscription).count == 3)

        // Each period one paid order of 25.00; the webhooks said so.
        let orders = try await world.store.orders(status: .paid, before: nil, limit: 100)
        #expect(orders.count == 3 && orders.allSatisfy { $0.total.minorUnits == 2500 })
        let types = Self.webhookTypes(world)
        #expect(types.filter { $0 == "invoice.paid" }.count == 3, "\(types)")
        #expect(types.filter { $0 == "invoice.payment_failed" }.count == 1, "\(types)")
        #expect(types.contains("agreement.active") && types.contains("agreement.terminated") && types.contains("subscription.canceled"))
        try await world.expectBooksAgreeThenStop()
    }
}
