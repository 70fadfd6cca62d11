import Alipay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierSandbox
import Foundation
import TestSupport
import Testing

/// Agreements (周期扣款) in the Alipay sandbox, driven by our client: the page-sign address opens
/// an agree / refuse page and keeps the agreement `TEMP`; the payer's JSON call (or the page) signs
/// it (`NORMAL`, `dut_user_sign` to the sign's `notify_url`); `alipay.trade.pay` under it follows
/// the period rules on the sandbox's agreement clock (one success a period, from five days before
/// the date, the single-charge limit, the payer's balance); the charge is an ordinary trade; a
/// payer's unsign goes to the application gateway, a merchant's to the unsign's `notify_url`.
@Suite struct AlipayAgreementSandboxTests {
    typealias Keys = AlipaySandboxTests
    static let scene = "INDUSTRY|DIGITAL_MEDIA"

    static func yuan(_ fen: Int64) -> Money { Money(minorUnits: fen, currency: .cny) }

    /// Beijing time `text` (`yyyy-MM-dd HH:mm:ss`).
    static func beijing(_ text: String) -> Date { BeijingTime.formatter(BeijingTime.Layout.dateTime.format).date(from: text)! }

    /// A started sandbox whose agreement clock stands at `start` until a test moves it.
    static func sandbox(at start: String = "2026-12-10 12:00:00") async throws -> SandboxServer {
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [Keys.appID: Keys.appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let now = beijing(start)
        await sandbox.alipay.setAgreementClock { now }
        return sandbox
    }

    static func client(_ sandbox: SandboxServer) -> Alipay.Client {
        Alipay.Client(
            appID: Keys.appID, signer: Alipay.Signer(privateKey: Keys.appKey), alipayPublicKey: sandbox.alipay.alipayPublicKey,
            gateway: sandbox.alipayGatewayURL)
    }

    static func monthly(_ number: String, from date: String = "2026-12-15", single: Int64 = 3000) -> Alipay.AgreementSign {
        Alipay.AgreementSign(
            externalAgreementNo: number, product: .cyclePay, signScene: scene,
            periodRule: Alipay.PeriodRule(periodType: .month, period: 1, executeTime: date, singleAmount: yuan(single)))
    }

    /// A JSON control call. - Returns: the status and the JSON object answered.
    static func control(_ sandbox: SandboxServer, _ path: String, _ body: [String: Any]) async throws -> (Int, [String: Any]) {
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: sandbox.baseURL.appendingPathComponent(path), headers: ["Content-Type": "application/json"],
                body: try JSONSerialization.data(withJSONObject: body)))
        return (response.status, (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:])
    }

    static func charge(_ client: Alipay.Client, _ agreementNo: String, fen: Int64 = 2990) async throws -> (String, Alipay.AgreementCharge) {
        let number = TradeNumber.generate()
        return (number, try await client.agreementPay(outTradeNo: number, total: yuan(fen), subject: "会员月费", agreementNo: agreementNo))
    }

    static func declined(_ answer: Alipay.AgreementCharge) -> String? {
        guard case .declined(let decline) = answer else { return nil }
        return decline.subCode
    }

    /// The `index`th body the inbox received.
    static func body(_ inbox: Keys.Inbox, _ index: Int) async -> [UInt8]? {
        await inbox.sink.arrivals.first(within: .seconds(30)) { inbox.sink.bodies.withLock { $0.count > index ? $0[index] : nil } }
    }

    @Test(.timeLimit(.minutes(2))) func signedByPageChargedOncePerPeriodThenUnsignedByThePayer() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        let inbox = try Keys.Inbox()
        let gateway = try Keys.Inbox()
        #expect(try await Self.control(sandbox, "sandbox/alipay/gateway", ["app_id": Keys.appID, "url": gateway.url]).0 == 200)

        // The page-sign address: a page with agree and refuse; the agreement is TEMP meanwhile.
        let url = try client.agreementSignURL(Self.monthly("AGR1"), notifyURL: inbox.url)
        let page = try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url))
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200 && html.contains("id=\"agree\"") && html.contains("id=\"refuse\"") && html.contains("AGR1"))
        let temporary = try #require(
            try await client.agreementQuery(externalAgreementNo: "AGR1", product: .cyclePay, signScene: Self.scene))
        #expect(temporary.status == .temporary)
        let charging = try await Self.charge(client, temporary.agreementNo).1
        #expect(Self.declined(charging) == "ACQ.AGREEMENT_STATUS_NOT_NORMAL")

        // The payer agrees (the JSON call): NORMAL, and dut_user_sign at the sign's notify_url.
        let (status, signed) = try await Self.control(
            sandbox, "sandbox/alipay/agreements/sign", ["external_agreement_no": "AGR1", "outcome": "agree"])
        #expect(status == 200 && signed["status"] as? String == "NORMAL" && signed["agreement_no"] as? String == temporary.agreementNo)
        let number = temporary.agreementNo
        let signBody = try #require(await Self.body(inbox, 0))
        let notification = try #require(
            try Alipay.AgreementNotification.verify(signBody, publicKey: sandbox.alipay.alipayPublicKey, appID: Keys.appID))
        #expect(notification.kind == .signed && notification.status == .normal && notification.agreementNo == number)
        #expect(notification.externalAgreementNo == "AGR1" && notification.alipayUserID?.hasPrefix("2088") == true)
        let agreement = try #require(try await client.agreementQuery(agreementNo: number))
        #expect(agreement.status == .normal && agreement.nextDeductTime == "2026-12-15" && agreement.singleQuota == Self.yuan(3000))

        // 2026-12-10 is five days before the 15th: the first period's window is open. Once.
        let (first, paid) = try await Self.charge(client, number)
        guard case .paid(let amount, let tradeNo) = paid else {
            Issue.record("the first charge was not paid: \(paid)")
            return
        }
        #expect(amount == Self.yuan(2990))
        #expect(Self.declined(try await Self.charge(client, number).1) == "ACQ.CYCLE_PAY_DATE_NOT_MATCH")
        #expect(try await client.agreementQuery(agreementNo: number)?.nextDeductTime == "2027-01-15")
        // An ordinary trade: queried, refunded, in the books.
        let trade = try await client.query(outTradeNo: first)
        #expect(trade.isPaid && trade.tradeNo == tradeNo)
        #expect(try await client.refund(outTradeNo: first, amount: Self.yuan(990), outRequestNo: "R1") == Self.yuan(990))
        let entry = try #require(await sandbox.alipay.ledger().first { $0.out_trade_no == first })
        #expect(entry.paid && entry.sent["agreement_no"] == number && entry.sent["product_code"] == "CYCLE_PAY_AUTH")

        // Over the single limit; then the next window opens on 2027-01-10, not before.
        #expect(Self.declined(try await Self.charge(client, number, fen: 3001).1) == "ACQ.CYCLE_PAY_SINGLE_FEE_EXCEED")
        #expect(try await Self.control(sandbox, "sandbox/alipay/agreements/advance", ["days": 30]).0 == 200)
        #expect(Self.declined(try await Self.charge(client, number).1) == "ACQ.CYCLE_PAY_DATE_NOT_MATCH")
        await sandbox.alipay.advanceAgreementClock(by: 86_400)
        // The payer's balance runs short: refused, and the period stays open for a retry.
        let (balanceStatus, _) = try await Self.control(
            sandbox, "sandbox/alipay/agreements/balance", ["agreement_no": number, "outcome": "insufficient"])
        #expect(balanceStatus == 200)
        let short = try await Self.charge(client, number).1
        #expect(Self.declined(short) == "ACQ.BUYER_BALANCE_NOT_ENOUGH")
        if case .declined(let decline) = short { #expect(decline.reason == .insufficientBalance && decline.isRetryable) }
        #expect(await sandbox.alipay.setAgreementBalance(agreementNo: number, outcome: "sufficient"))
        guard case .paid = try await Self.charge(client, number).1 else {
            Issue.record("the retry in the second period was not paid")
            return
        }
        #expect(await sandbox.alipay.agreement(agreementNo: number)?.charges.count == 2)

        // The payer unsigns in the Alipay app: dut_user_unsign at the application gateway.
        let (unsignStatus, unsigned) = try await Self.control(sandbox, "sandbox/alipay/agreements/unsign", ["agreement_no": number])
        #expect(unsignStatus == 200 && unsigned["status"] as? String == "STOP")
        let unsignBody = try #require(await Self.body(gateway, 0))
        let ended = try #require(
            try Alipay.AgreementNotification.verify(unsignBody, publicKey: sandbox.alipay.alipayPublicKey, appID: Keys.appID))
        #expect(ended.kind == .unsigned && ended.status == .stopped && ended.agreementNo == number && ended.unsignTime != nil)
        #expect(try await client.agreementQuery(agreementNo: number)?.status == .stopped)
        await sandbox.alipay.advanceAgreementClock(by: 31 * 86_400)
        let after = try await Self.charge(client, number).1
        #expect(Self.declined(after) == "ACQ.AGREEMENT_NOT_EXIST")
        if case .declined(let decline) = after { #expect(!decline.isRetryable) }
        await sandbox.stop()
    }

    /// Twenty charges at once under one agreement in one period: exactly one is paid, the others
    /// refused as out of the period, and the books hold that one trade; the same trade number sent
    /// ten times at once is one trade.
    @Test(.timeLimit(.minutes(2))) func concurrentChargesPayOncePerPeriod() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        let signString = try client.agreementSignString(Self.monthly("AGR7"), notifyURL: nil)
        let number = try #require(try await sandbox.alipay.payerSign(externalAgreementNo: nil, signString: signString, agree: true))
            .agreement_no
        let answers = try await withThrowingTaskGroup(of: Alipay.AgreementCharge.self) { group in
            for _ in 0..<20 { group.addTask { try await Self.charge(client, number).1 } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let paid = answers.filter { if case .paid = $0 { true } else { false } }
        #expect(paid.count == 1)
        #expect(answers.compactMap(Self.declined).filter { $0 == "ACQ.CYCLE_PAY_DATE_NOT_MATCH" }.count == 19)
        #expect(await sandbox.alipay.ledger().filter { $0.paid && $0.sent["agreement_no"] == number }.count == 1)

        await sandbox.alipay.advanceAgreementClock(by: 31 * 86_400)
        let trade = TradeNumber.generate()
        let repeated = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        let answer = try await client.agreementPay(
                            outTradeNo: trade, total: Self.yuan(990), subject: "会员月费", agreementNo: number)
                        if case .paid = answer { return "paid" }
                        return Self.declined(answer) ?? "other"
                    } catch let error as PaymentError {
                        return error.providerCode ?? "error"
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(repeated.filter { $0 == "paid" }.count == 1 && repeated.filter { $0 == "ACQ.TRADE_HAS_SUCCESS" }.count == 9)
        #expect(await sandbox.alipay.agreement(agreementNo: number)?.charges.count == 2)
        await sandbox.stop()
    }

    /// The sandbox refuses schedules Alipay refuses, a forged request, and a refusal leaves nothing;
    /// the app's sign string is signed through the JSON call that carries it.
    @Test(.timeLimit(.minutes(2))) func signingRulesRefusalsAndTheAppSignString() async throws {
        let sandbox = try await Self.sandbox()
        let client = Self.client(sandbox)
        // Built by hand: our library refuses these before sending.
        func raw(_ externalNo: String, type: String, period: Int, date: String) throws -> String {
            let parameters = try client.signedParameters(
                method: "alipay.user.agreement.page.sign",
                biz: [
                    "personal_product_code": "CYCLE_PAY_AUTH_P", "product_code": "CYCLE_PAY_AUTH", "sign_scene": Self.scene,
                    "external_agreement_no": externalNo, "access_params": ["channel": "ALIPAYAPP"],
                    "period_rule_params": ["period_type": type, "period": period, "execute_time": date, "single_amount": "30.00"],
                ])
            return Alipay.FormBody.encode(parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        }
        for (type, period, date) in [("DAY", 6, "2026-12-15"), ("MONTH", 1, "2026-12-29"), ("WEEK", 1, "2026-12-15")] {
            let signString = try raw("BAD\(period)", type: type, period: period, date: date)
            let (status, answer) = try await Self.control(
                sandbox, "sandbox/alipay/agreements/sign", ["sign_string": signString, "outcome": "agree"])
            #expect(
                status == 400 && (answer["error"] as? [String: Any])?["code"] as? String == "signing_refused", "\(type) \(period) \(date)")
            let page = try await URLSessionTransport().send(
                HTTPRequest(method: "GET", url: URL(string: sandbox.alipayGatewayURL.absoluteString + "?" + signString)!))
            #expect(page.status == 400)
        }
        #expect(try await client.agreementQuery(externalAgreementNo: "BAD6", product: .cyclePay, signScene: Self.scene) == nil)
        // A forged request (changed after signing) is refused.
        let good = try raw("AGR2", type: "DAY", period: 7, date: "2026-12-12")
        let forged = good.replacingOccurrences(of: "AGR2", with: "AGR3")
        #expect(try await Self.control(sandbox, "sandbox/alipay/agreements/sign", ["sign_string": forged, "outcome": "agree"]).0 == 400)
        // No signing registered under the number (a sign string never handed over): signed for the
        // sandbox's one app, as a monthly cycle agreement from today.
        #expect(
            try await Self.control(sandbox, "sandbox/alipay/agreements/sign", ["external_agreement_no": "NONE", "outcome": "agree"]).0
                == 200)
        #expect(await sandbox.alipay.agreement(externalAgreementNo: "NONE")?.status == "NORMAL")

        // The page's refuse button: nothing signed, nothing at Alipay.
        let url = try client.agreementSignURL(Self.monthly("AGR4"), notifyURL: nil)
        let html = String(decoding: try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url)).body, as: UTF8.self)
        let token = try #require(html.components(separatedBy: "name=\"token\" value=\"").dropFirst().first?.prefix(32))
        let action = sandbox.baseURL.appendingPathComponent("alipay/agreement")
        let refused = try await URLSessionTransport().send(
            HTTPRequest(
                method: "POST", url: action, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("token=\(token)&action=refuse".utf8)))
        #expect(refused.status == 200 && String(decoding: refused.body, as: UTF8.self).contains("已拒绝"))
        #expect(try await client.agreementQuery(externalAgreementNo: "AGR4", product: .cyclePay, signScene: Self.scene) == nil)
        // Opened again, the page's agree button signs it; the used page is gone.
        let reopened = String(decoding: try await URLSessionTransport().send(HTTPRequest(method: "GET", url: url)).body, as: UTF8.self)
        let second = try #require(reopened.components(separatedBy: "name=\"token\" value=\"").dropFirst().first?.prefix(32))
        let form = { (token: Substring, choice: String) in
            HTTPRequest(
                method: "POST", url: action, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("token=\(token)&action=\(choice)".utf8))
        }
        #expect(try await URLSessionTransport().send(form(token, "agree")).status == 400)
        let agreed = try await URLSessionTransport().send(form(second, "agree"))
        #expect(agreed.status == 200 && String(decoding: agreed.body, as: UTF8.self).contains("签约成功"))
        #expect(try await client.agreementQuery(externalAgreementNo: "AGR4", product: .cyclePay, signScene: Self.scene)?.status == .normal)

        // The app's sign string, carried by the payer's call: signed at once.
        let signString = try client.agreementSignString(Self.monthly("AGR5"), notifyURL: nil)
        let (status, signed) = try await Self.control(
            sandbox, "sandbox/alipay/agreements/sign", ["sign_string": signString, "outcome": "agree"])
        #expect(status == 200 && signed["status"] as? String == "NORMAL" && signed["external_agreement_no"] as? String == "AGR5")
        // Signing the same number, product and scene again answers the same agreement.
        let again = try await Self.control(sandbox, "sandbox/alipay/agreements/sign", ["sign_string": signString, "outcome": "agree"]).1
        #expect(again["agreement_no"] as? String == signed["agreement_no"] as? String)
        await sandbox.stop()
    }

    /// The merchant ends an agreement (notified to the unsign's `notify_url`, again no error); the
    /// schedule moves with `executionplan.modify`; the early window is configurable; a slow payer
    /// answers `10003` and the trade is paid later.
    @Test(.timeLimit(.minutes(2))) func merchantUnsignExecutionPlanEarlyWindowAndDelayedPayment() async throws {
        let sandbox = try await Self.sandbox()
        await sandbox.alipay.setPasswordDelay(0)
        let client = Self.client(sandbox)
        let inbox = try Keys.Inbox()
        let weekly = Alipay.AgreementSign(
            externalAgreementNo: "AGR6", product: .cyclePay, signScene: Self.scene,
            periodRule: Alipay.PeriodRule(periodType: .day, period: 7, executeTime: "2026-12-14", singleAmount: Self.yuan(1000)))
        let signed = try #require(
            try await sandbox.alipay.payerSign(
                externalAgreementNo: nil, signString: client.agreementSignString(weekly, notifyURL: nil), agree: true))
        let number = signed.agreement_no
        #expect(signed.next_deduct_time == "2026-12-14")

        // No early window: the 14th's charge waits for the 14th.
        await sandbox.alipay.setEarlyDeductionDays(0)
        #expect(Self.declined(try await Self.charge(client, number, fen: 500).1) == "ACQ.CYCLE_PAY_DATE_NOT_MATCH")
        #expect(try await Self.control(sandbox, "sandbox/alipay/agreements/early_days", ["days": 5]).0 == 200)
        // A slow payer: 10003, then paid.
        await sandbox.alipay.setAgreementBalance(agreementNo: number, outcome: "delayed")
        let (slow, waiting) = try await Self.charge(client, number, fen: 500)
        guard case .waiting = waiting else {
            Issue.record("the delayed charge did not wait: \(waiting)")
            return
        }
        #expect(try await client.query(outTradeNo: slow).isPaid)
        await sandbox.alipay.setAgreementBalance(agreementNo: number, outcome: "sufficient")

        // The schedule moves to the 24th: the next window opens on the 19th.
        #expect(try await client.modifyExecutionPlan(agreementNo: number, deductTime: "2026-12-24", memo: "missed") == "2026-12-24")
        let past = await #expect(throws: PaymentError.self) {
            try await client.modifyExecutionPlan(agreementNo: number, deductTime: "2026-12-01", memo: "past")
        }
        #expect(past?.providerCode == "DEDUCT_TIME_ERROR")
        #expect(Self.declined(try await Self.charge(client, number, fen: 500).1) == "ACQ.CYCLE_PAY_DATE_NOT_MATCH")
        await sandbox.alipay.advanceAgreementClock(by: 9 * 86_400)
        guard case .paid = try await Self.charge(client, number, fen: 500).1 else {
            Issue.record("the moved period's charge was not paid")
            return
        }

        // The merchant ends it: dut_user_unsign at the unsign's notify_url; again is no error.
        try await client.agreementUnsign(externalAgreementNo: "AGR6", product: .cyclePay, signScene: Self.scene, notifyURL: inbox.url)
        let body = try #require(await Self.body(inbox, 0))
        let ended = try #require(
            try Alipay.AgreementNotification.verify(body, publicKey: sandbox.alipay.alipayPublicKey, appID: Keys.appID))
        #expect(ended.kind == .unsigned && ended.agreementNo == number)
        try await client.agreementUnsign(agreementNo: number)
        #expect(try await client.agreementQuery(agreementNo: number)?.status == .stopped)
        let unknown = await #expect(throws: PaymentError.self) { try await client.agreementUnsign(agreementNo: "20260000000000000000") }
        #expect(unknown?.providerCode == "USER_AGREEMENT_NOT_EXIST")
        await sandbox.stop()
    }
}
