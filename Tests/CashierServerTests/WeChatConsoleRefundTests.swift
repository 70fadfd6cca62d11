import Cashier
import CashierSandbox
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Refunds made in WeChat Pay's merchant platform, without Cashier: their notification names a
/// refund number that is not Cashier's, and its amount. Recorded on the order under WeChat's
/// number (reason `refunded at WeChat Pay`, requested by `wechat`, never sent to it) — once,
/// however many copies arrive at however many instances, beside Cashier's own refunds — and a
/// refund WeChat closed moves nothing. The books then agree with WeChat's.
@Suite struct WeChatConsoleRefundTests {
    enum API: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case v2, v3
        var testDescription: String { "API \(rawValue)" }
        /// Where the merchant platform is told to send refund notifications.
        var notifyPath: String { self == .v2 ? "/notify/wechat/v2/refund" : "/notify/wechat/v3" }
        /// A refund WeChat closed instead of paying.
        var closed: String { self == .v2 ? "REFUNDCLOSE" : "CLOSED" }
    }

    static var cases: [(API, MoneyWorld.Backend)] { API.allCases.flatMap { api in MoneyWorld.Backend.available.map { (api, $0) } } }

    /// A native WeChat Pay order of `amount`, paid through `api`; its id and trade number.
    static func paid(_ world: MoneyWorld, _ amount: String, _ api: API) async throws -> (id: String, number: String) {
        let order = try await world.order(amount)
        let started = try await world.start(order.id, "wechat.native", api: api.rawValue)
        let number = try #require(started["out_trade_no"] as? String)
        #expect(try await world.pay("wechat", number: number) == "SUCCESS")
        #expect(try await world.waitFor(order.id, .paid))
        return (order.id, number)
    }

    static func consoleRefund(
        _ world: MoneyWorld, _ api: API, _ number: String, _ amount: String, status: String = "SUCCESS"
    ) async throws -> String {
        let answer = try await world.sandboxCall(
            "POST", "/sandbox/wechat/console_refund",
            json: ["out_trade_no": number, "amount": amount, "notify_url": world.base(0) + api.notifyPath, "status": status])
        try #require(answer.status == 200, "\(answer.object)")
        return try #require(answer.object["out_refund_no"] as? String)
    }

    static func replay(_ world: MoneyWorld, _ api: API, _ key: String, copies: Int) async -> (sent: Int, acknowledged: Int)? {
        await world.sandbox.delivery.replay(
            key: key, copies: copies, to: world.servers.map { URL(string: $0.baseURL.absoluteString + api.notifyPath)! })
    }

    @Test(.timeLimit(.minutes(3)), arguments: cases)
    func consoleRefundsAreRecordedOnceAndClosedOnesMoveNothing(api: API, backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.refundCheckAfter = 0 }  // the refund job (run by hand) looks at every refund
        let (id, number) = try await Self.paid(world, "60.00", api)
        let first = try await Self.consoleRefund(world, api, number, "25.00")
        #expect(try await eventually { try await world.store.order(id: id)?.refunded.minorUnits == 2500 })
        let record = try #require(try await world.store.refund(outRefundNo: first))
        #expect(record.reason == "refunded at WeChat Pay" && record.requestedBy == "wechat" && record.status == .succeeded, "\(record)")
        #expect(record.providerRefundID == first && record.amount.minorUnits == 2500)
        #expect(await eventually { world.webhooks("order.refunded", order: id).count == 1 })

        // Copies at every instance, Cashier's own refund and another console refund, all at once.
        async let heard = Self.replay(world, api, first, copies: 24)
        async let ours = world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "10.00", "reason": "returned"], via: 1)
        async let more = Self.consoleRefund(world, api, number, "5.00")
        let (copies, mine, second) = try await (heard, ours, more)
        #expect(copies?.sent == 24 && copies?.acknowledged == 24, "\(String(describing: copies))")
        #expect(mine.status == 200 || mine.status == 201, "\(mine.object)")
        #expect(try await eventually { try await world.store.order(id: id)?.refunded.minorUnits == 4000 })
        let console = try await world.store.refunds(orderID: id).filter { $0.requestedBy == "wechat" }
        #expect(console.map(\.outRefundNo).sorted() == [first, second].sorted(), "\(console)")

        // A refund WeChat closed: nothing moves, and its number stays failed whatever copies follow.
        let closed = try await Self.consoleRefund(world, api, number, "7.00", status: api.closed)
        #expect(try await eventually { try await world.store.refund(outRefundNo: closed)?.status == .failed })
        _ = await Self.replay(world, api, closed, copies: 6)
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 4000)
        let disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")

        // A record of WeChat's that a crash left pending is finished by the refund job without
        // asking WeChat for a refund: the money went back there already.
        let reserved = try await world.store.reserveRefund(
            NewRefund(
                orderID: id, paymentID: nil, amount: nil, outRefundNo: "50crashed", reason: "refunded at WeChat Pay", requestedBy: "wechat"),
            now: Date())
        #expect(reserved.refund.status == .pending)
        _ = try await world.servers[0].settleRefunds()
        #expect(try await world.store.refund(outRefundNo: "50crashed")?.status == .succeeded)
        let books = try await world.ledger().first { $0.out_trade_no == number }
        let refundedThere = books?.refunds.filter { $0.status == "SUCCESS" }.reduce(0) { $0 + $1.amount_minor }
        #expect(refundedThere == 4000, "WeChat was asked for nothing: \(String(describing: books))")
        await world.stop()
    }
}
