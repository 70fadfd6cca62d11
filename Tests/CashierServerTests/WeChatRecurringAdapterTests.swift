import Cashier
import CashierCurl
import CashierHTTP
import CashierSandbox
import Foundation
import Synchronization
import TestSupport
import Testing
import WeChatPay

@testable import CashierServer
@testable import CashierStore

/// `WeChatV2Adapter` as a `Recurring` adapter against the v2 sandbox: each wallet's signing
/// launch (the app's `pre_entrustweb_id`, the official account's `entrustweb` address, H5's
/// redirect), the contract notifications read as agreement reports (and a forged one refused),
/// progress by `querycontract`, charges accepted then settled on the sandbox clock (paid, or
/// failed for want of balance) as the payment query and notification say, declines, and
/// termination by the merchant and by the payer.
@Suite struct WeChatRecurringAdapterTests {
    static let merchant = WeChatPay.V2.Merchant(appID: "wxd930ea5d5a258f4f", mchID: "10000100", apiKey: "192006250b4c09247ec02edce69f6a2d")

    static func adapter(_ sandbox: SandboxServer) -> WeChatV2Adapter {
        WeChatV2Adapter(
            currencies: WeChatPayer.currencies([]), configuration: .init(merchant: merchant, baseURL: sandbox.wechatV2URL),
            payer: WeChatPayer(
                appID: merchant.appID, mchID: merchant.mchID, miniProgram: nil, officialAccountID: nil, transport: CurlTransport()),
            merchants: [merchant], transport: CurlTransport(), mutualTLSTransport: nil, notifyBase: { "http://127.0.0.1:9" },
            clock: SystemClock())
    }

    static func agreement(
        _ code: String, method: String = "wechat.app", planID: String? = "12535", status: StoredAgreement.Status = .pending,
        contractID: String? = nil
    ) -> StoredAgreement {
        StoredAgreement(
            id: "agr_" + code, merchant: nil, provider: "wechat.v2", method: method, externalNo: code, providerAgreementID: contractID,
            payer: nil, planID: planID, description: "月度会员", periodUnit: .month, periodCount: 1,
            singleLimit: Money(minorUnits: 5000, currency: .cny), firstChargeAt: nil, status: status, providerState: nil, endReason: nil,
            version: 1, createdAt: Date(), updatedAt: Date(), activatedAt: nil, endedAt: nil)
    }

    static func payment(_ number: String, fen: Int64 = 1500) -> StoredPayment {
        StoredPayment(
            id: "pay_" + number, orderID: "ord_" + number, method: .wechatApp, provider: .wechatV2, outTradeNo: number,
            appID: merchant.appID, merchantID: merchant.mchID, payer: nil, transactionID: nil, walletToken: nil,
            amount: Money(minorUnits: fen, currency: .cny), refunded: Money(minorUnits: 0, currency: .cny),
            reserved: Money(minorUnits: 0, currency: .cny), status: .pending, refundRequired: false, failureReason: nil, createdAt: Date(),
            updatedAt: Date(), succeededAt: nil)
    }

    static func order(_ number: String) -> StoredOrder {
        StoredOrder(
            id: "ord_" + number, outTradeNo: number, status: .created, total: Money(minorUnits: 1500, currency: .cny),
            refunded: Money(minorUnits: 0, currency: .cny), description: "月度会员", metadataJSON: "{}", itemsJSON: "[]", clientSecret: "s",
            refundRequired: false, version: 1, createdAt: Date(), expiresAt: nil, settledPaymentID: nil)
    }

    /// The first verified contract notification of `change` for `code` at `endpoint`.
    static func contract(_ endpoint: NotifyRecorder, _ code: String, _ change: WeChatPay.V2.ContractNotification.ChangeType) async
        -> WeChatPay.V2.ContractNotification?
    {
        await endpoint.first { body in
            (try? WeChatPay.V2.ContractNotification.verify(body, merchant: merchant)).flatMap {
                $0.contractCode == code && $0.changeType == change ? $0 : nil
            }
        }
    }

    /// The verified payment notification of `outTradeNo` at `endpoint`.
    static func payment(_ endpoint: NotifyRecorder, _ outTradeNo: String) async -> WeChatPay.V2.PaymentNotification? {
        await endpoint.first { body in
            (try? WeChatPay.V2.PaymentNotification.verify(body, merchant: merchant)).flatMap { $0.outTradeNo == outTradeNo ? $0 : nil }
        }
    }

    @Test(.timeLimit(.minutes(2))) func signChargeSettleFailAndTerminate() async throws {
        let sandbox = SandboxServer(wechatMerchants: [Self.merchant], timeScale: 0.001)
        try sandbox.start()
        let clock = WeChatPapaySandboxClock()
        await sandbox.wechatV2.setPapayClock { clock.now() }
        await sandbox.wechatV2.setDeductionDelay(60)
        let endpoint = try NotifyRecorder(reply: WeChatPay.V2.NotificationReply.success.xmlString)
        let notifyURL = endpoint.url("/notify/wechat/v2/contract")
        let adapter = Self.adapter(sandbox)
        #expect(adapter.recurringMerchantID == "10000100")
        #expect(adapter.signingMethods == [.wechatApp, .wechatJSAPI, .wechatH5])
        let code = "AG" + TradeNumber.generate().prefix(20)
        let pending = Self.agreement(code)

        // The app signs with a pre-signing id; nothing is at WeChat Pay until the payer agrees.
        guard case .wechatPreEntrust(let id) = try await adapter.signAgreement(pending, notifyURL: notifyURL, returnURL: nil) else {
            Issue.record("wechat.app signs with a pre_entrustweb_id")
            return
        }
        #expect(!id.isEmpty)
        #expect(try await adapter.agreementProgress(pending) == nil)
        let declined = try await adapter.charge(
            Self.payment(TradeNumber.generate()), order: Self.order("x"), under: pending, notifyURL: notifyURL)
        #expect(declined == .declined(reason: "the agreement is not signed at WeChat Pay", retryable: false))

        let signed = try #require(try await sandbox.wechatV2.signContract(planID: "12535", contractCode: code, outcome: .agree))
        let added = try #require(await Self.contract(endpoint, code, .add))
        let reports = try await adapter.agreementEvents(InboundMessage(headers: [:], body: added.document.xmlString.utf8.map { $0 }))
        #expect(
            reports == [
                AgreementReport(
                    provider: .wechatV2, merchantID: "10000100", externalNo: code,
                    progress: AgreementProgress(
                        status: .active, providerState: "ADD", providerAgreementID: signed.contract_id, payer: signed.openid),
                    notificationID: "\(signed.contract_id):ADD:\(added.operateTime)")
            ])
        #expect(
            try await adapter.agreementProgress(pending)
                == AgreementProgress(status: .active, providerState: "0", providerAgreementID: signed.contract_id, payer: signed.openid))

        // A forged notification is refused; a payment notification is no agreement report.
        var forged = added.document.fields.filter { $0.name != "sign" }.map { ($0.name, $0.value) }
        forged.append(
            (
                "sign",
                WeChatPay.V2.Signer(apiKey: String(repeating: "1", count: 32)).signature(
                    for: forged.map { (key: $0.0, value: $0.1) }, type: .md5)
            ))
        await #expect(throws: PaymentError.self) {
            try await adapter.agreementEvents(InboundMessage(headers: [:], body: Array(WeChatPay.V2.XMLDocument(forged).xmlString.utf8)))
        }

        // A charge is accepted, unpaid until it settles, then paid — by the query and by its notification.
        let active = Self.agreement(code, status: .active, contractID: signed.contract_id)
        let first = TradeNumber.generate()
        #expect(try await adapter.charge(Self.payment(first), order: Self.order(first), under: active, notifyURL: notifyURL) == .accepted)
        #expect(try await adapter.query(Self.payment(first)) == .unpaid)
        clock.advance(61)
        guard case .paid(let amount, let transactionID) = try await adapter.query(Self.payment(first)) else {
            Issue.record("a settled deduction is paid")
            return
        }
        #expect(amount == Money(minorUnits: 1500, currency: .cny) && transactionID?.isEmpty == false)
        #expect(try await adapter.charge(Self.payment(first), order: Self.order(first), under: active, notifyURL: notifyURL) == .accepted)
        let paidBody = try #require(await Self.payment(endpoint, first)).document.xmlString
        let paidEvents = try adapter.verified(InboundMessage(headers: [:], body: Array(paidBody.utf8)))
        guard case .payment(let paid) = paidEvents.first, case .paid = paid.state else {
            Issue.record("the deduction's notification says paid")
            return
        }
        #expect(try await adapter.agreementEvents(InboundMessage(headers: [:], body: Array(paidBody.utf8))) == [])

        // A trade neither query knows is not found: pay/orderquery, then pay/paporderquery, both asked.
        let asked = await sandbox.wechatV2.calls(to: "pay/paporderquery")
        #expect(try await adapter.query(Self.payment(TradeNumber.generate())) == .notFound)
        #expect(await sandbox.wechatV2.calls(to: "pay/paporderquery") == asked + 1)

        // The payer's balance is short: accepted, then failed, by the query and the notification.
        #expect(await sandbox.wechatV2.setInsufficientBalance(contractID: signed.contract_id))
        let second = TradeNumber.generate()
        #expect(try await adapter.charge(Self.payment(second), order: Self.order(second), under: active, notifyURL: notifyURL) == .accepted)
        clock.advance(61)
        guard case .failed(let reason) = try await adapter.query(Self.payment(second)) else {
            Issue.record("a deduction that failed is failed")
            return
        }
        #expect(reason.contains("PAY_FAIL"))
        let failedBody = try #require(await Self.payment(endpoint, second)).document.xmlString
        guard case .payment(let failed) = try adapter.verified(InboundMessage(headers: [:], body: Array(failedBody.utf8))).first,
            case .failed = failed.state
        else {
            Issue.record("the failed deduction's notification says failed")
            return
        }

        // The merchant ends it: terminated at WeChat Pay, DELETE reported, and no charge is accepted under it.
        let ended = try await adapter.terminateAgreement(active, remark: "会员取消")
        #expect(ended.status == .terminated && ended.providerState == "1" && ended.reason == "terminated by the merchant (API)")
        let deleted = try #require(await Self.contract(endpoint, code, .delete))
        let deleteReports = try await adapter.agreementEvents(InboundMessage(headers: [:], body: Array(deleted.document.xmlString.utf8)))
        #expect(deleteReports.first?.progress.status == .terminated && deleteReports.first?.progress.providerState == "DELETE")
        let refused = try await adapter.charge(
            Self.payment(TradeNumber.generate()), order: Self.order("y"), under: active, notifyURL: notifyURL)
        #expect(refused == .declined(reason: "CONTRACT_NOT_EXIST: 签约协议不存在", retryable: false))
        // Ending one never signed says so.
        let never = try await adapter.terminateAgreement(Self.agreement("AG" + TradeNumber.generate().prefix(20)), remark: "x")
        #expect(never.status == .terminated && never.providerState == "CONTRACT_NOT_EXIST")
        await sandbox.stop()
    }

    @Test(.timeLimit(.minutes(2))) func theOfficialAccountAndH5SignOnPagesAndThePayerEndsIt() async throws {
        let sandbox = SandboxServer(wechatMerchants: [Self.merchant], timeScale: 0.001)
        try sandbox.start()
        let endpoint = try NotifyRecorder(reply: WeChatPay.V2.NotificationReply.success.xmlString)
        let notifyURL = endpoint.url("/notify/wechat/v2/contract")
        let adapter = Self.adapter(sandbox)

        let jsapi = "AG" + TradeNumber.generate().prefix(20)
        guard
            case .url(let address) = try await adapter.signAgreement(
                Self.agreement(jsapi, method: "wechat.jsapi"), notifyURL: notifyURL, returnURL: nil)
        else {
            Issue.record("wechat.jsapi signs on a page")
            return
        }
        #expect(address.hasPrefix(sandbox.wechatV2URL.absoluteString + "papay/entrustweb?"))
        let page = try await CurlTransport().send(HTTPRequest(method: "GET", url: URL(string: address)!))
        #expect(String(decoding: page.body, as: UTF8.self).contains("id=\"agree\""))

        let h5 = "AG" + TradeNumber.generate().prefix(20)
        guard
            case .url(let redirect) = try await adapter.signAgreement(
                Self.agreement(h5, method: "wechat.h5"), notifyURL: notifyURL, returnURL: nil)
        else {
            Issue.record("wechat.h5 signs on a page")
            return
        }
        #expect(redirect.contains("sandbox/wechat/contracts/sign?plan_id=12535"))
        let signed = try #require(try await sandbox.wechatV2.signContract(planID: "12535", contractCode: h5, outcome: .agree))

        // The payer ends it in the wallet: the DELETE says so, and so does the query.
        try await sandbox.wechatV2.unsignContract(contractID: signed.contract_id)
        let deleted = try #require(await Self.contract(endpoint, h5, .delete))
        let reports = try await adapter.agreementEvents(InboundMessage(headers: [:], body: Array(deleted.document.xmlString.utf8)))
        #expect(reports.first?.progress.reason == "terminated by the payer")
        #expect(try await adapter.agreementProgress(Self.agreement(h5, method: "wechat.h5"))?.status == .terminated)

        // Other wallets, and agreements without a template, are refused.
        await #expect(throws: PaymentError.self) {
            try await adapter.signAgreement(Self.agreement("A1", method: "alipay.app"), notifyURL: notifyURL, returnURL: nil)
        }
        await #expect(throws: PaymentError.self) {
            try await adapter.signAgreement(Self.agreement("A2", planID: nil), notifyURL: notifyURL, returnURL: nil)
        }
        await sandbox.stop()
    }
}

/// The sandbox's papay clock, moved by a test.
final class WeChatPapaySandboxClock: Sendable {
    let date = Mutex(Date(timeIntervalSince1970: 1_796_644_800))
    func now() -> Date { date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
}
