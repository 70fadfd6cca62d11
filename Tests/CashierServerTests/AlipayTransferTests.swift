import Cashier
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// Transfers to Alipay accounts through the same API (`"provider": "alipay"`): paid at once, its
/// webhooks, no cancel; and one fired many times at once over every instance is one transfer at
/// Alipay, the balance taken once.
@Suite struct AlipayTransferTests {
    typealias Backend = MoneyWorld.Backend

    static func body(amount: Int = 1234) -> [String: Any] {
        ["provider": "alipay", "amount": amount, "currency": "CNY", "openid": "2088123412341234", "remark": "推荐奖励"]
    }

    @Test(.timeLimit(.minutes(3))) func anAlipayTransferIsPaidAtOnce() async throws {
        let world = try await MoneyWorld(.sqlite)
        let appID = world.mode.configuration.alipay!.appID
        let opening = await world.sandbox.alipay.transferBalance(appID: appID)
        let created = try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": "ali-1"], json: Self.body())
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let id = try #require(created.object["id"] as? String)
        #expect(created.object["provider"] as? String == "alipay" && created.object["status"] as? String == "succeeded")
        #expect(created.object["provider_state"] as? String == "SUCCESS" && created.object["package_info"] == nil)
        #expect(await world.sandbox.alipay.transferBalance(appID: appID) == opening - 1234)
        let cancel = try await world.call("POST", "/v1/transfers/\(id)/cancel")
        #expect(cancel.status == 409)
        await world.settled()
        #expect(TransferTests.events(world, id) == ["transfer.created", "transfer.succeeded"])
        #expect(try await world.call("POST", "/v1/transfers", json: Self.body(amount: 5_000_001)).status == 422)
        await world.stop()
    }

    @Test(.timeLimit(.minutes(4)), arguments: Backend.available)
    func theSameAlipayTransferFiredAtOnceIsOneTransfer(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        let appID = world.mode.configuration.alipay!.appID
        let opening = await world.sandbox.alipay.transferBalance(appID: appID)
        let answers = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
            for _ in 0..<12 {
                group.addTask { try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": "ali-race"], json: Self.body()) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.allSatisfy { $0.status == 201 || $0.errorCode == "idempotency_key_in_use" }, "\(answers.map(\.status))")
        let retried = try await world.call("POST", "/v1/transfers", headers: ["Idempotency-Key": "ali-race"], json: Self.body())
        #expect(retried.status == 201 && retried.object["status"] as? String == "succeeded")
        #expect(await world.sandbox.alipay.transferBalance(appID: appID) == opening - 1234)
        #expect(try await world.store.transfers(merchant: nil, limit: 10, offset: 0).count == 1)
        await world.stop()
    }
}
