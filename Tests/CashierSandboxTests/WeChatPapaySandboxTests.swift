import Cashier
import CashierCurl
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

/// Withholding (委托代扣) in the v2 sandbox, through our client over real sockets: signing by the
/// app's pre-signing, the official account's `entrustweb` page and H5's `h5entrustweb` redirect;
/// the payer agreeing, refusing and ending the contract in the wallet; the merchant ending it;
/// deductions accepted, then settled on the sandbox clock to SUCCESS or (balance made short)
/// PAY_FAIL, with their notifications; refusals and idempotent repeats.
@Suite struct WeChatPapaySandboxTests {
    static let merchant = WeChatV2SandboxTests.merchant
    static let planID = "12535"

    /// The merchant's notify endpoint, read as WeChat Pay's notifications.
    struct Endpoint {
        let recorder: NotifyRecorder

        /// - Parameter refusing: how many of the first notifications are answered `FAIL`.
        init(refusing: Int = 0) throws {
            recorder = try NotifyRecorder(
                reply: WeChatPay.V2.NotificationReply.success.xmlString, refusing: refusing,
                refusal: WeChatPay.V2.NotificationReply.failure("busy").xmlString)
        }

        var url: String { recorder.url("/notify/wechat/v2/contract") }

        /// The first contract notification of `change` for `contractCode`, verified.
        func contract(_ contractCode: String, _ change: WeChatPay.V2.ContractNotification.ChangeType) async
            -> WeChatPay.V2.ContractNotification?
        {
            await recorder.first { body in
                (try? WeChatPay.V2.ContractNotification.verify(body, merchant: WeChatPapaySandboxTests.merchant)).flatMap {
                    $0.contractCode == contractCode && $0.changeType == change ? $0 : nil
                }
            }
        }

        /// The payment notification of `outTradeNo`, verified.
        func payment(_ outTradeNo: String) async -> WeChatPay.V2.PaymentNotification? {
            await recorder.first { body in
                (try? WeChatPay.V2.PaymentNotification.verify(body, merchant: WeChatPapaySandboxTests.merchant)).flatMap {
                    $0.outTradeNo == outTradeNo ? $0 : nil
                }
            }
        }

        /// How many contract notifications for `contractCode` arrived.
        func contractNotifications(_ contractCode: String) -> Int {
            recorder.all { try? WeChatPay.V2.ContractNotification.verify($0, merchant: WeChatPapaySandboxTests.merchant) }
                .filter { $0.contractCode == contractCode }.count
        }
    }

    /// The sandbox's papay clock, moved by the test.
    final class MovingClock: Sendable {
        static let start = Date(timeIntervalSince1970: 1_796_644_800)
        let date = Mutex(MovingClock.start)
        func now() -> Date { date.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    }

    /// A sandbox whose deductions settle 60 seconds after acceptance on `clock`.
    static func sandbox(_ clock: MovingClock) async throws -> SandboxServer {
        let sandbox = SandboxServer(wechatMerchants: [merchant], timeScale: 0.001)
        try sandbox.start()
        await sandbox.wechatV2.setPapayClock { clock.now() }
        await sandbox.wechatV2.setDeductionDelay(60)
        return sandbox
    }

    static func request(_ code: String, notifyURL: String) -> WeChatPay.V2.EntrustRequest {
        .init(
            planID: planID, contractCode: code, requestSerial: Int64(Date().timeIntervalSince1970 * 1000), displayAccount: "会员 Alice",
            notifyURL: notifyURL)
    }

    /// A JSON call to the sandbox's payer API: its status and object.
    static func payer(_ sandbox: SandboxServer, _ path: String, _ object: [String: Any]) async throws -> (Int, [String: Any]) {
        let response = try await CurlTransport().send(
            HTTPRequest(
                method: "POST", url: sandbox.baseURL.appendingPathComponent(path), headers: ["Content-Type": "application/json"],
                body: try JSONSerialization.data(withJSONObject: object)))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
    }

    /// A client for `sandbox`, and a contract its payer agreed to after the client's pre-signing,
    /// notified to `endpoint`.
    /// - Returns: the client, the contract's code and its `contract_id`.
    static func signedContract(_ sandbox: SandboxServer, notifying endpoint: Endpoint) async throws -> (
        client: WeChatPay.V2.Client, code: String, contractID: String
    ) {
        let client = WeChatPay.V2.Client(merchant: merchant, transport: CurlTransport(), baseURL: sandbox.wechatV2URL)
        let code = "AG" + TradeNumber.generate().prefix(20)
        _ = try await client.preEntrust(request(code, notifyURL: endpoint.url))
        let contract = try #require(try await sandbox.wechatV2.signContract(planID: planID, contractCode: code, outcome: .agree))
        return (client, code, contract.contract_id)
    }

    static func deduction(_ contractID: String, _ number: String, fen: Int64 = 1500, notifyURL: String) -> WeChatPay.V2.Deduction {
        .init(
            contractID: contractID, body: "月度会员", outTradeNo: number, total: Money(minorUnits: fen, currency: .cny),
            clientIP: "127.0.0.1", notifyURL: notifyURL)
    }

    @Test(.timeLimit(.minutes(2))) func preSignAgreeDeductSettleFailAndUnsign() async throws {
        let moved = MovingClock()
        let sandbox = try await Self.sandbox(moved)
        let clock = MovingClock.start
        let endpoint = try Endpoint()
        let client = WeChatPay.V2.Client(merchant: Self.merchant, transport: CurlTransport(), baseURL: sandbox.wechatV2URL)
        let code = "AG" + TradeNumber.generate().prefix(20)

        // Nothing is signed yet: the query says so in WeChat's words.
        let none = await #expect(throws: PaymentError.self) {
            try await client.queryContract(.code(planID: Self.planID, contractCode: code))
        }
        #expect(none?.providerCode == "CONTRACT_NOT_EXIST")

        let preEntrust = try await client.preEntrust(Self.request(code, notifyURL: endpoint.url))
        #expect(preEntrust.count == 32)
        let (status, signed) = try await Self.payer(
            sandbox, "sandbox/wechat/contracts/sign", ["plan_id": Self.planID, "contract_code": code, "outcome": "agree"])
        #expect(status == 200)
        let contractID = try #require(signed["contract_id"] as? String)
        #expect(signed["contract_state"] as? String == "0")
        // Signing again is refused: the contract exists.
        #expect(
            try await Self.payer(
                sandbox, "sandbox/wechat/contracts/sign", ["plan_id": Self.planID, "contract_code": code, "outcome": "agree"]
            ).0 == 409)
        let again = await #expect(throws: PaymentError.self) { try await client.preEntrust(Self.request(code, notifyURL: endpoint.url)) }
        #expect(again?.providerCode == "CONTRACT_ALREADY_EXIST")

        let added = try #require(await endpoint.contract(code, .add))
        #expect(added.contractID == contractID)
        #expect(added.planID == Self.planID)
        let contract = try await client.queryContract(.id(contractID))
        #expect(contract.state == .signed)
        #expect(contract.contractCode == code)
        #expect(contract.openID == added.openID)
        #expect(contract.signedAt == clock)
        #expect(try await client.queryContract(.code(planID: Self.planID, contractCode: code)).contractID == contractID)

        // A deduction is accepted, then settles once its delay has passed on the sandbox clock.
        let first = TradeNumber.generate()
        try await client.papPayApply(Self.deduction(contractID, first, notifyURL: endpoint.url))
        #expect(try await client.papOrderQuery(outTradeNo: first).tradeState == "ACCEPT")
        #expect(try await client.orderQuery(outTradeNo: first).tradeState == "ACCEPT")
        moved.advance(61)
        let settled = try await client.papOrderQuery(outTradeNo: first)
        #expect(settled.tradeState == "SUCCESS")
        #expect(settled.amount == Money(minorUnits: 1500, currency: .cny))
        #expect(settled.document["contract_id"] == contractID)
        let paid = try #require(await endpoint.payment(first))
        #expect(paid.isSuccess && paid.document["trade_type"] == "PAP" && paid.document["contract_id"] == contractID)
        #expect(paid.document["openid"] == added.openID)
        // The same deduction again is the same; the same number for another amount is refused.
        try await client.papPayApply(Self.deduction(contractID, first, notifyURL: endpoint.url))
        let reused = await #expect(throws: PaymentError.self) {
            try await client.papPayApply(Self.deduction(contractID, first, fen: 1501, notifyURL: endpoint.url))
        }
        #expect(reused?.providerCode == "OUT_TRADE_NO_USED")

        // The payer's balance is short for the next deduction only.
        #expect(
            try await Self.payer(sandbox, "sandbox/wechat/contracts/balance", ["contract_id": contractID, "outcome": "insufficient"]).0
                == 200)
        let second = TradeNumber.generate()
        try await client.papPayApply(Self.deduction(contractID, second, notifyURL: endpoint.url))
        moved.advance(61)
        #expect(try await Self.payer(sandbox, "sandbox/wechat/contracts/settle", [:]).1["settled"] as? Int == 1)
        #expect(try await client.papOrderQuery(outTradeNo: second).tradeState == "PAY_FAIL")
        let failed = try #require(await endpoint.payment(second))
        #expect(!failed.isSuccess && failed.document["err_code"] == "NOTENOUGH")
        let third = TradeNumber.generate()
        try await client.papPayApply(Self.deduction(contractID, third, notifyURL: endpoint.url))
        moved.advance(61)
        #expect(try await client.papOrderQuery(outTradeNo: third).tradeState == "SUCCESS")

        // The payer ends it in the wallet: DELETE, mode 2; no deduction is accepted under it again.
        let (unsigned, ended) = try await Self.payer(sandbox, "sandbox/wechat/contracts/unsign", ["contract_id": contractID])
        #expect(unsigned == 200 && ended["contract_state"] as? String == "1")
        let deleted = try #require(await endpoint.contract(code, .delete))
        #expect(deleted.terminationMode == .user)
        let terminated = try await client.queryContract(.id(contractID))
        #expect(terminated.state == .terminated && terminated.terminationMode == .user && terminated.terminatedAt == clock + 183)
        let refused = await #expect(throws: PaymentError.self) {
            try await client.papPayApply(Self.deduction(contractID, TradeNumber.generate(), notifyURL: endpoint.url))
        }
        #expect(refused?.providerCode == "CONTRACT_NOT_EXIST")
        #expect(try await Self.payer(sandbox, "sandbox/wechat/contracts/unsign", ["contract_id": contractID]).0 == 404)
        let unknownOrder = await #expect(throws: PaymentError.self) { try await client.papOrderQuery(outTradeNo: TradeNumber.generate()) }
        #expect(unknownOrder?.providerCode == "ORDERNOTEXIST")
        await sandbox.stop()
    }

    /// The same deduction sent many times at once is one deduction: accepted each time, one
    /// trade in the books, settled once, notified once.
    @Test(.timeLimit(.minutes(2))) func aDeductionSentManyTimesAtOnceIsOne() async throws {
        let clock = MovingClock()
        let sandbox = try await Self.sandbox(clock)
        let endpoint = try Endpoint()
        let (client, _, contractID) = try await Self.signedContract(sandbox, notifying: endpoint)
        let number = TradeNumber.generate()
        let deduction = Self.deduction(contractID, number, notifyURL: endpoint.url)
        let accepted = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 { group.addTask { (try? await client.papPayApply(deduction)) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 20)
        clock.advance(61)
        #expect(await sandbox.wechatV2.settleDeductions() == 1)
        #expect(await sandbox.wechatV2.settleDeductions() == 0)
        #expect(await endpoint.payment(number)?.isSuccess == true)
        let books = await sandbox.wechatV2.ledger().filter { $0.out_trade_no == number }
        #expect(books.count == 1 && books.first?.paid == true && books.first?.amount_minor == 1500)
        let notified = endpoint.recorder.all { try? WeChatPay.V2.PaymentNotification.verify($0, merchant: Self.merchant) }
        #expect(notified.filter { $0.outTradeNo == number }.count == 1)
        await sandbox.stop()
    }

    /// A contract notification the merchant answers `FAIL` is sent again on WeChat's schedule
    /// (scaled down here) until it is acknowledged.
    @Test(.timeLimit(.minutes(2))) func aRefusedContractNotificationIsSentAgain() async throws {
        let sandbox = try await Self.sandbox(MovingClock())
        let endpoint = try Endpoint(refusing: 2)
        let (_, code, contractID) = try await Self.signedContract(sandbox, notifying: endpoint)
        let key = contractID + ":ADD"
        #expect(await eventually { await sandbox.delivery.attempts(for: key).contains { $0.acknowledged } })
        let attempts = await sandbox.delivery.attempts(for: key)
        #expect(attempts.map(\.acknowledged) == [false, false, true])
        #expect(endpoint.contractNotifications(code) == 3)
        await sandbox.stop()
    }

    /// A contract ends when its validity (three years) has passed on the sandbox clock: mode 1,
    /// `DELETE`, and no deduction is accepted under it.
    @Test(.timeLimit(.minutes(2))) func aContractExpires() async throws {
        let clock = MovingClock()
        let sandbox = try await Self.sandbox(clock)
        let endpoint = try Endpoint()
        let (client, code, contractID) = try await Self.signedContract(sandbox, notifying: endpoint)
        let contract = try await client.queryContract(.id(contractID))
        let expiry = try #require(contract.expiresAt)
        #expect(expiry == MovingClock.start + 3 * 365 * 24 * 3600)
        clock.advance(expiry.timeIntervalSince(MovingClock.start) - 1)
        #expect(try await client.queryContract(.id(contractID)).state == .signed)
        clock.advance(1)
        let expired = try await client.queryContract(.id(contractID))
        #expect(expired.state == .terminated && expired.terminationMode == .expired && expired.terminatedAt == expiry)
        #expect(await endpoint.contract(code, .delete)?.terminationMode == .expired)
        let refused = await #expect(throws: PaymentError.self) {
            try await client.papPayApply(Self.deduction(contractID, TradeNumber.generate(), notifyURL: endpoint.url))
        }
        #expect(refused?.providerCode == "CONTRACT_NOT_EXIST")
        await sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2))) func theEntrustWebPageSignsAndTheMerchantEndsTheContract() async throws {
        let sandbox = try await Self.sandbox(MovingClock())
        let endpoint = try Endpoint()
        let client = WeChatPay.V2.Client(merchant: Self.merchant, transport: CurlTransport(), baseURL: sandbox.wechatV2URL)
        let code = "AG" + TradeNumber.generate().prefix(20)
        let url = client.entrustWebURL(Self.request(code, notifyURL: endpoint.url))
        #expect(url.absoluteString.hasPrefix(sandbox.wechatV2URL.absoluteString + "papay/entrustweb?"))

        // A tampered address is refused; the genuine one shows the contract and the agree form.
        let tampered = URL(string: url.absoluteString.replacingOccurrences(of: "plan_id=\(Self.planID)", with: "plan_id=99999"))!
        let refusedPage = try await CurlTransport().send(HTTPRequest(method: "GET", url: tampered))
        #expect(refusedPage.status == 400 && String(decoding: refusedPage.body, as: UTF8.self).contains("SIGNERROR"))
        let page = try await CurlTransport().send(HTTPRequest(method: "GET", url: url))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200 && html.contains("id=\"agree\"") && html.contains("会员 Alice") && html.contains(code))

        // The page's form agrees.
        let form = "plan_id=\(Self.planID)&contract_code=\(code)&outcome=agree"
        let agreed = try await CurlTransport().send(
            HTTPRequest(
                method: "POST", url: sandbox.baseURL.appendingPathComponent("sandbox/wechat/contracts/sign"),
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8)))
        #expect(agreed.status == 200 && String(decoding: agreed.body, as: UTF8.self).contains("id=\"state\""))
        let added = try #require(await endpoint.contract(code, .add))
        #expect(added.document["sign_type"] == nil)  // entrustweb is MD5: so is its notification

        // The merchant ends it: mode 3, with its remark, and DELETE.
        try await client.deleteContract(.code(planID: Self.planID, contractCode: code), remark: "会员取消")
        let deleted = try #require(await endpoint.contract(code, .delete))
        #expect(deleted.terminationMode == .merchantAPI)
        let ended = try await client.queryContract(.id(added.contractID))
        #expect(ended.state == .terminated && ended.terminationMode == .merchantAPI && ended.terminationRemark == "会员取消")
        // Ending it again changes nothing and sends nothing more.
        try await client.deleteContract(.id(added.contractID), remark: "again")
        #expect(try await client.queryContract(.id(added.contractID)).terminationRemark == "会员取消")
        #expect(endpoint.contractNotifications(code) == 2)

        // A payer who refuses signs nothing; a signing nobody asked for is not found.
        let other = "AG" + TradeNumber.generate().prefix(20)
        _ = try await CurlTransport().send(
            HTTPRequest(method: "GET", url: client.entrustWebURL(Self.request(other, notifyURL: endpoint.url))))
        let (status, refusal) = try await Self.payer(
            sandbox, "sandbox/wechat/contracts/sign", ["plan_id": Self.planID, "contract_code": other, "outcome": "refuse"])
        #expect(status == 200 && refusal["outcome"] as? String == "refuse")
        let none = await #expect(throws: PaymentError.self) {
            try await client.queryContract(.code(planID: Self.planID, contractCode: other))
        }
        #expect(none?.providerCode == "CONTRACT_NOT_EXIST")
        // Signed afterwards without a request the sandbox holds (an address built, not opened): the
        // sandbox's one merchant's, told to no one (it never named a notify address).
        #expect(
            try await Self.payer(
                sandbox, "sandbox/wechat/contracts/sign", ["plan_id": Self.planID, "contract_code": other, "outcome": "agree"]
            ).0 == 200)
        #expect(try await client.queryContract(.code(planID: Self.planID, contractCode: other)).state == .signed)
        #expect(try await Self.payer(sandbox, "sandbox/wechat/contracts/sign", ["plan_id": Self.planID]).0 == 400)
        await sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2))) func h5SigningAnswersARedirectAndItsNotificationIsHMAC() async throws {
        let sandbox = try await Self.sandbox(MovingClock())
        let endpoint = try Endpoint()
        let client = WeChatPay.V2.Client(merchant: Self.merchant, transport: CurlTransport(), baseURL: sandbox.wechatV2URL)
        let code = "AG" + TradeNumber.generate().prefix(20)
        let redirect = try await client.h5Entrust(Self.request(code, notifyURL: endpoint.url), clientIP: "203.0.113.7")
        #expect(redirect.hasPrefix(sandbox.baseURL.absoluteString + "sandbox/wechat/contracts/sign?"))
        let page = try await CurlTransport().send(HTTPRequest(method: "GET", url: URL(string: redirect)!))
        #expect(String(decoding: page.body, as: UTF8.self).contains("id=\"agree\""))
        #expect(
            try await Self.payer(
                sandbox, "sandbox/wechat/contracts/sign", ["plan_id": Self.planID, "contract_code": code, "outcome": "agree"]
            ).0 == 200)
        let added = try #require(await endpoint.contract(code, .add))
        #expect(added.document["sign_type"] == "HMAC-SHA256")
        // An address signed with another key is refused in WeChat's words.
        let stranger = WeChatPay.V2.Client(
            merchant: .init(appID: Self.merchant.appID, mchID: Self.merchant.mchID, apiKey: String(repeating: "0", count: 32)),
            transport: CurlTransport(), baseURL: sandbox.wechatV2URL)
        let refused = await #expect(throws: PaymentError.self) {
            try await stranger.h5Entrust(
                Self.request("AG" + TradeNumber.generate().prefix(20), notifyURL: endpoint.url), clientIP: "203.0.113.7")
        }
        #expect(refused?.providerCode == "SIGNERROR")
        await sandbox.stop()
    }
}
