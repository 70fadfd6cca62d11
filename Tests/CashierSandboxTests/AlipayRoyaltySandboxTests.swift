import Alipay
import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Our Alipay client's profit sharing (分账) against the sandbox: relations, sync and async
/// settles on trades frozen for royalties, the rules Alipay holds them to, the settle
/// notification at the application gateway, and the account transfers are paid from.
@Suite struct AlipayRoyaltySandboxTests {
    typealias Keys = AlipaySandboxTests

    static let alice = "2088000000000101"
    static let bob = "2088000000000102"
    static let carol = "2088000000000103"

    static func client(_ sandbox: SandboxServer) -> Alipay.Client {
        Alipay.Client(
            appID: Keys.appID, signer: Alipay.Signer(privateKey: Keys.appKey), alipayPublicKey: sandbox.alipay.alipayPublicKey,
            gateway: sandbox.alipayGatewayURL)
    }

    static func yuan(_ fen: Int64) -> Money { Money(minorUnits: fen, currency: .cny) }

    static func share(_ account: String, _ fen: Int64) -> Alipay.RoyaltyShare {
        Alipay.RoyaltyShare(transInType: "userId", transIn: account, amount: yuan(fen), description: "分账")
    }

    /// A paid trade of `fen`, frozen for royalties unless told otherwise. - Returns: (out_trade_no, trade_no).
    static func paidTrade(_ client: Alipay.Client, _ sandbox: SandboxServer, fen: Int64 = 10_000, freeze: Bool = true) async throws
        -> (String, String)
    {
        let number = TradeNumber.generate()
        _ = try await client.precreate(
            outTradeNo: number, total: yuan(fen), subject: "分账", notifyURL: "http://127.0.0.1:9/none",
            extras: Alipay.TradeExtras(royaltyFreeze: freeze))
        #expect(await sandbox.alipay.pay(outTradeNo: number, outcome: .success) == "TRADE_SUCCESS")
        return (number, try await client.query(outTradeNo: number).tradeNo)
    }

    /// A started sandbox whose royalty clock stands still until a test moves it.
    static func sandbox() async throws -> SandboxServer {
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [Keys.appID: Keys.appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let start = Date()
        await sandbox.alipay.setRoyaltyClock { start }
        return sandbox
    }

    @Test(.timeLimit(.minutes(2))) func relationsBindIdempotentlyUnbindAndPage() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        let receivers = [Self.alice, Self.bob, Self.carol].map { Alipay.RoyaltyReceiver(type: "userId", account: $0) }
        #expect(try await client.bindRoyaltyRelation(outRequestNo: "B1", receivers: receivers) == "SUCCESS")
        #expect(try await client.bindRoyaltyRelation(outRequestNo: "B2", receivers: [receivers[0]]) == "SUCCESS")
        #expect(await sandbox.alipay.royaltyRelations(appID: Keys.appID).count == 3)
        let first = try await client.royaltyRelations(outRequestNo: "Q1", pageNumber: 1, pageSize: 2)
        #expect(first.receivers.map(\.account) == [Self.alice, Self.bob] && first.totalRecords == 3 && first.totalPages == 2)
        let second = try await client.royaltyRelations(outRequestNo: "Q2", pageNumber: 2, pageSize: 2)
        #expect(second.receivers.map(\.account) == [Self.carol] && second.pageNumber == 2 && second.pageSize == 1)
        try await client.unbindRoyaltyRelation(outRequestNo: "U1", receivers: [receivers[1]])
        #expect(await sandbox.alipay.royaltyRelations(appID: Keys.appID) == ["userId:\(Self.alice)", "userId:\(Self.carol)"])
        // A loginName needs the holder's name; a userId is 2088 and 16 digits.
        let nameless = await #expect(throws: PaymentError.self) {
            try await client.bindRoyaltyRelation(outRequestNo: "B3", receivers: [.init(type: "loginName", account: "a@example.com")])
        }
        #expect(nameless?.providerCode == "ACQ.INVALID_PARAMETER")
        let badID = await #expect(throws: PaymentError.self) {
            try await client.bindRoyaltyRelation(outRequestNo: "B4", receivers: [.init(type: "userId", account: "1234")])
        }
        #expect(badID?.providerCode == "ACQ.INVALID_PARAMETER")
        await sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2))) func syncSettleFollowsAlipaysRules() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        try await client.bindRoyaltyRelation(
            outRequestNo: "B1", receivers: [Self.alice, Self.bob].map { .init(type: "userId", account: $0) })
        let (number, tradeNo) = try await Self.paidTrade(client, sandbox)
        #expect(try await client.unsettledAmount(tradeNo: tradeNo) == Self.yuan(10_000))

        let settled = try await client.settle(outRequestNo: "S1", tradeNo: tradeNo, shares: [Self.share(Self.alice, 1000)])
        #expect(settled.tradeNo == tradeNo && settled.settleNo?.isEmpty == false)
        let queried = try await client.settleQuery(outRequestNo: "S1", tradeNo: tradeNo)
        #expect(queried.isFinal && queried.details.map(\.state) == ["SUCCESS"] && queried.details.first?.amount == Self.yuan(1000))
        #expect(try await client.settleQuery(settleNo: settled.settleNo ?? "").outRequestNo == "S1")
        #expect(try await client.unsettledAmount(tradeNo: tradeNo) == Self.yuan(9000))

        // The same number and body: the same settle, nothing moved twice; another body refused.
        #expect(try await client.settle(outRequestNo: "S1", tradeNo: tradeNo, shares: [Self.share(Self.alice, 1000)]) == settled)
        #expect(try await client.unsettledAmount(tradeNo: tradeNo) == Self.yuan(9000))
        let other = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "S1", tradeNo: tradeNo, shares: [Self.share(Self.alice, 1001)])
        }
        #expect(other?.providerCode == "ACQ.PARAM_INCONSISTENT")

        // An unbound receiver; more than 30 % in all to others (10.00 + 20.01 > 30.00): refused, nothing moved.
        let unbound = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "S2", tradeNo: tradeNo, shares: [Self.share(Self.carol, 100)])
        }
        #expect(unbound?.providerCode == "ACQ.ROYALTY_RELATION_NOT_EXIST")
        let greedy = await #expect(throws: PaymentError.self) {
            try await client.settle(
                outRequestNo: "S3", tradeNo: tradeNo, shares: [Self.share(Self.alice, 1000), Self.share(Self.bob, 1001)])
        }
        #expect(greedy?.providerCode == "ACQ.ALLOC_AMOUNT_VALIDATE_ERROR")
        // All or nothing: neither share of the refused request moved.
        #expect(await sandbox.alipay.royaltySettles(outTradeNo: number).count == 1)

        // Mixing modes on one trade is refused.
        let mixed = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "S4", tradeNo: tradeNo, shares: [Self.share(Self.bob, 100)], mode: .async)
        }
        #expect(mixed?.providerCode == "ACQ.TRADE_SETTLE_ERROR")

        // A refund takes only what was not settled: 90.00 of 100.00.
        let over = await #expect(throws: PaymentError.self) {
            try await client.refund(outTradeNo: number, amount: Self.yuan(9001), outRequestNo: "R1")
        }
        #expect(over?.providerCode == "ACQ.REFUND_AMT_NOT_EQUAL_TOTAL")
        #expect(try await client.refund(outTradeNo: number, amount: Self.yuan(8500), outRequestNo: "R2") == Self.yuan(8500))
        #expect(try await client.unsettledAmount(tradeNo: tradeNo) == Self.yuan(500))
        // Within 30 % but more than is left unsettled.
        let beyond = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "S5", tradeNo: tradeNo, shares: [Self.share(Self.bob, 501)])
        }
        #expect(beyond?.providerCode == "ACQ.ALLOC_AMOUNT_VALIDATE_ERROR")
        // The merchant center refunds only the unsettled rest too.
        await #expect(throws: PaymentError.self) { try await sandbox.alipay.consoleRefund(outTradeNo: number, amount: Self.yuan(501)) }

        // royalty_finish with no shares ends the trade's settling: nothing left, nothing more settled.
        _ = try await client.settle(outRequestNo: "S6", tradeNo: tradeNo, shares: [], finish: true)
        #expect(try await client.unsettledAmount(tradeNo: tradeNo) == Self.yuan(0))
        let after = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "S7", tradeNo: tradeNo, shares: [Self.share(Self.bob, 100)])
        }
        #expect(after?.providerCode == "ACQ.TRADE_SETTLE_ERROR")
        let missing = await #expect(throws: PaymentError.self) { try await client.settleQuery(outRequestNo: "NONE", tradeNo: tradeNo) }
        #expect(missing?.providerCode == "RESOURCE_NOT_FOUND")
        await sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2))) func settleNeedsAFrozenPaidTrade() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        try await client.bindRoyaltyRelation(outRequestNo: "B1", receivers: [.init(type: "userId", account: Self.alice)])
        let (_, plain) = try await Self.paidTrade(client, sandbox, freeze: false)
        let unfrozen = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "S1", tradeNo: plain, shares: [Self.share(Self.alice, 100)])
        }
        #expect(unfrozen?.providerCode == "ACQ.TRADE_SETTLE_ERROR")
        let unpaid = TradeNumber.generate()
        _ = try await client.precreate(
            outTradeNo: unpaid, total: Self.yuan(1000), subject: "x", notifyURL: "http://127.0.0.1:9/none",
            extras: .init(royaltyFreeze: true))
        #expect(await sandbox.alipay.ledger().first { $0.out_trade_no == unpaid }?.sent["royalty_freeze"] == "true")
        let unpaidTradeNo = try await client.query(outTradeNo: unpaid).tradeNo
        let waiting = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "S2", tradeNo: unpaidTradeNo, shares: [Self.share(Self.alice, 100)])
        }
        #expect(waiting?.providerCode == "ACQ.TRADE_STATUS_ERROR")
        let unknown = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "S3", tradeNo: "2026NOSUCH", shares: [Self.share(Self.alice, 100)])
        }
        #expect(unknown?.providerCode == "ACQ.TRADE_NOT_EXIST")
        await sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2))) func asyncSettleFinishesOnTheClockAndNotifiesTheGateway() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        let gateway = try AlipaySandboxTests.Inbox()
        await sandbox.alipay.setApplicationGateway(appID: Keys.appID, url: gateway.url)
        await sandbox.alipay.setRoyaltyFailure(account: Self.bob)
        try await client.bindRoyaltyRelation(
            outRequestNo: "B1", receivers: [Self.alice, Self.bob].map { .init(type: "userId", account: $0) })
        let (number, tradeNo) = try await Self.paidTrade(client, sandbox)
        let settle = try await client.settle(
            outRequestNo: "A1", tradeNo: tradeNo, shares: [Self.share(Self.alice, 1000), Self.share(Self.bob, 500)], mode: .async)
        let processing = try await client.settleQuery(outRequestNo: "A1", tradeNo: tradeNo)
        #expect(processing.details.map(\.state) == ["PROCESSING", "PROCESSING"] && !processing.isFinal)
        #expect(try await client.unsettledAmount(tradeNo: tradeNo) == Self.yuan(8500))

        await sandbox.alipay.advanceRoyaltyClock(by: 3)
        let body = try #require(try await gateway.first())
        let notification = try Alipay.SettleNotification.verify(body, publicKey: sandbox.alipay.alipayPublicKey, appID: Keys.appID)
        #expect(notification.settle.outRequestNo == "A1" && notification.settle.settleNo == settle.settleNo)
        #expect(notification.settle.details.map(\.state) == ["SUCCESS", "FAIL"] && notification.fields["sign_type"] == "RSA2")
        #expect(notification.settle.details.last?.errorCode == "TXN_RESULT_ACCOUNT_STATUS_NOT_VALID")
        let done = try await client.settleQuery(settleNo: settle.settleNo ?? "")
        #expect(done.isFinal && done.details.map(\.state) == ["SUCCESS", "FAIL"])
        // The failed share went back to the trade's unsettled amount.
        #expect(try await client.unsettledAmount(tradeNo: tradeNo) == Self.yuan(9000))
        #expect(await sandbox.alipay.royaltySettles(outTradeNo: number).first?.royalty_mode == "async")
        // Now async: a sync settle on the trade is refused.
        let mixed = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "A2", tradeNo: tradeNo, shares: [Self.share(Self.alice, 100)])
        }
        #expect(mixed?.providerCode == "ACQ.TRADE_SETTLE_ERROR")
        await sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2))) func fundAccountGivesTheTransferBalance() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        let opening = try await client.fundAccount(alipayUserID: sandbox.alipay.sellerID)
        #expect(opening.available == Self.yuan(await sandbox.alipay.transferBalance(appID: Keys.appID)))
        _ = try await client.uniTransfer(
            outBizNo: "T" + SecureRandom.alphanumeric(count: 12), amount: Self.yuan(250), payee: .init(identity: Self.alice), title: "t")
        #expect(
            try await client.fundAccount(alipayUserID: sandbox.alipay.sellerID).available == Self.yuan(opening.available.minorUnits - 250))
        let nobody = await #expect(throws: PaymentError.self) { try await client.fundAccount(alipayUserID: nil) }
        #expect(nobody?.providerCode == "INVALID_PARAMETER")
        await sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2))) func requestCapsAndAsyncRetries() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        try await client.bindRoyaltyRelation(outRequestNo: "B1", receivers: [.init(type: "userId", account: Self.alice)])
        // Sync: 50 requests a trade, the 51st refused.
        let (_, syncTrade) = try await Self.paidTrade(client, sandbox)
        for index in 1...50 {
            _ = try await client.settle(outRequestNo: "S\(index)", tradeNo: syncTrade, shares: [Self.share(Self.alice, 1)])
        }
        let fiftyFirst = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "S51", tradeNo: syncTrade, shares: [Self.share(Self.alice, 1)])
        }
        #expect(fiftyFirst?.providerCode == "ACQ.SETTLE_COUNT_EXCEED_LIMIT")
        #expect(try await client.unsettledAmount(tradeNo: syncTrade) == Self.yuan(9950))

        // Async: the same number and body answer the same settle (even once decided), another body is refused;
        // past 50 receivers the sandbox refuses too (sent around the client's own check).
        let (_, asyncTrade) = try await Self.paidTrade(client, sandbox)
        let first = try await client.settle(outRequestNo: "A1", tradeNo: asyncTrade, shares: [Self.share(Self.alice, 300)], mode: .async)
        await sandbox.alipay.advanceRoyaltyClock(by: 3)
        let retried = try await client.settle(outRequestNo: "A1", tradeNo: asyncTrade, shares: [Self.share(Self.alice, 300)], mode: .async)
        #expect(retried.settleNo == first.settleNo)
        #expect(try await client.unsettledAmount(tradeNo: asyncTrade) == Self.yuan(9700))
        let other = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "A1", tradeNo: asyncTrade, shares: [Self.share(Self.alice, 301)], mode: .async)
        }
        #expect(other?.providerCode == "ACQ.PARAM_INCONSISTENT")
        let fiftyOne = Array(repeating: Self.share(Self.alice, 1).biz, count: 51)
        let crowded = await #expect(throws: PaymentError.self) {
            _ = try await client.call(
                "alipay.trade.order.settle",
                biz: ["out_request_no": "A2", "trade_no": asyncTrade, "royalty_parameters": fiftyOne, "royalty_mode": "async"])
        }
        #expect(crowded?.providerCode == "ACQ.INVALID_PARAMETER")
        // Amounts as JSON numbers, as the document types them (python callers send floats): 0.1 is 10 fen.
        _ = try await client.call(
            "alipay.trade.order.settle",
            biz: [
                "out_request_no": "A3", "trade_no": asyncTrade, "royalty_mode": "async",
                "royalty_parameters": [["royalty_type": "transfer", "trans_in_type": "userId", "trans_in": Self.alice, "amount": 0.1]],
            ])
        #expect(try await client.unsettledAmount(tradeNo: asyncTrade) == Self.yuan(9690))
        // Async: 300 requests a trade (two made above), the 301st refused.
        for index in 2..<300 {
            _ = try await client.settle(outRequestNo: "N\(index)", tradeNo: asyncTrade, shares: [Self.share(Self.alice, 1)], mode: .async)
        }
        let threeHundredFirst = await #expect(throws: PaymentError.self) {
            try await client.settle(outRequestNo: "N300", tradeNo: asyncTrade, shares: [Self.share(Self.alice, 1)], mode: .async)
        }
        #expect(threeHundredFirst?.providerCode == "ACQ.SETTLE_COUNT_EXCEED_LIMIT")
        await sandbox.stop()
    }

    /// Fired many times at once: one settle of one number, and distinct settles never past 30 % in all.
    @Test(.timeLimit(.minutes(2))) func settlesFiredAtOnceMoveMoneyOnce() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        try await client.bindRoyaltyRelation(outRequestNo: "B1", receivers: [.init(type: "userId", account: Self.alice)])
        let (number, tradeNo) = try await Self.paidTrade(client, sandbox)
        let same = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    try await client.settle(outRequestNo: "X1", tradeNo: tradeNo, shares: [Self.share(Self.alice, 700)]).settleNo
                }
            }
            return try await group.reduce(into: Set<String?>()) { $0.insert($1) }
        }
        #expect(same.count == 1)
        // 23.00 left under 30 %: of twelve 5.00 settles at once, four are accepted.
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<12 {
                group.addTask {
                    (try? await client.settle(outRequestNo: "Y\(index)", tradeNo: tradeNo, shares: [Self.share(Self.alice, 500)])) != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 4)
        #expect(await sandbox.alipay.royaltySettles(outTradeNo: number).count == 5)
        #expect(try await client.unsettledAmount(tradeNo: tradeNo) == Self.yuan(10_000 - 700 - 2000))
        await sandbox.stop()
    }

    /// The control calls a script uses: the application gateway and the royalty clock, over HTTP.
    @Test(.timeLimit(.minutes(2))) func gatewayAndClockOverHTTP() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        let gateway = try AlipaySandboxTests.Inbox()
        func post(_ path: String, _ object: [String: Any]) async throws -> Int {
            var request = URLRequest(url: sandbox.baseURL.appendingPathComponent(path))
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: object)
            return try await Self.status(request)
        }
        #expect(try await post("sandbox/alipay/gateway", ["app_id": Keys.appID, "url": gateway.url]) == 200)
        #expect(try await post("sandbox/alipay/gateway", ["url": gateway.url]) == 400)
        try await client.bindRoyaltyRelation(outRequestNo: "B1", receivers: [.init(type: "userId", account: Self.alice)])
        let (_, tradeNo) = try await Self.paidTrade(client, sandbox)
        _ = try await client.settle(outRequestNo: "A1", tradeNo: tradeNo, shares: [Self.share(Self.alice, 100)], mode: .async)
        #expect(try await post("sandbox/alipay/royalty/advance", ["seconds": 1]) == 200)
        #expect(try await client.settleQuery(outRequestNo: "A1", tradeNo: tradeNo).details.map(\.state) == ["PROCESSING"])
        #expect(try await post("sandbox/alipay/royalty/advance", ["seconds": 1.5]) == 200)
        let body = try #require(try await gateway.first())
        let notification = try Alipay.SettleNotification.verify(body, publicKey: sandbox.alipay.alipayPublicKey, appID: Keys.appID)
        #expect(notification.settle.details.map(\.state) == ["SUCCESS"])
        await sandbox.stop()
    }

    static func status(_ request: URLRequest) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
