import Cashier
import CashierCrypto
import CashierCurl
import CashierServer
import CashierStore
import CashierWire
import Foundation
import TestSupport
import Testing

@testable import CashierSandbox

/// Profit sharing through Alipay (分账) end to end: a royalty relation bound, an order placed for
/// sharing (`royalty_freeze`) and paid, settled asynchronously and finished by Alipay's settle
/// notification at the application gateway (`/notify/alipay/gateway`), a forged one refused with
/// nothing moved, returns refused as Alipay has none outside refunds, refunds bounded by the shares,
/// and splits and refunds fired at once over every instance never moving more than was paid.
@Suite struct AlipaySplitTests {
    typealias Backend = MoneyWorld.Backend

    static let alice = "2088000000000101"

    static func appID(_ world: MoneyWorld) -> String { world.mode.configuration.alipay!.appID }

    /// An order of `amount` placed for sharing and paid through Alipay; its id and trade number.
    static func paidSharedOrder(_ world: MoneyWorld, _ amount: String) async throws -> (id: String, number: String) {
        let created = try await world.call(
            "POST", "/v1/orders",
            json: ["items": [["label": "Dinner", "amount": amount]], "currency": "CNY", "description": "Dinner", "profit_sharing": true])
        try #require(created.status == 201, "\(created.object)")
        let id = try #require(created.object["id"] as? String)
        let started = try await world.start(id, "alipay.qr")
        let number = try #require(started["out_trade_no"] as? String)
        _ = try await world.pay("alipay", number: number)
        #expect(try await world.waitFor(id, .paid))
        return (id, number)
    }

    static func receiver(_ world: MoneyWorld) async throws -> String {
        let added = try await world.call(
            "POST", "/v1/receivers", json: ["provider": "alipay", "type": "userId", "account": alice, "name": "张三"])
        try #require(added.status == 201 || added.status == 200, "\(added.object)")
        return try #require(added.object["id"] as? String)
    }

    @Test(.timeLimit(.minutes(3))) func aSettleIsFinishedByAlipaysNotificationAtTheGateway() async throws {
        let world = try await MoneyWorld(.sqlite)
        let appID = Self.appID(world)
        await world.sandbox.alipay.setApplicationGateway(appID: appID, url: world.base(0) + "/notify/alipay/gateway")
        let receiver = try await Self.receiver(world)
        #expect(await world.sandbox.alipay.royaltyRelations(appID: appID).contains("userId:" + Self.alice))
        let (id, number) = try await Self.paidSharedOrder(world, "100.00")
        let made = try await world.call(
            "POST", "/v1/orders/\(id)/splits", headers: ["Idempotency-Key": "ali-split-1"],
            json: ["receivers": [["receiver": receiver, "amount": 1000, "description": "佣金"]]])
        #expect(made.status == 201 && made.object["status"] as? String == "processing", "\(made.object)")
        #expect(made.object["provider"] as? String == "alipay")
        let splitID = try #require(made.object["id"] as? String)
        #expect(await world.sandbox.alipay.unsettledAmount(outTradeNo: number) == 9000)

        // A forged settle notification: refused (401), nothing moves.
        let fields = [
            ("msg_method", "alipay.trade.order.settle.notify"), ("app_id", appID), ("version", "1.1"), ("charset", "utf-8"),
            ("sign_type", "RSA2"), ("notify_id", "n1"), ("utc_timestamp", "1796113830000"),
            ("biz_content", #"{"out_request_no":"x","status":"SUCCESS"}"#), ("sign", Base64.encode(SecureRandom.bytes(count: 256))),
        ]
        let form = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(
            separator: "&")
        let forged = try await world.transport.send(
            HTTPRequest(
                method: "POST", url: URL(string: world.base(0) + "/notify/alipay/gateway")!,
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8)))
        #expect(forged.status == 401, "\(String(decoding: forged.body, as: UTF8.self))")
        #expect(try await world.store.split(id: splitID)?.status == .processing)

        // Alipay finishes it and tells the gateway: the split is finished by that word alone.
        await world.sandbox.alipay.advanceRoyaltyClock(by: 600)
        await world.sandbox.delivery.settled(within: ServerFixture.sandboxRetries)
        await world.settled()
        let finished = try await world.call("GET", "/v1/splits/\(splitID)").object
        #expect(finished["status"] as? String == "finished", "\(finished)")
        #expect((finished["receivers"] as? [[String: Any]])?.first?["result"] as? String == "succeeded")

        // Returns go through refunds at Alipay (refund_royalty_parameters), not built: refused, nothing reserved.
        let returned = try await world.call(
            "POST", "/v1/splits/\(splitID)/returns", json: ["receiver": receiver, "amount": 100, "description": "退"])
        #expect(returned.status == 409 && returned.errorCode == "unsupported", "\(returned.object)")
        #expect(try await world.store.split(id: splitID)?.shares.first?.returnableMinor == 1000)
        // Refunds: at most what the shares leave.
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "90.01"]).status == 409)
        #expect(try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "90.00"]).status == 200)
        #expect(
            try await world.call(
                "POST", "/v1/orders/\(id)/splits", json: ["receivers": [["receiver": receiver, "amount": 1, "description": "x"]]]
            ).status == 409)
        await world.settled()
        var seen: Set<String> = []
        let events = world.receiver.received.compactMap { delivery -> String? in
            guard let event = try? JSONDecoder().decode(SplitEventJSON.self, from: Data(delivery.body)), seen.insert(event.id).inserted
            else { return nil }
            return event.type
        }
        #expect(events == ["split.created", "split.finished"], "\(events)")
        let settles = await world.sandbox.alipay.royaltySettles(outTradeNo: number)
        #expect(
            settles.count == 1 && settles.first?.details.map(\.amount_minor) == [1000] && settles.first?.details.first?.state == "SUCCESS")
        await world.stop()
    }

    /// Splits and refunds of 20.00 on one 100.00 Alipay order, fired at once over every instance:
    /// five go through, and what Alipay settled and refunded never exceeds what was paid.
    @Test(.timeLimit(.minutes(4)), arguments: Backend.available)
    func splitsAndRefundsFiredAtOnceNeverMoveMoreThanWasPaid(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        await world.sandbox.alipay.setRoyaltyMaxRatio(percent: 100)
        let receiver = try await Self.receiver(world)
        let (id, number) = try await Self.paidSharedOrder(world, "100.00")
        let answers = try await withThrowingTaskGroup(of: (String, MoneyWorld.Answer).self) { group in
            for index in 0..<16 {
                group.addTask {
                    index.isMultiple(of: 2)
                        ? (
                            "split",
                            try await world.call(
                                "POST", "/v1/orders/\(id)/splits", headers: ["Idempotency-Key": "ali-race-\(index)"],
                                json: ["receivers": [["receiver": receiver, "amount": 2000, "description": "佣金"]]],
                                via: index % world.servers.count)
                        )
                        : (
                            "refund",
                            try await world.call(
                                "POST", "/v1/orders/\(id)/refunds", headers: ["Idempotency-Key": "ali-race-\(index)"],
                                json: ["amount": "20.00"], via: index % world.servers.count)
                        )
                }
            }
            return try await group.reduce(into: [(String, MoneyWorld.Answer)]()) { $0.append($1) }
        }
        let through = answers.filter { $0.1.status == 200 || $0.1.status == 201 }
        #expect(through.count == 5, "\(answers.map { "\($0.0) \($0.1.status) \($0.1.errorCode ?? "")" })")
        let settled = await world.sandbox.alipay.royaltySettles(outTradeNo: number).flatMap(\.details).reduce(Int64(0)) {
            $0 + $1.amount_minor
        }
        #expect(settled == Int64(through.filter { $0.0 == "split" }.count) * 2000)
        #expect(
            await world.sandbox.alipay.unsettledAmount(outTradeNo: number) == 10_000 - settled - Int64(
                through.filter { $0.0 == "refund" }.count) * 2000)
        let order = try #require(try await world.store.order(id: id))
        let payment = try #require(try await world.store.payment(id: order.settledPaymentID ?? ""))
        #expect(payment.sharedMinor == settled && payment.sharedMinor + payment.reserved.minorUnits == 10_000)
        try await world.expectBooksAgreeThenStop()
    }
}
