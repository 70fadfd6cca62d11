import ApplePay
import Cashier
import CashierHTTP
import CashierSandboxMode
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

    /// How a payer signs, is short of money and unsigns, per wallet, in the sandbox.
    enum Wallet: String, CaseIterable, CustomTestStringConvertible {
        case wechat, alipay, applepay

        var testDescription: String { rawValue }

        var agreement: [String: Any] {
            var body: [String: Any] = ["description": "月度会员", "period": ["unit": "month", "count": 1], "single_limit": 2500]
            switch self {
            case .wechat:
                body["method"] = "wechat.app"
                body["plan_id"] = "12535"
            case .alipay: body["method"] = "alipay.app"
            case .applepay: body["method"] = "applepay"
            }
            return body
        }

        var launchKind: String {
            switch self {
            case .wechat: "wechat_pre_entrust"
            case .alipay: "alipay_sign_string"
            case .applepay: "applepay"
            }
        }

        /// The payer signs (WeChat and Alipay: in the wallet, told to the server by the provider's
        /// notification; Apple Pay: the sheet's token, the first period charged with it).
        func sign(_ world: MoneyWorld, agreement: [String: Any], subscription: String) async throws {
            let launch = try #require(agreement["launch"] as? [String: Any])
            switch self {
            case .wechat:
                let signed = try await world.sandboxCall(
                    "POST", "/sandbox/wechat/contracts/sign",
                    json: ["plan_id": "12535", "contract_code": agreement["external_no"] as? String ?? "", "outcome": "agree"])
                try #require(signed.status == 200, "\(String(decoding: signed.body, as: UTF8.self))")
            case .alipay:
                let signed = try await world.sandboxCall(
                    "POST", "/sandbox/alipay/agreements/sign",
                    json: ["sign_string": launch["sign_string"] as? String ?? "", "outcome": "agree"])
                try #require(signed.status == 200, "\(String(decoding: signed.body, as: UTF8.self))")
            case .applepay:
                let id = try #require(agreement["id"] as? String)
                let token = try await world.sandbox.applePay.mintPayment(
                    amount: Money(minorUnits: 2500, currency: .cny), card: ApplePayTokenMinter.Card(), applicationData: Array(id.utf8))
                let authorized = try await world.call(
                    "POST", "/v1/agreements/\(id)/authorize",
                    json: ["token": try JSONSerialization.jsonObject(with: token), "subscription": subscription])
                try #require(authorized.status == 200, "\(authorized.object)")
            }
            await world.settled()
        }

        /// The payer's next charge fails (WeChat: settled PAY_FAIL; Alipay: refused at once; the card: declined).
        func runShort(_ world: MoneyWorld, _ agreement: [String: Any]) async throws {
            let number = try #require(agreement["provider_agreement_id"] as? String)
            let answer =
                switch self {
                case .wechat:
                    try await world.sandboxCall(
                        "POST", "/sandbox/wechat/contracts/balance",
                        json: ["contract_id": number, "outcome": "insufficient", "deductions": 1])
                case .alipay:
                    try await world.sandboxCall(
                        "POST", "/sandbox/alipay/agreements/balance", json: ["agreement_no": number, "outcome": "insufficient"])
                case .applepay:
                    try await world.sandboxCall(
                        "POST", "/sandbox/stripe/payment_methods/\(number.split(separator: "/").last ?? "")/decline",
                        json: ["code": "insufficient_funds"])
                }
            try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
        }

        /// Whatever the provider settles later, settled now (WeChat's deductions wait five seconds on its clock).
        func settle(_ world: MoneyWorld, _ clock: ManualClock) async throws {
            if self == .wechat {
                clock.advance(by: 10)
                _ = try await world.sandboxCall("POST", "/sandbox/wechat/contracts/settle", json: [String: Any]())
            }
            await world.settled()
        }

        /// The payer has money again (Alipay's balance control holds until changed; the others fail once).
        func recover(_ world: MoneyWorld, _ agreement: [String: Any]) async throws {
            guard self == .alipay, let number = agreement["provider_agreement_id"] as? String else { return }
            let answer = try await world.sandboxCall(
                "POST", "/sandbox/alipay/agreements/balance", json: ["agreement_no": number, "outcome": "sufficient"])
            try #require(answer.status == 200)
        }

        /// The payer ends it: in WeChat or Alipay (the provider tells the server), or by removing
        /// the card at the processor (the server finds out when it next asks).
        func unsign(_ world: MoneyWorld, _ agreement: [String: Any]) async throws {
            let number = try #require(agreement["provider_agreement_id"] as? String)
            let answer =
                switch self {
                case .wechat: try await world.sandboxCall("POST", "/sandbox/wechat/contracts/unsign", json: ["contract_id": number])
                case .alipay: try await world.sandboxCall("POST", "/sandbox/alipay/agreements/unsign", json: ["agreement_no": number])
                case .applepay:
                    // The payer removes the card where the processor keeps it: nobody tells the server.
                    try await {
                        let response = try await world.transport.send(
                            HTTPRequest(
                                method: "POST",
                                url: URL(
                                    string: world.sandbox.baseURL.absoluteString
                                        + "stripe/v1/payment_methods/\(number.split(separator: "/").last ?? "")/detach")!,
                                headers: ["Authorization": "Bearer " + SandboxMode.stripeSecretKey]))
                        return MoneyWorld.Answer(status: response.status, body: response.body)
                    }()
                }
            try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            await world.settled()
        }
    }

    static func world(_ backend: Backend, clock: ManualClock) async throws -> MoneyWorld {
        let world = try await MoneyWorld(backend, clock: clock) { configuration in
            configuration.recurringInterval = .seconds(3600)  // the test runs the job itself
            configuration.recurringRetryDelays = [86_400]
            configuration.checkout.returnOrigins = ["https://shop.example.com"]
        }
        await world.sandbox.alipay.setAgreementClock { clock.now() }
        await world.sandbox.wechatV2.setPapayClock { clock.now() }
        if let appID = world.mode.configuration.alipay?.appID {
            await world.sandbox.alipay.setApplicationGateway(appID: appID, url: world.base(0) + "/notify/alipay/gateway")
        }
        return world
    }

    /// The job run on every instance at once, then what the providers settle, then the notifications answered.
    static func runJob(_ world: MoneyWorld, _ wallet: Wallet, _ clock: ManualClock) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for server in world.servers {
                group.addTask { _ = try await server.chargeDue() }
            }
            try await group.waitForAll()
        }
        await world.settled()
        try await wallet.settle(world, clock)
    }

    /// The subscription's invoices, oldest first.
    static func invoices(_ world: MoneyWorld, _ id: String) async throws -> [[String: Any]] {
        let read = try await world.call("GET", "/v1/subscriptions/\(id)")
        try #require(read.status == 200, "\(read.object)")
        return ((read.object["invoices"] as? [[String: Any]]) ?? []).reversed()
    }

    static func statuses(_ invoices: [[String: Any]]) -> [String] { invoices.map { $0["status"] as? String ?? "?" } }

    static func webhookTypes(_ world: MoneyWorld) -> [String] {
        var seen: Set<String> = []
        return world.receiver.received.compactMap { delivery -> String? in
            guard let event = try? JSONDecoder().decode(RecurringEventJSON.self, from: Data(delivery.body)), seen.insert(event.id).inserted
            else { return nil }
            return event.type
        }
    }

    @Test(.timeLimit(.minutes(5)), arguments: Wallet.allCases, Backend.available)
    func threePeriodsAFailedChargeRetriedThenThePayerUnsigns(wallet: Wallet, backend: Backend) async throws {
        let clock = ManualClock(Self.start)
        let world = try await Self.world(backend, clock: clock)
        var body = wallet.agreement
        body["return_url"] = "https://shop.example.com/account/membership"
        let made = try await world.call("POST", "/v1/agreements", headers: ["Idempotency-Key": "member-8812"], json: body)
        try #require(made.status == 201, "\(made.object)")
        let id = try #require(made.object["id"] as? String)
        #expect(made.object["status"] as? String == "pending", "\(made.object)")
        #expect((made.object["launch"] as? [String: Any])?["kind"] as? String == wallet.launchKind, "\(made.object)")
        // The same key again: the same agreement; other terms under it: refused, nothing reserved.
        let again = try await world.call("POST", "/v1/agreements", headers: ["Idempotency-Key": "member-8812"], json: body)
        #expect(again.object["id"] as? String == id)
        var other = body
        other["single_limit"] = 5000
        #expect(try await world.call("POST", "/v1/agreements", headers: ["Idempotency-Key": "member-8812"], json: other).status == 409)
        // The subscription; more than the agreement allows is refused.
        #expect(try await world.call("POST", "/v1/subscriptions", json: ["agreement": id, "amount": 2501]).status == 400)
        let subscribed = try await world.call("POST", "/v1/subscriptions", json: ["agreement": id, "amount": 2500])
        try #require(subscribed.status == 201, "\(subscribed.object)")
        let subscription = try #require(subscribed.object["id"] as? String)
        // Nothing is charged under an agreement the payer has not signed.
        if wallet != .applepay {
            try await Self.runJob(world, wallet, clock)
            #expect(try await Self.invoices(world, subscription).isEmpty)
        }

        // The payer signs: the provider's word makes it active (Apple Pay's with period 1 paid).
        try await wallet.sign(world, agreement: made.object, subscription: subscription)
        let active = try await world.call("GET", "/v1/agreements/\(id)").object
        #expect(active["status"] as? String == "active", "\(active)")
        #expect((active["provider_agreement_id"] as? String)?.isEmpty == false, "\(active)")

        // Periods 1 and 2, a month apart, each charged once however many instances run the job.
        try await Self.runJob(world, wallet, clock)
        try await Self.runJob(world, wallet, clock)
        clock.advance(by: 31 * 86_400)
        try await Self.runJob(world, wallet, clock)
        try await Self.runJob(world, wallet, clock)
        var invoices = try await Self.invoices(world, subscription)
        #expect(Self.statuses(invoices) == ["paid", "paid"], "\(invoices)")
        #expect(invoices.map { $0["period"] as? Int } == [1, 2])

        // Period 3: the payer is short; the failure is noticed, the subscription past_due.
        try await wallet.runShort(world, active)
        clock.advance(by: 28 * 86_400)
        try await Self.runJob(world, wallet, clock)
        clock.advance(by: 120)  // an awaited answer (WeChat's PAY_FAIL) is looked at again
        try await Self.runJob(world, wallet, clock)
        invoices = try await Self.invoices(world, subscription)
        #expect(invoices.last?["status"] as? String == "open" && invoices.last?["attempts"] as? Int == 1, "\(invoices)")
        #expect(invoices.last?["last_error"] != nil, "\(invoices)")
        #expect(try await world.call("GET", "/v1/subscriptions/\(subscription)").object["status"] as? String == "past_due")
        try await wallet.recover(world, active)
        // Not retried before its time; a day later it is, and paid.
        try await Self.runJob(world, wallet, clock)
        #expect(try await Self.invoices(world, subscription).last?["attempts"] as? Int == 1)
        clock.advance(by: 86_400)
        try await Self.runJob(world, wallet, clock)
        try await Self.runJob(world, wallet, clock)
        invoices = try await Self.invoices(world, subscription)
        #expect(Self.statuses(invoices) == ["paid", "paid", "paid"], "\(invoices)")
        #expect(invoices.last?["attempts"] as? Int == 2)
        #expect(try await world.call("GET", "/v1/subscriptions/\(subscription)").object["status"] as? String == "active")

        // The payer ends it; nothing more is charged.
        try await wallet.unsign(world, active)
        clock.advance(by: 31 * 86_400)
        try await Self.runJob(world, wallet, clock)
        try await Self.runJob(world, wallet, clock)
        #expect(try await world.call("GET", "/v1/agreements/\(id)").object["status"] as? String == "terminated")
        #expect(try await world.call("GET", "/v1/subscriptions/\(subscription)").object["status"] as? String == "canceled")
        invoices = try await Self.invoices(world, subscription)
        #expect(Self.statuses(invoices).filter { $0 == "paid" }.count == 3, "\(invoices)")

        // Each period one paid order of 25.00; the webhooks said so, once each.
        let orders = try await world.store.orders(status: .paid, before: nil, limit: 100)
        #expect(orders.count == 3 && orders.allSatisfy { $0.total.minorUnits == 2500 }, "\(orders.map(\.id))")
        let types = Self.webhookTypes(world)
        #expect(types.filter { $0 == "invoice.paid" }.count == 3, "\(types)")
        // Apple Pay's processor tells nobody the card was removed: the next period's charge finds
        // out (refused for good, its invoice failed), and the agreement is asked about and ends.
        #expect(types.filter { $0 == "invoice.payment_failed" }.count == (wallet == .applepay ? 2 : 1), "\(types)")
        #expect(types.filter { $0 == "agreement.active" }.count == 1 && types.contains("agreement.terminated"), "\(types)")
        #expect(types.contains("subscription.canceled"), "\(types)")
        try await world.expectBooksAgreeThenStop()
    }

    /// A payer signs by the sandbox's JSON calls alone, with nothing but what the issue's contract
    /// names — an `entrustweb` address never opened, an Alipay sign string never handed over: the
    /// sandbox signs for its merchant, and Cashier learns it by asking (or by the notification, when
    /// the merchant's notify address is known); a refusal leaves the agreement pending.
    @Test(.timeLimit(.minutes(3))) func signedByTheSandboxsJSONCallsAlone() async throws {
        let clock = ManualClock(Self.start)
        let world = try await Self.world(.sqlite, clock: clock)
        var wechat = Wallet.wechat.agreement
        wechat["method"] = "wechat.jsapi"
        let contract = try await world.call("POST", "/v1/agreements", json: wechat)
        try #require(contract.status == 201, "\(contract.object)")
        let launch = try #require(contract.object["launch"] as? [String: Any])
        #expect(launch["kind"] as? String == "url" && (launch["url"] as? String)?.contains("/papay/entrustweb?") == true, "\(launch)")
        let alipay = try await world.call("POST", "/v1/agreements", json: Wallet.alipay.agreement)
        try #require(alipay.status == 201, "\(alipay.object)")
        let refused = try await world.call("POST", "/v1/agreements", json: Wallet.alipay.agreement)
        for (made, path, number) in [
            (contract.object, "/sandbox/wechat/contracts/sign", "contract_code"),
            (alipay.object, "/sandbox/alipay/agreements/sign", "external_agreement_no"),
        ] {
            var body: [String: Any] = [number: made["external_no"] as? String ?? "", "outcome": "agree"]
            if number == "contract_code" { body["plan_id"] = "12535" }
            let signed = try await world.sandboxCall("POST", path, json: body)
            #expect(signed.status == 200, "\(String(decoding: signed.body, as: UTF8.self))")
        }
        let noOne = try await world.sandboxCall(
            "POST", "/sandbox/alipay/agreements/sign",
            json: ["external_agreement_no": refused.object["external_no"] as? String ?? "", "outcome": "refuse"])
        #expect(noOne.status == 200, "\(String(decoding: noOne.body, as: UTF8.self))")
        await world.settled()
        for id in [contract.object["id"], alipay.object["id"]].compactMap({ $0 as? String }) {
            let read = try await world.call("GET", "/v1/agreements/\(id)").object
            #expect(read["status"] as? String == "active" && read["provider_agreement_id"] != nil, "\(read)")
        }
        #expect(
            try await world.call("GET", "/v1/agreements/\(refused.object["id"] as? String ?? "")").object["status"] as? String == "pending")
        // Never signed: after a day the job stops asking and fails it.
        clock.advance(by: 24 * 3600 + 120)
        for server in world.servers { _ = try await server.chargeDue() }
        let lapsed = try await world.call("GET", "/v1/agreements/\(refused.object["id"] as? String ?? "")").object
        #expect(lapsed["status"] as? String == "failed" && (lapsed["end_reason"] as? String)?.contains("did not sign") == true, "\(lapsed)")
        await world.stop()
    }

    /// Twelve subscriptions due at once, the job fired four times on every instance together:
    /// each period opened and charged once, whichever instance won it; the sandbox took twelve payments.
    @Test(.timeLimit(.minutes(5)), arguments: Backend.available)
    func manyDueAtOnceAreEachChargedOnce(backend: Backend) async throws {
        let clock = ManualClock(Self.start)
        let world = try await Self.world(backend, clock: clock)
        var subscriptions: [String] = []
        for index in 0..<12 {
            let made = try await world.call(
                "POST", "/v1/agreements", headers: ["Idempotency-Key": "many-\(index)"], json: Wallet.alipay.agreement)
            try #require(made.status == 201, "\(made.object)")
            let id = try #require(made.object["id"] as? String)
            let subscribed = try await world.call("POST", "/v1/subscriptions", json: ["agreement": id, "amount": 1000 + index])
            try #require(subscribed.status == 201, "\(subscribed.object)")
            subscriptions.append(try #require(subscribed.object["id"] as? String))
            try await Wallet.alipay.sign(world, agreement: made.object, subscription: "")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                for server in world.servers {
                    group.addTask { _ = try await server.chargeDue() }
                }
            }
            try await group.waitForAll()
        }
        await world.settled()
        for (index, subscription) in subscriptions.enumerated() {
            let invoices = try await Self.invoices(world, subscription)
            #expect(invoices.map { $0["period"] as? Int } == [1] && Self.statuses(invoices) == ["paid"], "\(invoices)")
            #expect((invoices.first?["amount"] as? [String: Any])?["amount_minor"] as? Int == 1000 + index)
        }
        let paid = try await world.ledger().filter { $0.provider == "alipay" && $0.paid }
        #expect(paid.count == 12, "\(paid)")
        try await world.expectBooksAgreeThenStop()
    }
}

/// The counted processor stores cards as the one it counts does (the sandbox's Stripe).
extension MoneyWorld.CountingProcessor: ApplePay.RecurringProcessor {
    var recurring: any ApplePay.RecurringProcessor { processor as! any ApplePay.RecurringProcessor }

    func authorize(_ authorization: ApplePay.ProcessorAuthorization, storing terms: ApplePay.RecurringTerms) async throws
        -> ApplePay.StoringDecision
    {
        calls.add(1, ordering: .relaxed)
        return try await recurring.authorize(authorization, storing: terms)
    }

    func charge(
        _ method: ApplePay.StoredPaymentMethod, amount: Money, reference: String, idempotencyKey: String,
        model: ApplePay.RecurringTerms.Model
    ) async throws -> ApplePay.ProcessorDecision {
        calls.add(1, ordering: .relaxed)
        note("charge", idempotencyKey)
        return try await recurring.charge(method, amount: amount, reference: reference, idempotencyKey: idempotencyKey, model: model)
    }

    func holds(_ method: ApplePay.StoredPaymentMethod) async throws -> Bool { try await recurring.holds(method) }

    func remove(_ method: ApplePay.StoredPaymentMethod, idempotencyKey: String) async throws -> Bool {
        try await recurring.remove(method, idempotencyKey: idempotencyKey)
    }
}
