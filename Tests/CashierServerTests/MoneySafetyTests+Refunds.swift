import Cashier
import CashierCrypto
import CashierCurl
import CashierSandboxMode
import CashierServer
import CashierStore
import Foundation
import TestSupport
import Testing

/// The refund scenarios of the money-safety suite: refunds
/// raced on one order, across instances and across a platform and its sub-merchant, refunds of a
/// duplicate payment, and a refund the provider fails after accepting it.
extension MoneySafetyTests {
    /// A sub-merchant's payments through the service provider, raced: the same payment started on
    /// every instance at once, then twelve refunds of 2.00 at once on its 10.00 — exactly five
    /// go through (at the provider, under the sub-merchant), the books agree, one `order.paid`.
    @Test(arguments: Backend.available)
    func subMerchantPaymentsAndRefundsRacedAddUp(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        for (method, api) in [("wechat.native", "v3"), ("wechat.native", "v2"), ("alipay.qr", nil)] as [(String, String?)] {
            let created = try await world.call(
                "POST", "/v1/orders",
                json: ["items": [["label": "Latte", "amount": "10.00"]], "currency": "CNY", "merchant": SandboxMode.subMerchantID])
            try #require(created.status == 201)
            let id = created.object["id"] as? String ?? ""
            let body = api.map { ["method": method, "api": $0] } ?? ["method": method]
            let starts = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
                for _ in 0..<6 { group.addTask { try await world.call("POST", "/v1/orders/\(id)/payments", json: body) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(starts.allSatisfy { $0.status == 200 || $0.status == 409 }, "\(starts.map { "\($0.status) \($0.errorMessage)" })")
            let number = try #require(starts.first { $0.status == 200 }?.object["out_trade_no"] as? String)
            try await world.pay(method.hasPrefix("alipay") ? "alipay" : "wechat", number: number)
            if api == "v3" { await world.sandbox.wechatV3.pay(outTradeNo: number, outcome: .success) }
            #expect(try await world.waitFor(id, .paid), "\(method) \(api ?? "")")
            let refunds = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
                for _ in 0..<12 { group.addTask { try await world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "2.00"]) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(refunds.filter { $0.status == 200 }.count == 5, "\(refunds.map(\.status))")
            #expect(refunds.filter { $0.status == 409 }.count == 7)
            #expect(try await world.orderJSON(id)["status"] as? String == "refunded")
            await world.settled()
            #expect(world.webhooks("order.paid", order: id).count == 1)
        }
        let books = try await world.ledger()
        #expect(books.filter { $0.paid }.allSatisfy { $0.refunded_minor == 1000 }, "\(books)")
        try await world.expectBooksAgreeThenStop()
    }

    /// A sub-merchant's own key and the platform's refund at once, across instances: each order
    /// gives back what it took and no more, the sub-merchant's key never touches the direct
    /// merchant's order, and its list holds its own refunds only.
    @Test(arguments: Backend.available)
    func aMerchantsKeyAndThePlatformsRefundAtOnceAndAddUp(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        let (northKey, record) = MerchantServer.makeSecretKey(label: "north's backend", merchant: SandboxMode.subMerchantID)
        try await world.store.createAPIKey(record)
        var ids: [String] = []
        for key in [northKey, world.keys.secret] {
            let created = try await world.call(
                "POST", "/v1/orders", key: key, json: ["items": [["label": "Latte", "amount": "10.00"]], "currency": "CNY"])
            try #require(created.status == 201)
            let id = try #require(created.object["id"] as? String)
            let paid = try await world.call(
                "POST", "/v1/orders/\(id)/payments", key: key, json: ["method": "wechat.barcode", "auth_code": "134567890123450000"])
            #expect(paid.object["status"] as? String == "paid", "\(paid.status) \(paid.errorMessage)")
            ids.append(id)
        }
        let (north, direct) = (ids[0], ids[1])
        // 8 refunds of 2.00 by each key on each order, all at once.
        let answers = try await withThrowingTaskGroup(of: (order: String, key: String, status: Int).self) { group in
            for order in [north, direct] {
                for key in [northKey, world.keys.secret] {
                    for _ in 0..<8 {
                        group.addTask {
                            (
                                order, key,
                                try await world.call("POST", "/v1/orders/\(order)/refunds", key: key, json: ["amount": "2.00"]).status
                            )
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0.order == direct && $0.key == northKey }.allSatisfy { $0.status == 404 })
        for order in [north, direct] {
            let statuses = answers.filter { $0.order == order }.map(\.status)
            #expect(statuses.filter { $0 == 200 }.count == 5, "\(order): \(statuses)")
            #expect(try await world.orderJSON(order)["status"] as? String == "refunded")
        }
        let listed = try await world.call("GET", "/v1/refunds", key: northKey)
        let refunds = listed.object["data"] as? [[String: Any]] ?? []
        #expect(refunds.count == 5 && refunds.allSatisfy { $0["order_id"] as? String == north }, "\(refunds)")
        let books = try await world.ledger()
        #expect(books.filter { $0.paid }.count == 2 && books.filter { $0.paid }.allSatisfy { $0.refunded_minor == 1000 }, "\(books)")
        try await world.expectBooksAgreeThenStop()
    }

    /// A merchant who chooses so gets duplicates refunded by the refund job, once, however many
    /// instances run it.
    @Test(arguments: Backend.available)
    func duplicatesCanBeRefundedAutomatically(backend: Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.refundDuplicatesAutomatically = true }
        let order = try await world.order("12.00")
        let stale = try await world.start(order.id, "alipay.app")
        _ = try await world.start(order.id, "wechat.native")
        try await world.pay("wechat", number: order.number)
        #expect(try await world.waitFor(order.id, .paid))
        try await world.pay("alipay", orderString: stale["order_string"] as? String)
        await world.settled()
        #expect(try await world.store.order(id: order.id)?.refundRequired == true)
        // Every instance runs the job at once: the duplicate's refund number is reserved once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for server in world.servers { group.addTask { _ = try await server.settleRefunds() } }
            try await group.waitForAll()
        }
        let refunds = try await world.store.refunds(orderID: order.id)
        #expect(refunds.count == 1 && refunds.first?.status == .succeeded && refunds.first?.amount.minorUnits == 1200)
        #expect(try await world.store.order(id: order.id)?.refundRequired == false)
        #expect(try await world.store.order(id: order.id)?.status == .paid)
        try await world.expectBooksAgreeThenStop()
    }

    /// Finding 2: eight refunds of 30.00 at once on a paid 100.00 order, each with its own key:
    /// three succeed, five are refused, the provider refunded 90.00 and so does the order; two
    /// equal refunds without keys are two refunds.
    /// Keys made with `cashier keys`, used at once from every instance: refunds raced with two
    /// stored keys take exactly what the payment had, each event is delivered once, and once a key
    /// is revoked a burst of refunds with it moves nothing on any instance.
    @Test(arguments: Backend.available)
    func refundsRacedWithStoredKeysAcrossInstancesAddUp(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        let (first, firstRecord) = MerchantServer.makeSecretKey(label: "backend A")
        let (second, secondRecord) = MerchantServer.makeSecretKey(label: "backend B")
        try await world.store.createAPIKey(firstRecord)
        try await world.store.createAPIKey(secondRecord)
        let order = try await world.order("50.00")
        _ = try await world.start(order.id, "wechat.native")
        try await world.pay("wechat", number: order.number)
        #expect(try await world.waitFor(order.id, .paid))
        let answers = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
            for index in 0..<12 {
                group.addTask {
                    try await world.call(
                        "POST", "/v1/orders/\(order.id)/refunds", key: index % 2 == 0 ? first : second,
                        headers: ["Idempotency-Key": "stored-key-\(index)"], json: ["amount": "10.00"], via: index)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0.status == 200 }.count == 5, "\(answers.map(\.status))")
        #expect(answers.filter { $0.status == 409 && $0.errorCode == "refund_too_large" }.count == 7)
        let refunded = try #require(try await world.store.order(id: order.id))
        #expect(refunded.refunded.minorUnits == 5000 && refunded.status == .refunded)
        let atProvider = try #require(try await world.ledger().first { $0.out_trade_no == order.number }?.refunds)
        #expect(atProvider.count == 5 && atProvider.reduce(0) { $0 + $1.amount_minor } == 5000)
        #expect(try await world.disagreements().isEmpty)
        // Every refund's event reached the merchant once (retries carry the same id).
        await world.settled()
        let ids = world.webhooks("order.refunded", order: order.id).compactMap { $0["id"] as? String }
        #expect(Set(ids).count == 5, "\(ids)")
        #expect(try await world.store.apiKeys().allSatisfy { $0.lastUsedAt != nil })
        // Revoked: a burst with the key on every instance is refused, and nothing moves.
        _ = try await world.store.revokeAPIKey(id: secondRecord.id, now: Date())
        let another = try await world.order("5.00")
        _ = try await world.start(another.id, "wechat.native")
        try await world.pay("wechat", number: another.number)
        #expect(try await world.waitFor(another.id, .paid))
        let refused = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await world.call("POST", "/v1/orders/\(another.id)/refunds", key: second, json: ["amount": "1.00"], via: index)
                        .status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(refused.allSatisfy { $0 == 401 }, "\(refused)")
        #expect(try await world.store.order(id: another.id)?.refunded.minorUnits == 0)
        await world.stop()
    }

    @Test(arguments: Backend.available)
    func concurrentRefundsNeverExceedThePayment(backend: Backend) async throws {
        let world = try await MoneyWorld(backend)
        let order = try await world.order("100.00")
        _ = try await world.start(order.id, "wechat.native")
        try await world.pay("wechat", number: order.number)
        #expect(try await world.waitFor(order.id, .paid))
        let answers = try await withThrowingTaskGroup(of: MoneyWorld.Answer.self) { group in
            for index in 0..<8 {
                group.addTask {
                    try await world.call(
                        "POST", "/v1/orders/\(order.id)/refunds", headers: ["Idempotency-Key": "refund-\(index)"], json: ["amount": "30.00"]
                    )
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.filter { $0.status == 200 }.count == 3, "\(answers.map(\.status))")
        #expect(answers.filter { $0.status == 409 && $0.errorCode == "refund_too_large" }.count == 5)
        let paid = try #require(try await world.store.order(id: order.id))
        #expect(paid.refunded.minorUnits == 9000 && paid.status == .partiallyRefunded)
        let refunds = try #require(try await world.ledger().first { $0.out_trade_no == order.number }?.refunds)
        #expect(refunds.count == 3 && refunds.reduce(0) { $0 + $1.amount_minor } == 9000)
        // Two equal refunds at once, no keys: two refunds, two numbers.
        let equal = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<2 {
                group.addTask { try await world.call("POST", "/v1/orders/\(order.id)/refunds", json: ["amount": "5.00"]).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(equal == [200, 200])
        #expect(try await world.store.order(id: order.id)?.status == .refunded)
        #expect(try await world.ledger().first { $0.out_trade_no == order.number }?.refunded_minor == 10_000)
        let report = try await world.reconcile()
        #expect((report["discrepancies"] as? [Any])?.isEmpty == true, "\(report)")
        try await world.expectBooksAgreeThenStop()
    }

    /// Finding 7: a refund the provider accepts and later reports failed (WeChat v2
    /// `REFUNDCLOSE`, v3 `ABNORMAL`, Alipay's query without `refund_status`) is marked failed,
    /// its amount is refundable again, the order no longer says refunded, and the merchant is
    /// told with `order.refund_failed`; a refused refund releases its reservation at once.
    @Test(arguments: Backend.available)
    func failedRefundsAreRecordedAndAnnounced(backend: Backend) async throws {
        let clock = ManualClock()
        let world = try await MoneyWorld(backend, clock: clock)
        for (method, api, status) in [("wechat.native", "v2", "REFUNDCLOSE"), ("wechat.native", "v3", "ABNORMAL"), ("alipay.qr", nil, "")] {
            let order = try await world.order("10.00")
            let placed = try await world.start(order.id, method, api: api)
            let number = placed["out_trade_no"] as? String ?? ""
            switch api {
            case "v2"?: await world.sandbox.wechatV2.pay(outTradeNo: number, outcome: .success)
            case "v3"?: await world.sandbox.wechatV3.pay(outTradeNo: number, outcome: .success)
            default: try await world.pay("alipay", number: number)
            }
            #expect(try await world.waitFor(order.id, .paid), "\(method) \(api ?? "")")
            _ = try await world.sandboxCall("POST", "sandbox/refund_outcome", json: ["outcome": "fail_later", "status": status])
            // Accepted — or, when the provider's failure notification overtook the answer, already failed.
            let accepted = try await world.call("POST", "/v1/orders/\(order.id)/refunds", json: ["amount": "10.00"])
            #expect(
                (accepted.status == 200 && accepted.object["status"] as? String == "refunded")
                    || (accepted.status == 502 && accepted.errorCode == "refund_failed"),
                "\(method) \(api ?? ""): \(accepted.status) \(String(decoding: accepted.body, as: UTF8.self))")
            _ = try await world.sandboxCall("POST", "sandbox/refund_outcome", json: ["outcome": "succeed"])
            if api == nil {
                // Alipay says nothing by itself: the refund job asks once the refund is old enough.
                clock.advance(by: 60)
                _ = try await world.servers[0].settleRefunds()
            }
            await world.settled()
            #expect(try await world.store.order(id: order.id)?.status == .paid, "\(method) \(api ?? "")")
            let refund = try #require(try await world.store.refunds(orderID: order.id).first)
            #expect(refund.status == .failed && refund.failureReason?.isEmpty == false)
            await world.settled()
            #expect(!world.webhooks("order.refund_failed", order: order.id).isEmpty)
            // The money was never refunded, so it can be: the merchant tries again, and it goes through.
            let again = try await world.call("POST", "/v1/orders/\(order.id)/refunds", json: ["amount": "10.00"])
            #expect(
                again.status == 200 && again.object["status"] as? String == "refunded",
                "\(method) \(api ?? ""): \(again.status) \(String(decoding: again.body, as: UTF8.self))")
        }
        // Refused outright: 502, nothing reserved, nothing refunded.
        let order = try await world.order("6.00")
        _ = try await world.start(order.id, "wechat.native")
        try await world.pay("wechat", number: order.number)
        #expect(try await world.waitFor(order.id, .paid))
        _ = try await world.sandboxCall("POST", "sandbox/refund_outcome", json: ["outcome": "refuse"])
        let refused = try await world.call("POST", "/v1/orders/\(order.id)/refunds", json: ["amount": "6.00"])
        #expect(refused.status == 502 && refused.errorCode == "refund_failed" && refused.errorMessage.contains("NOTENOUGH"))
        #expect(try await world.store.payments(orderID: order.id).first?.reserved.minorUnits == 0)
        await world.settled()
        #expect(!world.webhooks("order.refund_failed", order: order.id).isEmpty)
        _ = try await world.sandboxCall("POST", "sandbox/refund_outcome", json: ["outcome": "succeed"])
        #expect(try await world.call("POST", "/v1/orders/\(order.id)/refunds", json: ["amount": "6.00"]).status == 200)
        try await world.expectBooksAgreeThenStop()
    }
}
