import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

/// Our v3 client's transfer calls (商家转账) against the sandbox: a bill waits for its payee with
/// a `package_info`, the payer call confirms it, `MCHTRANSFER.BILL.FINISHED` is signed and
/// encrypted as every v3 notification; the same `out_bill_no` answers the same bill and debits
/// once; what WeChat refuses (another body under the same number, a name missing or in clear
/// from 2,000 yuan, amounts outside the limits or the balance), refused; 24 hours unconfirmed
/// by the sandbox clock fail it; a cancel gives the money back.
@Suite struct WeChatV3TransferSandboxTests {
    typealias Keys = WeChatV3SandboxTests
    static let appID = "wxd678efh567hg6787"

    /// A merchant endpoint that opens transfer notifications with the client's platform keys.
    final class Endpoint: Sendable {
        final class Sink: Sendable {
            let events = Mutex<[WeChatPay.V3.TransferBillEvent]>([])
        }
        let sink: Sink
        let server: HTTPServer

        init(keys: WeChatPay.V3.PlatformKeys) throws {
            let sink = Sink()
            self.sink = sink
            server = HTTPServer(configuration: .init()) { request in
                do {
                    let notification = try WeChatPay.V3.Notification.open(
                        body: request.body, headers: WeChatPay.V3.SignatureHeaders(headers: request.headers), keys: keys,
                        apiV3Key: Keys.apiV3Key)
                    let event = try WeChatPay.V3.TransferBillEvent(notification)
                    sink.events.withLock { $0.append(event) }
                    return HTTPServerResponse(status: 204)
                } catch {
                    return .error(status: 401, code: "FAIL", message: "\(error)")
                }
            }
            try server.start()
        }

        var url: String { "http://127.0.0.1:\(server.port)/notify/wechat/transfer" }
        func states(of number: String) -> [String] {
            sink.events.withLock { $0.filter { $0.bill.outBillNo == number }.map(\.bill.state.rawValue) }
        }
    }

    /// The sandbox clock, moved by hand.
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_795_000_000))
        func advance(by seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    static func request(_ number: String, amount: Int64 = 400, userName: String? = nil, notifyURL: String? = nil)
        -> WeChatPay.V3.TransferBillRequest
    {
        WeChatPay.V3.TransferBillRequest(
            appID: appID, outBillNo: number, sceneID: "1000", openID: "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", amount: amount, remark: "新会员开通有礼",
            userName: userName, notifyURL: notifyURL, reportInfos: [.init(type: "活动名称", content: "新会员有礼")])
    }

    static func number() -> String { "TB" + SecureRandom.alphanumeric(count: 20) }

    /// The payee's call: `POST /sandbox/wechat/transfer_bills/confirm`.
    static func confirm(_ sandbox: SandboxServer, _ bill: WeChatPay.V3.TransferBill, outcome: String = "confirm", appID: String = appID)
        async throws -> (status: Int, object: [String: Any])
    {
        let body: [String: Any] = [
            "out_bill_no": bill.outBillNo, "package_info": bill.packageInfo ?? "", "mchid": Keys.merchant.mchID, "appid": appID,
            "outcome": outcome,
        ]
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: sandbox.baseURL.appendingPathComponent("sandbox/wechat/transfer_bills/confirm"),
                headers: ["Content-Type": "application/json"], body: try JSONSerialization.data(withJSONObject: body)))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
    }

    @Test(.timeLimit(.minutes(2))) func aTransferWaitsForItsPayeeIsConfirmedAndNotifiedOnce() async throws {
        let sandbox = try Keys.sandbox()
        let keys = WeChatPay.V3.PlatformKeys()
        let client = WeChatPay.V3.Client(merchant: Keys.merchant, keys: keys, baseURL: sandbox.wechatV3URL)
        let endpoint = try Endpoint(keys: keys)
        let opening = await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID)
        let number = Self.number()
        let bill = try await client.createTransferBill(Self.request(number, notifyURL: endpoint.url))
        #expect(bill.state == .waitUserConfirm && bill.packageInfo?.isEmpty == false && !bill.transferBillNo.isEmpty)
        // Sent again (a retry): the same bill, a fresh package, the money taken once.
        let again = try await client.createTransferBill(Self.request(number, notifyURL: endpoint.url))
        #expect(again.transferBillNo == bill.transferBillNo && again.packageInfo != bill.packageInfo)
        #expect(await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID) == opening - 400)
        // Another body under the same number is refused.
        let other = await #expect(throws: PaymentError.self) {
            try await client.createTransferBill(Self.request(number, amount: 500, notifyURL: endpoint.url))
        }
        #expect(other?.providerCode == "INVALID_REQUEST")
        // Both queries answer the same bill.
        let byOurs = try await client.transferBill(outBillNo: number)
        let byTheirs = try await client.transferBill(transferBillNo: bill.transferBillNo)
        #expect(byOurs == byTheirs && byOurs.state == .waitUserConfirm && byOurs.amount == 400 && byOurs.mchID == Keys.merchant.mchID)
        // The payee: a package of another app is not theirs; the first package still opens the bill.
        #expect(try await Self.confirm(sandbox, bill, appID: "wxother").status == 404)
        let confirmed = try await Self.confirm(sandbox, bill)
        #expect(confirmed.status == 200 && confirmed.object["state"] as? String == "SUCCESS")
        #expect(try await Self.confirm(sandbox, again).status == 409)
        #expect(try await client.transferBill(outBillNo: number).state == .success)
        #expect(try await eventually { endpoint.states(of: number) == ["SUCCESS"] })
        let event = try #require(endpoint.sink.events.withLock { $0.first })
        #expect(event.bill.transferBillNo == bill.transferBillNo && event.bill.amount == 400 && event.bill.mchID == Keys.merchant.mchID)
        #expect(await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID) == opening - 400)
        // Once it succeeded it cannot be cancelled.
        let late = await #expect(throws: PaymentError.self) { try await client.cancelTransferBill(outBillNo: number) }
        #expect(late?.providerCode == "INVALID_REQUEST")
    }

    /// The payee's page: the amount and buttons while the bill waits; a form's confirm moves it as
    /// the JSON call does; `expire` closes it as its 24 hours would, and the money comes back.
    @Test(.timeLimit(.minutes(2))) func thePayeesPageConfirmsOrLetsItExpire() async throws {
        let sandbox = try Keys.sandbox()
        let client = WeChatPay.V3.Client(merchant: Keys.merchant, keys: WeChatPay.V3.PlatformKeys(), baseURL: sandbox.wechatV3URL)
        let opening = await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID)
        let bill = try await client.createTransferBill(Self.request(Self.number(), amount: 1234))
        var query = URLComponents(
            url: sandbox.baseURL.appendingPathComponent("sandbox/wechat/transfer_bills/confirm"), resolvingAgainstBaseURL: false)!
        let fields = [
            ("out_bill_no", bill.outBillNo), ("package_info", bill.packageInfo ?? ""), ("mchid", Keys.merchant.mchID),
            ("appid", Self.appID),
        ]
        query.queryItems = fields.map { URLQueryItem(name: $0.0, value: $0.1) }
        let page = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: query.url!))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(
            page.status == 200 && html.contains("¥12.34") && html.contains(#"id="confirm""#) && html.contains(#"id="expire""#), "\(html)")
        let form = (fields + [("outcome", "confirm")]).map {
            "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        }.joined(separator: "&")
        let posted = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: sandbox.baseURL.appendingPathComponent("sandbox/wechat/transfer_bills/confirm"),
                headers: ["Content-Type": "application/x-www-form-urlencoded"], body: Data(form.utf8)))
        let after = String(decoding: posted.body, as: UTF8.self)
        #expect(posted.status == 200 && after.contains("Received") && !after.contains(#"id="confirm""#), "\(after)")
        #expect(try await client.transferBill(outBillNo: bill.outBillNo).state == .success)
        // Another one, never confirmed: it expires, and its money comes back.
        let lapsing = try await client.createTransferBill(Self.request(Self.number(), amount: 500))
        let expired = try await Self.confirm(sandbox, lapsing, outcome: "expire")
        #expect(
            expired.status == 200 && expired.object["state"] as? String == "FAIL"
                && expired.object["fail_reason"] as? String == "OVERDUE_CLOSE")
        #expect(await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID) == opening - 1234)
    }

    @Test(.timeLimit(.minutes(2))) func theNameIsRequiredEncryptedFrom2000Yuan() async throws {
        let sandbox = try Keys.sandbox()
        let keys = WeChatPay.V3.PlatformKeys()
        let client = WeChatPay.V3.Client(merchant: Keys.merchant, keys: keys, baseURL: sandbox.wechatV3URL)
        // The library refuses before sending…
        let refused = await #expect(throws: PaymentError.self) {
            try await client.createTransferBill(Self.request(Self.number(), amount: 200_000))
        }
        #expect(refused?.code == .invalidRequest)
        // …and the gateway refuses a body sent without the name, or with it in clear.
        // What a client that does not check sends: 2,000 yuan, no name.
        var body = try Self.request(Self.number(), amount: 199_999).body(encryptingFor: nil as RSAPublicKey?)
        body["transfer_amount"] = 200_000
        let missing = await #expect(throws: PaymentError.self) {
            try await client.send("POST", "/v3/fund-app/mch-transfer/transfer-bills", json: body)
        }
        #expect(missing?.providerCode == "PARAM_ERROR")
        try await client.downloadCertificates()
        body["user_name"] = "张三"
        let serial = sandbox.wechatV3.platformCertificate.serialNumberHex
        let plaintext = await #expect(throws: PaymentError.self) {
            try await client.send("POST", "/v3/fund-app/mch-transfer/transfer-bills", json: body, headers: ["Wechatpay-Serial": serial])
        }
        #expect(plaintext?.providerCode == "PARAM_ERROR")
        // Encrypted by the library for the platform certificate, it goes through.
        let number = Self.number()
        let bill = try await client.createTransferBill(Self.request(number, amount: 200_000, userName: "张三"))
        #expect(bill.state == .waitUserConfirm)
        #expect(await sandbox.wechatV3.transferBills().first { $0.out_bill_no == number }?.user_name == "张三")
        // Encrypted for the merchant's own key (not the platform's), it does not decrypt.
        body["user_name"] = Base64.encode(try Keys.merchantKey.publicKey.encrypt(Array("张三".utf8), padding: .insecureOAEPSHA1))
        body["out_bill_no"] = Self.number()
        let wrongKey = await #expect(throws: PaymentError.self) {
            try await client.send("POST", "/v3/fund-app/mch-transfer/transfer-bills", json: body, headers: ["Wechatpay-Serial": serial])
        }
        #expect(wrongKey?.providerCode == "PARAM_ERROR")
    }

    @Test(.timeLimit(.minutes(2))) func limitsAndTheBalanceAreEnforced() async throws {
        let sandbox = try Keys.sandbox()
        let client = WeChatPay.V3.Client(merchant: Keys.merchant, keys: WeChatPay.V3.PlatformKeys(), baseURL: sandbox.wechatV3URL)
        await sandbox.wechatV3.setTransferLimits(30...100_000)
        for amount: Int64 in [29, 100_001] {
            let error = await #expect(throws: PaymentError.self) {
                try await client.createTransferBill(Self.request(Self.number(), amount: amount))
            }
            #expect(error?.providerCode == "INVALID_REQUEST")
        }
        await sandbox.wechatV3.setTransferBalance(1_000, mchID: Keys.merchant.mchID)
        _ = try await client.createTransferBill(Self.request(Self.number(), amount: 600))
        let poor = await #expect(throws: PaymentError.self) {
            try await client.createTransferBill(Self.request(Self.number(), amount: 600))
        }
        #expect(poor?.providerCode == "NOT_ENOUGH")
        #expect(await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID) == 400)
        let unknown = await #expect(throws: PaymentError.self) { try await client.transferBill(outBillNo: "nosuchbill") }
        #expect(unknown?.providerCode == "NOT_FOUND")
    }

    @Test(.timeLimit(.minutes(2))) func unconfirmedFor24HoursItFailsAndACancelGivesTheMoneyBack() async throws {
        let sandbox = try Keys.sandbox()
        let keys = WeChatPay.V3.PlatformKeys()
        let client = WeChatPay.V3.Client(merchant: Keys.merchant, keys: keys, baseURL: sandbox.wechatV3URL)
        let endpoint = try Endpoint(keys: keys)
        let clock = Clock()
        await sandbox.wechatV3.setTransferClock { clock.now.withLock { $0 } }
        let opening = await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID)
        let lapsing = Self.number()
        let bill = try await client.createTransferBill(Self.request(lapsing, notifyURL: endpoint.url))
        clock.advance(by: 24 * 3600 - 1)
        await sandbox.wechatV3.expireTransfers()
        #expect(try await client.transferBill(outBillNo: lapsing).state == .waitUserConfirm)
        clock.advance(by: 1)
        await sandbox.wechatV3.expireTransfers()
        let lapsed = try await client.transferBill(outBillNo: lapsing)
        #expect(lapsed.state == .fail && lapsed.failReason == "OVERDUE_CLOSE")
        #expect(try await Self.confirm(sandbox, bill).status == 409)
        #expect(try await eventually { endpoint.states(of: lapsing) == ["FAIL"] })
        // Cancelled while waiting: CANCELLED at once, notified, the money back.
        let cancelling = Self.number()
        _ = try await client.createTransferBill(Self.request(cancelling, amount: 700, notifyURL: endpoint.url))
        #expect(await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID) == opening - 700)
        let cancelled = try await client.cancelTransferBill(outBillNo: cancelling)
        #expect(cancelled.state == .cancelled)
        #expect(try await client.cancelTransferBill(outBillNo: cancelling).state == .cancelled)
        #expect(try await client.transferBill(outBillNo: cancelling).failReason == "MCH_CANCEL")
        #expect(try await eventually { endpoint.states(of: cancelling) == ["CANCELLED"] })
        #expect(await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID) == opening)
        // A failed confirmation gives it back too.
        let failing = Self.number()
        let risky = try await client.createTransferBill(Self.request(failing, amount: 900))
        #expect(try await Self.confirm(sandbox, risky, outcome: "fail").object["fail_reason"] as? String == "TRANSFER_RISK")
        #expect(await sandbox.wechatV3.transferBalance(mchID: Keys.merchant.mchID) == opening)
    }
}
