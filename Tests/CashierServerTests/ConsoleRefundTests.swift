import Cashier
import CashierSandbox
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// Refunds made in a provider's console (WeChat Pay's merchant platform, Alipay's merchant
/// center), without Cashier: their notification names a refund number that is not Cashier's.
/// Recorded on the order under the provider's number (reason `refunded at …`, requested by the
/// provider, never sent back to it) — once, however many copies arrive at however many instances,
/// beside Cashier's own refunds — and a refund WeChat closed moves nothing. The books then agree
/// with the provider's.
@Suite struct ConsoleRefundTests {
    enum Provider: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case wechatV2 = "WeChat Pay v2"
        case wechatV3 = "WeChat Pay v3"
        case alipay = "Alipay"
        var testDescription: String { rawValue }
        /// Where the provider sends the refund's notification.
        var notifyPath: String {
            switch self {
            case .wechatV2: "/notify/wechat/v2/refund"
            case .wechatV3: "/notify/wechat/v3"
            case .alipay: "/notify/alipay"
            }
        }
        var actor: String { self == .alipay ? "alipay" : "wechat" }
        var reason: String { self == .alipay ? "refunded at Alipay" : "refunded at WeChat Pay" }
        /// A refund WeChat closed instead of paying (Alipay's console refunds succeed or are not made).
        var closed: String? {
            switch self {
            case .wechatV2: "REFUNDCLOSE"
            case .wechatV3: "CLOSED"
            case .alipay: nil
            }
        }
    }

    static var cases: [(Provider, MoneyWorld.Backend)] {
        Provider.allCases.flatMap { provider in MoneyWorld.Backend.available.map { (provider, $0) } }
    }

    /// An order of `amount` paid at `provider` (a QR code the payer scans); its id and trade number.
    static func paid(_ world: MoneyWorld, _ amount: String, _ provider: Provider) async throws -> (id: String, number: String) {
        let order = try await world.order(amount)
        let started =
            switch provider {
            case .wechatV2: try await world.start(order.id, "wechat.native", api: "v2")
            case .wechatV3: try await world.start(order.id, "wechat.native", api: "v3")
            case .alipay: try await world.start(order.id, "alipay.qr")
            }
        let number = try #require(started["out_trade_no"] as? String)
        _ = try await world.pay(provider == .alipay ? "alipay" : "wechat", number: number)
        #expect(try await world.waitFor(order.id, .paid))
        return (order.id, number)
    }

    /// A refund made in the provider's console; its number there.
    static func consoleRefund(
        _ world: MoneyWorld, _ provider: Provider, _ number: String, _ amount: String, status: String = "SUCCESS"
    ) async throws -> String {
        let answer =
            provider == .alipay
            ? try await world.sandboxCall("POST", "/sandbox/alipay/console_refund", json: ["out_trade_no": number, "amount": amount])
            : try await world.sandboxCall(
                "POST", "/sandbox/wechat/console_refund",
                json: ["out_trade_no": number, "amount": amount, "notify_url": world.base(0) + provider.notifyPath, "status": status])
        try #require(answer.status == 200, "\(answer.object)")
        return try #require((answer.object["out_refund_no"] ?? answer.object["out_biz_no"]) as? String)
    }

    static func replay(_ world: MoneyWorld, _ provider: Provider, _ key: String, copies: Int) async -> (sent: Int, acknowledged: Int)? {
        await world.sandbox.delivery.replay(
            key: key, copies: copies, to: world.servers.map { URL(string: $0.baseURL.absoluteString + provider.notifyPath)! })
    }

    @Test(.timeLimit(.minutes(3)), arguments: cases)
    func consoleRefundsAreRecordedOnceAndClosedOnesMoveNothing(provider: Provider, backend: MoneyWorld.Backend) async throws {
        let world = try await MoneyWorld(backend) { $0.refundCheckAfter = 0 }  // the refund job (run by hand) looks at every refund
        let (id, number) = try await Self.paid(world, "60.00", provider)
        let first = try await Self.consoleRefund(world, provider, number, "25.00")
        await world.settled()
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 2500)
        let record = try #require(try await world.store.refund(outRefundNo: first))
        #expect(record.reason == provider.reason && record.requestedBy == provider.actor && record.status == .succeeded, "\(record)")
        #expect(record.amount.minorUnits == 2500)
        await world.settled()
        #expect(world.webhooks("order.refunded", order: id).count == 1)

        // Copies at every instance, Cashier's own refund and another console refund, all at once.
        async let heard = Self.replay(world, provider, first, copies: 24)
        async let ours = world.call("POST", "/v1/orders/\(id)/refunds", json: ["amount": "10.00", "reason": "returned"], via: 1)
        async let more = Self.consoleRefund(world, provider, number, "5.00")
        let (copies, mine, second) = try await (heard, ours, more)
        #expect(copies?.sent == 24 && copies?.acknowledged == 24, "\(String(describing: copies))")
        #expect(mine.status == 200 || mine.status == 201, "\(mine.object)")
        await world.settled()
        #expect(try await world.store.order(id: id)?.refunded.minorUnits == 4000)
        let console = try await world.store.refunds(orderID: id).filter { $0.requestedBy == provider.actor }
        #expect(console.map(\.outRefundNo).sorted() == [first, second].sorted(), "\(console)")

        // A refund WeChat closed: nothing moves, and its number stays failed whatever copies follow.
        if let closedStatus = provider.closed {
            let closed = try await Self.consoleRefund(world, provider, number, "7.00", status: closedStatus)
            await world.settled()
            #expect(try await world.store.refund(outRefundNo: closed)?.status == .failed)
            _ = await Self.replay(world, provider, closed, copies: 6)
            #expect(try await world.store.order(id: id)?.refunded.minorUnits == 4000)
        }
        let disagreements = try await world.disagreements()
        #expect(disagreements.isEmpty, "\(disagreements)")

        // A record of the provider's that a crash left pending is finished by the refund job without
        // asking the provider for a refund: the money went back there already.
        let reserved = try await world.store.reserveRefund(
            NewRefund(
                orderID: id, paymentID: nil, amount: nil, outRefundNo: "crashed", reason: provider.reason, requestedBy: provider.actor),
            now: Date())
        #expect(reserved.refund.status == .pending)
        _ = try await world.servers[0].settleRefunds()
        #expect(try await world.store.refund(outRefundNo: "crashed")?.status == .succeeded)
        let books = try await world.ledger().first { $0.out_trade_no == number }
        let refundedThere = books?.refunds.filter { $0.status == "SUCCESS" }.reduce(0) { $0 + $1.amount_minor }
        #expect(refundedThere == 4000, "the provider was asked for nothing: \(String(describing: books))")
        await world.stop()
    }
}
