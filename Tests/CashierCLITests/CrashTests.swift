import Cashier
import CashierStore
import Foundation
import TestSupport
import Testing
import WeChatPay

/// Crash safety: `cashier serve` (SQLite, its own process) is killed with SIGKILL at random
/// moments ten times while payers pay and the merchant refunds, and restarted each time. Once the
/// sandbox's notification retries and the query fallback have run, the store must agree with the
/// provider's ledger: every paid trade paid here, none twice, no refund twice, every payment's
/// webhook delivered at least once.
@Suite struct CrashTests {
    @Test(.timeLimit(.minutes(3)))
    func tenCrashesUnderLoadLoseNothing() async throws {
        let cluster = try await MultiInstanceTests.Cluster(instances: 1, ports: try await MultiInstanceTests.freePorts(1), sqlite: true)
        defer { cluster.stop() }
        let base = cluster.bases[0]
        // The crash moments are random: the seed is printed, CASHIER_TEST_SEED replays them.
        var random = SeededRandom.forTest("tenCrashesUnderLoadLoseNothing").generator
        var orders: [(id: String, number: String)] = []
        for index in 0..<30 { orders.append(try await cluster.order("\(10 + index).00", via: base)) }

        var refunded: [String: Int64] = [:]
        for round in 0..<10 {
            // Three payers pay; the merchant refunds 1.00 of an order paid a round earlier, while the server dies.
            for order in orders[(round * 3)..<(round * 3 + 3)] { try await cluster.pay(order.number) }
            var refund: Task<Int, any Error>?
            if round > 0 {
                let target = orders[(round - 1) * 3].id
                let store = cluster.store
                refund = Task {
                    // The earlier round's order may still be catching up after the last crash: wait until it is paid.
                    try await eventually { try await store.order(id: target)?.status == .paid }
                    return try await Self.persistently(
                        base + "/v1/orders/\(target)/refunds", ["amount": "1.00"], key: "crash-refund-\(round)")
                }
            }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...120, using: &random)))
            try await cluster.crashAndRestart(0)
            if let refund {
                #expect(try await refund.value == 200, "round \(round)'s refund")
                refunded[orders[(round - 1) * 3].id] = 100
            }
        }

        // The provider's ledger, and the store once the retries and the query fallback have caught up.
        let wechat = WeChatPay.V2.Client(
            merchant: WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: MultiInstanceTests.wechatKey),
            baseURL: cluster.wechatV2URL)
        var mismatches: [String] = []
        for order in orders {
            let ledger = try await wechat.orderQuery(outTradeNo: order.number)
            let paidThere = ledger.tradeState == "SUCCESS" || ledger.tradeState == "REFUND"
            #expect(paidThere, "\(order.number) was paid at the sandbox")
            var stored = try await cluster.store.order(id: order.id)
            _ = try await eventually {
                stored = try await cluster.store.order(id: order.id)
                return stored?.status.hasReceivedMoney == true
            }
            guard let stored, stored.status.hasReceivedMoney else {
                mismatches.append("\(order.id) paid at WeChat, \(stored?.status.rawValue ?? "missing") here")
                continue
            }
            let events = try await cluster.store.events(orderID: order.id)
            if events.filter({ $0.to == .paid }).count != 1 {
                mismatches.append("\(order.id) moved to paid \(events.filter { $0.to == .paid }.count) times")
            }
            if stored.refunded.minorUnits != (refunded[order.id] ?? 0) {
                mismatches.append("\(order.id) refunded \(stored.refunded.minorUnits), asked \(refunded[order.id] ?? 0)")
            }
            if events.filter({ $0.kind == .refund }).count != (refunded[order.id] == nil ? 0 : 1) {
                mismatches.append("\(order.id) refund logged twice")
            }
            if refunded[order.id] != nil {
                // And WeChat refunded it once: one refund on its side of the ledger.
                let refunds = try await wechat.call("pay/refundquery", [("out_trade_no", order.number)])
                if refunds["refund_count"] != "1" {
                    mismatches.append("\(order.id) has \(refunds["refund_count"] ?? "no") refunds at WeChat")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")

        // Every paid order's webhook arrives at least once, whatever the crashes did to its delivery.
        let expected = Set(orders.map(\.id))
        var delivered = Set<String>()
        await eventually(interval: .milliseconds(50)) {
            delivered = Set(
                cluster.receiver.received.compactMap { delivery -> String? in
                    guard let object = try? JSONSerialization.jsonObject(with: Data(delivery.body)) as? [String: Any],
                        object["type"] as? String == "order.paid"
                    else { return nil }
                    return (object["data"] as? [String: Any])?["order_id"] as? String
                })
            return delivered == expected
        }
        #expect(delivered == expected, "order.paid missing for \(expected.subtracting(delivered))")
    }

    /// A call that outlives crashes: retried with the same Idempotency-Key until the server
    /// answers — a 5xx, no answer, or 409 `idempotency_key_in_use` (the request the crash cut
    /// short still holds the key until its lease ends) are retried, as a client should.
    static func persistently(_ url: String, _ body: [String: Any], key: String) async throws -> Int {
        var answer = 0
        _ = await eventually(timeout: .seconds(60), interval: .milliseconds(100)) {
            guard
                let (status, object) = try? await MultiInstanceTests.send(
                    "POST", url, body, key: MultiInstanceTests.secretKey, headers: ["Idempotency-Key": key])
            else { return false }
            let inUse = status == 409 && (object["error"] as? [String: Any])?["code"] as? String == "idempotency_key_in_use"
            answer = status
            return status < 500 && !inUse
        }
        return answer
    }
}
