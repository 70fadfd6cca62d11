import Alipay
import Cashier
import CashierCurl
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CashierServer
@testable import CashierStore

/// `AlipayAdapter` as a `Splitting` adapter against the Alipay sandbox: receivers bound, an async
/// settle sent (PROCESSING), not found before it exists, finished on the sandbox's royalty clock
/// with per-share results, the gateway's settle notification read as a split report, refusals
/// with Alipay's sub_code, returns unsupported, what is left to split, royalty_freeze on orders
/// that share, and the fund balance.
@Suite struct AlipaySplitAdapterTests {
    static let appID = "2021000000000031"
    static let appKey = TestKeys.rsa(0)
    static let alice = "2088000000000101"

    /// The app's application gateway: keeps what arrives, answers `success`.
    final class Gateway: Sendable {
        final class Sink: Sendable {
            let bodies = Mutex<[[UInt8]]>([])
            let arrivals = Tally()
        }
        let sink = Sink()
        let server: HTTPServer

        init() throws {
            let sink = self.sink
            server = HTTPServer(configuration: .init()) { request in
                sink.bodies.withLock { $0.append(request.body) }
                sink.arrivals.add()
                return .text("success")
            }
            try server.start()
        }

        var url: String { "http://127.0.0.1:\(server.port)/gateway" }

        func first() async -> [UInt8]? {
            await sink.arrivals.first(within: .seconds(30)) { sink.bodies.withLock { $0.first } }
        }
    }

    static func split(_ outOrderNo: String, tradeNo: String, shares: [(String, Int64)], finish: Bool = false) -> StoredSplit {
        StoredSplit(
            id: "sp_" + outOrderNo, orderID: "ord_1", paymentID: "pay_1", merchant: nil, provider: "alipay", outOrderNo: outOrderNo,
            transactionID: tradeNo, providerOrderID: nil,
            shares: shares.map { .init(type: "userId", account: $0.0, amountMinor: $0.1, description: "佣金") },
            amount: Money(minorUnits: shares.reduce(0) { $0 + $1.1 }, currency: .cny), finish: finish, description: "分账",
            status: .pending, providerState: nil, failureReason: nil, version: 1, createdAt: Date(), updatedAt: Date(), finishedAt: nil)
    }

    @Test(.timeLimit(.minutes(2))) func splitsGoThroughRoyaltyRelationsAndAsyncSettles() async throws {
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [Self.appID: Self.appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let start = Date()
        await sandbox.alipay.setRoyaltyClock { start }  // async settles finish only when the test moves the clock
        let adapter = AlipayAdapter(
            configuration: .init(
                appID: Self.appID, privateKey: Self.appKey, alipayPublicKey: sandbox.alipay.alipayPublicKey,
                gateway: sandbox.alipayGatewayURL, sellerID: sandbox.alipay.sellerID),
            transport: CurlTransport(), notifyBase: { "http://127.0.0.1:9" }, clock: SystemClock())
        #expect(adapter.splitMerchantID == Self.appID)
        let gateway = try Gateway()
        await sandbox.alipay.setApplicationGateway(appID: Self.appID, url: gateway.url)

        // An order that shares is placed frozen; one that does not, not.
        var order = StoredOrder(
            id: "ord_1", outTradeNo: "O1", status: .created, total: Money(minorUnits: 10_000, currency: .cny),
            refunded: Money(minorUnits: 0, currency: .cny), description: "分账", metadataJSON: "{}", itemsJSON: "[]", clientSecret: "s",
            refundRequired: false, version: 1, createdAt: Date(), expiresAt: nil, settledPaymentID: nil)
        #expect(!adapter.extras(order).royaltyFreeze)
        order.profitSharing = true
        #expect(adapter.extras(order).royaltyFreeze)
        let number = TradeNumber.generate()
        _ = try await adapter.client.precreate(
            outTradeNo: number, total: order.total, subject: "分账", notifyURL: "http://127.0.0.1:9/n", extras: adapter.extras(order))
        await sandbox.alipay.pay(outTradeNo: number, outcome: .success)
        let tradeNo = try await adapter.client.query(outTradeNo: number).tradeNo

        let receiver = StoredReceiver(
            id: "rcv_1", merchant: nil, provider: "alipay", type: "userId", account: Self.alice, relationType: "PARTNER",
            customRelation: nil, status: .active, createdAt: Date(), updatedAt: Date())
        try await adapter.addReceiver(receiver, name: nil)
        try await adapter.addReceiver(receiver, name: nil)
        #expect(await sandbox.alipay.royaltyRelations(appID: Self.appID) == ["userId:\(Self.alice)"])

        let split = Self.split("SP1", tradeNo: tradeNo, shares: [(Self.alice, 1500)])
        #expect(try await adapter.splitProgress(split) == nil)
        let sent = try await adapter.sendSplit(split)
        #expect(sent.status == .processing && sent.providerState == "PROCESSING" && sent.providerOrderID?.isEmpty == false)
        #expect(try await adapter.splitProgress(split)?.status == .processing)
        let payment = StoredPayment(
            id: "pay_1", orderID: "ord_1", method: .alipayQR, provider: .alipay, outTradeNo: number, appID: Self.appID, merchantID: nil,
            payer: nil, transactionID: tradeNo, walletToken: nil, amount: order.total, refunded: Money(minorUnits: 0, currency: .cny),
            reserved: Money(minorUnits: 0, currency: .cny), status: .succeeded, refundRequired: false, failureReason: nil,
            createdAt: Date(), updatedAt: Date(), succeededAt: Date())
        #expect(try await adapter.unsplitAmount(of: payment) == Money(minorUnits: 8500, currency: .cny))

        await sandbox.alipay.advanceRoyaltyClock(by: 5)
        let finished = try #require(try await adapter.splitProgress(split))
        #expect(
            finished.status == .finished && finished.shares.map(\.result) == [.succeeded] && finished.shares.first?.account == Self.alice)
        let body = try #require(await gateway.first())
        let events = try await adapter.splitEvents(InboundMessage(headers: [:], body: body))
        guard case .split(let report) = try #require(events.first) else {
            Issue.record("not a split report")
            return
        }
        #expect(report.provider == .alipay && report.merchantID == Self.appID && report.outOrderNo == "SP1")
        #expect(
            report.progress.status == .finished && report.progress.shares.map(\.result) == [.succeeded] && !report.notificationID.isEmpty)
        var forged = body
        forged[forged.count - 3] ^= 1
        await #expect(throws: PaymentError.self) { try await adapter.splitEvents(InboundMessage(headers: [:], body: forged)) }

        // Refused by Alipay (over 30 % in all): providerRejected with the sub_code.
        let greedy = await #expect(throws: PaymentError.self) {
            try await adapter.sendSplit(Self.split("SP2", tradeNo: tradeNo, shares: [(Self.alice, 1600)]))
        }
        #expect(greedy?.code == .providerRejected && greedy?.providerCode == "ACQ.ALLOC_AMOUNT_VALIDATE_ERROR")
        // Ending the trade's sharing only.
        let end = try await adapter.sendSplit(Self.split("SP3", tradeNo: tradeNo, shares: [], finish: true))
        #expect(end.status == .finished)
        #expect(try await adapter.unsplitAmount(of: payment) == Money(minorUnits: 0, currency: .cny))

        let unsupported = await #expect(throws: PaymentError.self) {
            try await adapter.sendSplitReturn(
                StoredSplitReturn(
                    id: "r1", splitID: split.id, orderID: "ord_1", outReturnNo: "R1", account: Self.alice,
                    amount: Money(minorUnits: 100, currency: .cny), description: "", status: .pending, providerReturnID: nil,
                    providerState: nil, failureReason: nil, createdAt: Date(), updatedAt: Date()), of: split)
        }
        #expect(unsupported?.providerCode == "UNSUPPORTED" && unsupported?.message.contains("refund_royalty_parameters") == true)

        try await adapter.removeReceiver(receiver)
        #expect(await sandbox.alipay.royaltyRelations(appID: Self.appID).isEmpty)
        #expect(
            try await adapter.fundBalance() == Money(minorUnits: await sandbox.alipay.transferBalance(appID: Self.appID), currency: .cny))
        await sandbox.stop()
    }
}
