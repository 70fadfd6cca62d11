import Cashier
import CashierCrypto
import CashierSandbox
import Foundation
import Synchronization
import Testing
import WeChatPay

/// Our v3 client's profit-sharing calls (分账) against the sandbox, on the sandbox clock: a share
/// is `PROCESSING`, then `FINISHED` once the delay has passed; a receiver deleted meanwhile gets
/// `CLOSED`; every limit WeChat sets (50 receivers, 30 % to others, the unsplit amount, nothing
/// after the order ended) and every refusal (a name in clear or tampered with, a receiver never
/// added, a transaction not paid for sharing, another body under the same number), refused;
/// returns up to what the receiver got; a refund never takes what the shares hold.
@Suite struct WeChatV3ProfitSharingSandboxTests {
    typealias Keys = WeChatV3SandboxTests
    static let appID = "wxd678efh567hg6787"
    static let receiver = "1900000110"
    static let person = "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"

    /// The sandbox clock, moved by hand.
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_795_000_000))
        func advance(by seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    struct World {
        let sandbox: SandboxServer
        let client: WeChatPay.V3.Client
        let clock = Clock()

        init() async throws {
            sandbox = try Keys.sandbox()
            client = WeChatPay.V3.Client(merchant: Keys.merchant, keys: WeChatPay.V3.PlatformKeys(), baseURL: sandbox.wechatV3URL)
            let clock = clock
            await sandbox.wechatV3.setProfitSharingClock { clock.now.withLock { $0 } }
        }

        /// A paid order of `total` fen: its `out_trade_no` and `transaction_id`.
        func paid(_ total: Int64 = 10_000, profitSharing: Bool = true) async throws -> (outTradeNo: String, transactionID: String) {
            let number = "PS" + SecureRandom.alphanumeric(count: 20)
            _ = try await client.prepay(
                .native, appID: WeChatV3ProfitSharingSandboxTests.appID, description: "分账测试", outTradeNo: number,
                total: Money(minorUnits: total, currency: .cny), notifyURL: "http://127.0.0.1:9/notify", profitSharing: profitSharing)
            #expect(await sandbox.wechatV3.pay(outTradeNo: number, outcome: .success) == "SUCCESS")
            let transaction = try await client.transaction(outTradeNo: number)
            return (number, try #require(transaction.transactionID))
        }

        func addReceivers() async throws {
            try await client.addProfitSharingReceiver(
                .init(
                    appID: WeChatV3ProfitSharingSandboxTests.appID, type: .merchantID, account: WeChatV3ProfitSharingSandboxTests.receiver,
                    name: "深圳市示例科技有限公司", relationType: "PARTNER"))
            try await client.addProfitSharingReceiver(
                .init(
                    appID: WeChatV3ProfitSharingSandboxTests.appID, type: .personalOpenID,
                    account: WeChatV3ProfitSharingSandboxTests.person,
                    relationType: "USER"))
        }

        func share(
            _ transactionID: String, _ outOrderNo: String, _ shares: [(WeChatPay.V3.ProfitSharingReceiver.Kind, String, Int64)],
            unfreeze: Bool = false
        ) async throws -> WeChatPay.V3.ProfitSharingOrder {
            try await client.createProfitSharingOrder(
                .init(
                    appID: WeChatV3ProfitSharingSandboxTests.appID, transactionID: transactionID, outOrderNo: outOrderNo,
                    receivers: shares.map { .init(type: $0.0, account: $0.1, amount: $0.2, description: "分账") }, unfreezeUnsplit: unfreeze))
        }

        func refused(_ call: () async throws -> some Any) async -> String? {
            do {
                _ = try await call()
                return nil
            } catch let error as PaymentError {
                return error.providerCode ?? "\(error.code)"
            } catch {
                return "\(error)"
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func aShareIsProcessingThenFinishedOnTheSandboxClockAndRetriesAreOneOrder() async throws {
        let world = try await World()
        try await world.addReceivers()
        let receivers = await world.sandbox.wechatV3.profitSharingReceivers()
        #expect(receivers.map(\.account) == [Self.receiver, Self.person])
        #expect(receivers.first?.name == "深圳市示例科技有限公司" && receivers.last?.name == nil)
        try await world.addReceivers()  // adding again is fine
        #expect(await world.sandbox.wechatV3.profitSharingReceivers().count == 2)
        let (_, transactionID) = try await world.paid(10_000)
        #expect(try await world.client.profitSharingUnsplitAmount(transactionID: transactionID) == 10_000)
        let order = try await world.share(transactionID, "P1", [(.merchantID, Self.receiver, 2_000), (.personalOpenID, Self.person, 500)])
        #expect(order.state == .processing && order.receivers.map(\.result) == [.pending, .pending] && !order.orderID.isEmpty)
        #expect(try await world.client.profitSharingUnsplitAmount(transactionID: transactionID) == 7_500)
        // The same number and body: the same order, nothing shared twice.
        let again = try await world.share(transactionID, "P1", [(.merchantID, Self.receiver, 2_000), (.personalOpenID, Self.person, 500)])
        #expect(again.orderID == order.orderID)
        #expect(await world.sandbox.wechatV3.profitSharingOrders().count == 1)
        // Another body under the same number is refused.
        #expect(
            await world.refused { try await world.share(transactionID, "P1", [(.merchantID, Self.receiver, 2_001)]) } == "INVALID_REQUEST")
        world.clock.advance(by: 59)
        #expect(try await world.client.profitSharingOrder(outOrderNo: "P1", transactionID: transactionID).state == .processing)
        world.clock.advance(by: 1)
        let finished = try await world.client.profitSharingOrder(outOrderNo: "P1", transactionID: transactionID)
        #expect(finished.state == .finished && finished.receivers.map(\.result) == [.success, .success])
        #expect(finished.receivers.allSatisfy { $0.finishTime != nil && $0.detailID != nil })
        // Every character WeChat allows in out_order_no, `|` escaped in the path.
        let odd = try await world.share(transactionID, "P_2-a|b*c@d", [(.personalOpenID, Self.person, 1)])
        #expect(odd.outOrderNo == "P_2-a|b*c@d")
        #expect(try await world.client.profitSharingOrder(outOrderNo: "P_2-a|b*c@d", transactionID: transactionID).orderID == odd.orderID)
        // Asked about another transaction, or a number never used: no such order.
        #expect(
            await world.refused {
                try await world.client.profitSharingOrder(outOrderNo: "P1", transactionID: "4200000000000000000000000000")
            } == "RESOURCE_NOT_EXISTS")
        #expect(
            await world.refused { try await world.client.profitSharingOrder(outOrderNo: "P404", transactionID: transactionID) }
                == "RESOURCE_NOT_EXISTS")
    }

    @Test(.timeLimit(.minutes(2))) func aReceiverDeletedBeforeTheShareFinishesIsClosed() async throws {
        let world = try await World()
        try await world.addReceivers()
        let (_, transactionID) = try await world.paid(10_000)
        _ = try await world.share(transactionID, "P1", [(.merchantID, Self.receiver, 1_000), (.personalOpenID, Self.person, 500)])
        try await world.client.deleteProfitSharingReceiver(
            .init(appID: Self.appID, type: .personalOpenID, account: Self.person, relationType: "USER"))
        world.clock.advance(by: 60)
        let order = try await world.client.profitSharingOrder(outOrderNo: "P1", transactionID: transactionID)
        #expect(order.state == .finished && order.receivers.map(\.result) == [.success, .closed])
        #expect(order.receivers[1].failReason == "NO_RELATION" && order.receivers[0].failReason == nil)
        // The closed share's money is back to share.
        #expect(try await world.client.profitSharingUnsplitAmount(transactionID: transactionID) == 9_000)
        // A deleted receiver can no longer be named.
        #expect(
            await world.refused { try await world.share(transactionID, "P2", [(.personalOpenID, Self.person, 10)]) } == "INVALID_REQUEST")
    }

    @Test(.timeLimit(.minutes(2))) func theLimitsAreWeChats() async throws {
        let world = try await World()
        try await world.addReceivers()
        let (_, transactionID) = try await world.paid(10_000)
        // 30 % to others: 3,000 fen of 10,000, over any number of requests; the merchant itself is not counted.
        #expect(
            await world.refused { try await world.share(transactionID, "P1", [(.merchantID, Self.receiver, 3_001)]) } == "INVALID_REQUEST")
        _ = try await world.share(transactionID, "P2", [(.merchantID, Self.receiver, 2_000)])
        #expect(
            await world.refused { try await world.share(transactionID, "P3", [(.personalOpenID, Self.person, 1_001)]) } == "INVALID_REQUEST"
        )
        _ = try await world.share(transactionID, "P4", [(.personalOpenID, Self.person, 1_000), (.merchantID, Keys.merchant.mchID, 5_000)])
        // Never more than is unsplit (2,000 left; the merchant's own share is limited only by it).
        #expect(try await world.client.profitSharingUnsplitAmount(transactionID: transactionID) == 2_000)
        #expect(
            await world.refused { try await world.share(transactionID, "P5", [(.merchantID, Keys.merchant.mchID, 2_001)]) } == "NOT_ENOUGH")
        // 51 receivers in a request: the library refuses before sending; the sandbox too.
        let many = (0..<51).map { ["type": "PERSONAL_OPENID", "account": "o\($0)", "amount": 1, "description": "d"] as [String: Any] }
        let body: [String: Any] = [
            "appid": Self.appID, "transaction_id": transactionID, "out_order_no": "P51", "receivers": many, "unfreeze_unsplit": false,
        ]
        #expect(await world.refused { try await world.client.send("POST", "/v3/profitsharing/orders", json: body) } == "PARAM_ERROR")
        let local = await #expect(throws: PaymentError.self) {
            try await world.share(transactionID, "P6", (0..<51).map { _ in (.personalOpenID, Self.person, 1) })
        }
        #expect(local?.code == .invalidRequest && local?.providerCode == nil)
        // A receiver never added.
        #expect(
            await world.refused { try await world.share(transactionID, "P7", [(.personalOpenID, "oNeverAdded", 1)]) } == "INVALID_REQUEST")
        // 50 requests a transaction: 2 made, 48 more of 1 fen each to the merchant itself, then no more.
        for index in 0..<48 { _ = try await world.share(transactionID, "Q\(index)", [(.merchantID, Keys.merchant.mchID, 1)]) }
        #expect(
            await world.refused { try await world.share(transactionID, "Q48", [(.merchantID, Keys.merchant.mchID, 1)]) }
                == "INVALID_REQUEST")
        // A transaction not paid for sharing, or unknown.
        let (_, plain) = try await world.paid(10_000, profitSharing: false)
        #expect(await world.refused { try await world.share(plain, "P8", [(.merchantID, Self.receiver, 1)]) } == "INVALID_REQUEST")
        #expect(
            await world.refused { try await world.share("4200000000000000000000000000", "P9", [(.merchantID, Self.receiver, 1)]) }
                == "RESOURCE_NOT_EXISTS")
    }

    @Test(.timeLimit(.minutes(2))) func unfreezeUnsplitAndUnfreezeEndTheOrder() async throws {
        let world = try await World()
        try await world.addReceivers()
        let (_, first) = try await world.paid(10_000)
        _ = try await world.share(first, "P1", [(.merchantID, Self.receiver, 1_000)], unfreeze: true)
        #expect(try await world.client.profitSharingUnsplitAmount(transactionID: first) == 0)
        #expect(await world.refused { try await world.share(first, "P2", [(.merchantID, Self.receiver, 1)]) } == "INVALID_REQUEST")
        #expect(
            await world.refused { try await world.client.unfreezeProfitSharing(transactionID: first, outOrderNo: "U1", description: "解冻") }
                == "INVALID_REQUEST")
        let (_, second) = try await world.paid(10_000)
        _ = try await world.share(second, "S1", [(.merchantID, Self.receiver, 1_000)])
        let unfrozen = try await world.client.unfreezeProfitSharing(transactionID: second, outOrderNo: "S2", description: "解冻全部剩余资金")
        #expect(unfrozen.state == .processing && unfrozen.receivers.map(\.amount) == [9_000])
        #expect(unfrozen.receivers.first?.account == Keys.merchant.mchID)
        // The same unfreeze again: the same order.
        let again = try await world.client.unfreezeProfitSharing(transactionID: second, outOrderNo: "S2", description: "解冻全部剩余资金")
        #expect(again.orderID == unfrozen.orderID)
        #expect(try await world.client.profitSharingUnsplitAmount(transactionID: second) == 0)
        #expect(await world.refused { try await world.share(second, "S3", [(.merchantID, Self.receiver, 1)]) } == "INVALID_REQUEST")
        world.clock.advance(by: 60)
        #expect(try await world.client.profitSharingOrder(outOrderNo: "S2", transactionID: second).state == .finished)
        #expect(await world.sandbox.wechatV3.profitSharingOrders().filter(\.unfreeze).map(\.out_order_no) == ["S2"])
    }

    @Test(.timeLimit(.minutes(2))) func aNameInClearOrTamperedWithIsRefused() async throws {
        let world = try await World()
        try await world.client.downloadCertificates()
        let serial = world.sandbox.wechatV3.platformCertificate.serialNumberHex
        let platform = try #require(world.client.keys.encryptionKey())
        func add(_ name: String?, serial: String?) async -> String? {
            var body: [String: Any] = ["appid": Self.appID, "type": "MERCHANT_ID", "account": Self.receiver, "relation_type": "PARTNER"]
            if let name { body["name"] = name }
            return await world.refused {
                try await world.client.send(
                    "POST", "/v3/profitsharing/receivers/add", json: body, headers: serial.map { ["Wechatpay-Serial": $0] } ?? [:])
            }
        }
        #expect(await add("深圳市示例科技有限公司", serial: serial) == "PARAM_ERROR")  // in clear
        var tampered = Array(try platform.key.encrypt(Array("深圳市示例科技有限公司".utf8), padding: .insecureOAEPSHA1))
        tampered[10] ^= 1
        #expect(await add(Base64.encode(tampered), serial: serial) == "PARAM_ERROR")
        let sealed = try WeChatPay.V3.SensitiveField.encrypt("深圳市示例科技有限公司", for: platform.key, field: "name")
        #expect(await add(sealed, serial: nil) == "PARAM_ERROR")  // no Wechatpay-Serial
        #expect(await add(nil, serial: nil) == "PARAM_ERROR")  // a merchant needs its name
        #expect(await world.sandbox.wechatV3.profitSharingReceivers().isEmpty)
        #expect(await add(sealed, serial: serial) == nil)
        #expect(await world.sandbox.wechatV3.profitSharingReceivers().map(\.name) == ["深圳市示例科技有限公司"])
        // A share's name, too, must be sealed for the platform key.
        let (_, transactionID) = try await world.paid(10_000)
        func share(_ name: String) async -> String? {
            let body: [String: Any] = [
                "appid": Self.appID, "transaction_id": transactionID, "out_order_no": "P" + String(name.count), "unfreeze_unsplit": false,
                "receivers": [["type": "MERCHANT_ID", "account": Self.receiver, "name": name, "amount": 1, "description": "d"]],
            ]
            return await world.refused {
                try await world.client.send("POST", "/v3/profitsharing/orders", json: body, headers: ["Wechatpay-Serial": serial])
            }
        }
        #expect(await share("深圳市示例科技有限公司") == "PARAM_ERROR")
        #expect(await share(sealed) == nil)
    }

    @Test(.timeLimit(.minutes(2))) func returnsComeOnlyFromWhatAMerchantReceiverGot() async throws {
        let world = try await World()
        try await world.addReceivers()
        let (_, transactionID) = try await world.paid(10_000)
        _ = try await world.share(transactionID, "P1", [(.merchantID, Self.receiver, 1_000), (.personalOpenID, Self.person, 500)])
        func back(_ number: String, _ amount: Int64, from account: String = Self.receiver) async throws -> WeChatPay.V3.ProfitSharingReturn
        {
            try await world.client.createProfitSharingReturn(
                .init(outOrderNo: "P1", outReturnNo: number, returnMchID: account, amount: amount, description: "用户退款"))
        }
        // Not while the share is still moving.
        #expect(await world.refused { try await back("R0", 1) } == "INVALID_REQUEST")
        world.clock.advance(by: 60)
        let first = try await back("R1", 600)
        #expect(first.result == .processing && first.returnMchID == Self.receiver && first.amount == 600)
        #expect(try await back("R1", 600).returnID == first.returnID)  // a retry
        #expect(await world.refused { try await back("R1", 601) } == "INVALID_REQUEST")
        // Only 400 are left with the receiver.
        let over = try await back("R2", 401)
        #expect(over.result == .failed && over.failReason == "BALANCE_NOT_ENOUGH")
        #expect(try await back("R3", 400).result == .processing)
        // Only from a merchant receiver of that order.
        #expect(await world.refused { try await back("R4", 1, from: "1900000999") } == "INVALID_REQUEST")
        world.clock.advance(by: 60)
        // wechatpayv3 asks with `?&out_order_no=`: signed and answered as sent.
        let quirk = try await world.client.send("GET", "/v3/profitsharing/return-orders/R1?&out_order_no=P1")
        #expect(try WeChatPay.V3.ProfitSharingReturn.decode(quirk).result == .success)
        #expect(try await world.client.profitSharingReturn(outReturnNo: "R3", outOrderNo: "P1").result == .success)
        #expect(try await world.client.profitSharingReturn(outReturnNo: "R2", outOrderNo: "P1").result == .failed)
        #expect(
            await world.refused { try await world.client.profitSharingReturn(outReturnNo: "R9", outOrderNo: "P1") } == "RESOURCE_NOT_EXISTS"
        )
        let books = await world.sandbox.wechatV3.profitSharingReturns()
        #expect(books.filter { $0.result == "SUCCESS" }.reduce(0) { $0 + $1.amount } == 1_000)
        // What came back is unsplit again: 10,000 − 500 held by the person.
        #expect(try await world.client.profitSharingUnsplitAmount(transactionID: transactionID) == 9_500)
    }

    @Test(.timeLimit(.minutes(2))) func aRefundNeverTakesWhatTheSharesHold() async throws {
        let world = try await World()
        try await world.addReceivers()
        let (outTradeNo, transactionID) = try await world.paid(10_000)
        _ = try await world.share(transactionID, "P1", [(.merchantID, Self.receiver, 3_000)])
        let total = Money(minorUnits: 10_000, currency: .cny)
        func refund(_ number: String, _ fen: Int64) async -> String? {
            await world.refused {
                try await world.client.refund(
                    outTradeNo: outTradeNo, outRefundNo: number, total: total, refund: Money(minorUnits: fen, currency: .cny))
            }
        }
        #expect(await refund("RF1", 7_001) == "NOT_ENOUGH")
        #expect(await refund("RF2", 7_000) == nil)
        #expect(await refund("RF3", 1) == "NOT_ENOUGH")
        // A return gives the share back; then it may be refunded.
        world.clock.advance(by: 60)
        _ = try await world.client.createProfitSharingReturn(
            .init(outOrderNo: "P1", outReturnNo: "R1", returnMchID: Self.receiver, amount: 1_000, description: "退款"))
        #expect(await refund("RF4", 1_000) == nil)
        #expect(await refund("RF5", 1) == "NOT_ENOUGH")
        #expect(await world.sandbox.wechatV3.profitSharingUnsplitAmount(transactionID: transactionID) == 0)
        // The sandbox recorded the trade as placed with settle_info.profit_sharing.
        #expect(await world.sandbox.wechatV3.isProfitSharing(outTradeNo: outTradeNo))
    }
}
