import Alipay
import Cashier
import CashierCurl
import CashierHTTP
import CashierSandbox
import Foundation
import TestSupport
import Testing

@testable import CashierServer
@testable import CashierStore

/// `AlipayAdapter` as a `Recurring` adapter against the Alipay sandbox: the agreement's period
/// as Alipay's schedule (and what Alipay cannot express refused), the app's sign string and the
/// page-sign address, `dut_user_sign` / `dut_user_unsign` read as agreement reports, progress by
/// `alipay.user.agreement.query`, charges paid / accepted / declined (retryable or not) and
/// idempotent by trade number, and the merchant's termination.
@Suite struct AlipayRecurringAdapterTests {
    static let appID = "2021000000000061"
    static let appKey = TestKeys.rsa(0)
    typealias Gateway = AlipaySplitAdapterTests.Gateway

    static func beijing(_ text: String) -> Date { BeijingTime.formatter(BeijingTime.Layout.dateTime.format).date(from: text)! }
    static func yuan(_ fen: Int64) -> Money { Money(minorUnits: fen, currency: .cny) }

    static func agreement(
        _ externalNo: String, method: String = "alipay.app", unit: StoredAgreement.PeriodUnit = .month, count: Int = 1,
        first: String? = "2026-12-15 00:00:00", limit: Money = yuan(3000), signedAs number: String? = nil
    ) -> StoredAgreement {
        StoredAgreement(
            id: "agr_" + externalNo, merchant: nil, provider: "alipay", method: method, externalNo: externalNo, providerAgreementID: number,
            payer: nil, planID: nil, description: "会员", periodUnit: unit, periodCount: count, singleLimit: limit,
            firstChargeAt: first.map(beijing), status: number == nil ? .pending : .active, providerState: nil, endReason: nil, version: 1,
            createdAt: Date(), updatedAt: Date(), activatedAt: nil, endedAt: nil)
    }

    static func order(_ id: String, fen: Int64) -> StoredOrder {
        StoredOrder(
            id: id, outTradeNo: id, status: .created, total: yuan(fen), refunded: yuan(0), description: "会员月费", metadataJSON: "{}",
            itemsJSON: "[]", clientSecret: "s", refundRequired: false, version: 1, createdAt: Date(), expiresAt: nil, settledPaymentID: nil)
    }

    static func payment(_ order: StoredOrder) -> StoredPayment {
        StoredPayment(
            id: "pay_" + order.id, orderID: order.id, method: .alipayApp, provider: .alipay, outTradeNo: TradeNumber.generate(),
            appID: appID, merchantID: nil, payer: nil, transactionID: nil, walletToken: nil, amount: order.total, refunded: yuan(0),
            reserved: yuan(0), status: .pending, refundRequired: false, failureReason: nil, createdAt: Date(), updatedAt: Date(),
            succeededAt: nil)
    }

    static func body(_ gateway: Gateway, _ index: Int) async -> [UInt8]? {
        await gateway.sink.arrivals.first(within: .seconds(30)) { gateway.sink.bodies.withLock { $0.count > index ? $0[index] : nil } }
    }

    @Test(arguments: [
        (StoredAgreement.PeriodUnit.week, 2, "2026-12-15 00:00:00", String?("DAY"), 14), (.year, 1, "2026-12-15 00:00:00", "MONTH", 12),
        (.day, 7, "2026-12-31 00:00:00", "DAY", 7), (.month, 3, "2026-12-28 09:00:00", "MONTH", 3),
        (.day, 3, "2026-12-15 00:00:00", nil, 0), (.month, 1, "2026-12-30 00:00:00", nil, 0), (.month, 0, "2026-12-15 00:00:00", nil, 0),
    ])
    func periodsAsAlipaySchedules(unit: StoredAgreement.PeriodUnit, count: Int, first: String, type: String?, period: Int) throws {
        let adapter = AlipayAdapter(
            configuration: .init(
                appID: Self.appID, privateKey: Self.appKey, alipayPublicKey: TestKeys.rsa(1).publicKey,
                gateway: URL(string: "http://127.0.0.1:9/gateway.do")!),
            transport: CurlTransport(), notifyBase: { "http://127.0.0.1:9" }, clock: SystemClock())
        let agreement = Self.agreement("P1", unit: unit, count: count, first: first)
        guard let type else {
            let refused = #expect(throws: PaymentError.self) { try adapter.periodRule(agreement) }
            #expect(refused?.code == .invalidRequest)
            return
        }
        let rule = try adapter.periodRule(agreement)
        #expect(rule.periodType.rawValue == type && rule.period == period && rule.executeTime == String(first.prefix(10)))
        #expect(rule.singleAmount == Self.yuan(3000))
        #expect(throws: PaymentError.self) { try adapter.periodRule(Self.agreement("P2", limit: Money(minorUnits: 3000, currency: .usd))) }
    }

    @Test(.timeLimit(.minutes(2))) func signChargeAndEndAnAgreement() async throws {
        let sandbox = SandboxServer(wechatMerchants: [], alipayApps: [Self.appID: Self.appKey.publicKey], timeScale: 0.001)
        try sandbox.start()
        let now = Self.beijing("2026-12-10 12:00:00")
        await sandbox.alipay.setAgreementClock { now }
        await sandbox.alipay.setPasswordDelay(0)
        let adapter = AlipayAdapter(
            configuration: .init(
                appID: Self.appID, privateKey: Self.appKey, alipayPublicKey: sandbox.alipay.alipayPublicKey,
                gateway: sandbox.alipayGatewayURL, sellerID: sandbox.alipay.sellerID),
            transport: CurlTransport(), notifyBase: { "http://127.0.0.1:9" }, clock: SystemClock())
        #expect(adapter.recurringMerchantID == Self.appID && adapter.signingMethods == [.alipayApp, .alipayPage, .alipayWap])
        let notifications = try Gateway()
        let applicationGateway = try Gateway()
        await sandbox.alipay.setApplicationGateway(appID: Self.appID, url: applicationGateway.url)

        // The page: an address on the gateway; the app: the sign string. Neither is at Alipay until the payer opens it.
        let page = try await adapter.signAgreement(
            Self.agreement("SUB0", method: "alipay.page"), notifyURL: notifications.url, returnURL: nil)
        guard case .url(let url) = page else { throw PaymentError(.invalidRequest, "alipay.page did not launch an address: \(page)") }
        #expect(url.hasPrefix(sandbox.alipayGatewayURL.absoluteString + "?") && url.contains("alipay.user.agreement.page.sign"))
        await #expect(throws: PaymentError.self) {
            try await adapter.signAgreement(Self.agreement("SUB0", method: "alipay.qr"), notifyURL: notifications.url, returnURL: nil)
        }
        let pending = Self.agreement("SUB1")
        guard
            case .alipaySignString(let signString) = try await adapter.signAgreement(pending, notifyURL: notifications.url, returnURL: nil)
        else { throw PaymentError(.invalidRequest, "alipay.app did not launch a sign string") }
        #expect(try await adapter.agreementProgress(pending) == nil)

        // The payer signs in the app: dut_user_sign, read as the agreement active.
        let signed = try #require(try await sandbox.alipay.payerSign(externalAgreementNo: nil, signString: signString, agree: true))
        let signBody = try #require(await Self.body(notifications, 0))
        let reports = try await adapter.agreementEvents(InboundMessage(headers: [:], body: signBody))
        #expect(reports.count == 1)
        let report = try #require(reports.first)
        #expect(
            report.provider == .alipay && report.merchantID == Self.appID && report.externalNo == "SUB1" && !report.notificationID.isEmpty)
        #expect(report.progress.status == .active && report.progress.providerAgreementID == signed.agreement_no)
        #expect(report.progress.providerState == "NORMAL" && report.progress.payer?.hasPrefix("2088") == true)
        var forged = signBody
        forged[forged.count - 3] ^= 1
        await #expect(throws: PaymentError.self) { try await adapter.agreementEvents(InboundMessage(headers: [:], body: forged)) }
        #expect(try await adapter.agreementProgress(pending)?.status == .active)

        // Charges: paid once a period, the same trade number answered again as paid, then declined.
        let active = Self.agreement("SUB1", signedAs: signed.agreement_no)
        let firstOrder = Self.order("ord_1", fen: 2990)
        let firstPayment = Self.payment(firstOrder)
        let paid = try await adapter.charge(firstPayment, order: firstOrder, under: active, notifyURL: notifications.url)
        guard case .paid(let amount, let transactionID) = paid else { throw PaymentError(.invalidRequest, "not paid: \(paid)") }
        #expect(amount == Self.yuan(2990) && transactionID?.isEmpty == false)
        #expect(try await adapter.charge(firstPayment, order: firstOrder, under: active, notifyURL: notifications.url) == paid)
        let secondOrder = Self.order("ord_2", fen: 2990)
        let early = try await adapter.charge(Self.payment(secondOrder), order: secondOrder, under: active, notifyURL: notifications.url)
        guard case .declined(let reason, let retryable) = early else { throw PaymentError(.invalidRequest, "not declined: \(early)") }
        #expect(reason.hasPrefix("ACQ.CYCLE_PAY_DATE_NOT_MATCH") && retryable)
        // The next period: the balance runs short (retryable), then a slow payer (accepted, paid later).
        await sandbox.alipay.advanceAgreementClock(by: 31 * 86_400)
        await sandbox.alipay.setAgreementBalance(agreementNo: signed.agreement_no, outcome: "insufficient")
        let short = try await adapter.charge(Self.payment(secondOrder), order: secondOrder, under: active, notifyURL: notifications.url)
        #expect(short == .declined(reason: "ACQ.BUYER_BALANCE_NOT_ENOUGH: 买家余额不足", retryable: true))
        await sandbox.alipay.setAgreementBalance(agreementNo: signed.agreement_no, outcome: "delayed")
        let slowPayment = Self.payment(secondOrder)
        #expect(try await adapter.charge(slowPayment, order: secondOrder, under: active, notifyURL: notifications.url) == .accepted)
        guard case .paid = try await adapter.query(slowPayment) else {
            throw PaymentError(.invalidRequest, "the accepted charge was not paid")
        }

        // The payer unsigns in the app: dut_user_unsign at the application gateway, read as terminated; no charge passes.
        await sandbox.alipay.payerUnsign(agreementNo: signed.agreement_no)
        let unsignBody = try #require(await Self.body(applicationGateway, 0))
        let ended = try #require(try await adapter.agreementEvents(InboundMessage(headers: [:], body: unsignBody)).first)
        #expect(ended.progress.status == .terminated && ended.progress.providerState == "STOP" && ended.externalNo == "SUB1")
        #expect(try await adapter.agreementProgress(active)?.status == .terminated)
        await sandbox.alipay.advanceAgreementClock(by: 31 * 86_400)
        let thirdOrder = Self.order("ord_3", fen: 2990)
        let gone = try await adapter.charge(Self.payment(thirdOrder), order: thirdOrder, under: active, notifyURL: notifications.url)
        guard case .declined(let goneReason, let goneRetryable) = gone else { throw PaymentError(.invalidRequest, "not declined: \(gone)") }
        #expect(goneReason.hasPrefix("ACQ.AGREEMENT_NOT_EXIST") && !goneRetryable)
        #expect(
            try await adapter.charge(Self.payment(thirdOrder), order: thirdOrder, under: Self.agreement("SUB9"), notifyURL: "")
                == .declined(reason: "the agreement has no agreement_no: it was never signed", retryable: false))

        // The merchant ends another one.
        guard
            case .alipaySignString(let other) = try await adapter.signAgreement(
                Self.agreement("SUB2"), notifyURL: notifications.url, returnURL: nil)
        else { throw PaymentError(.invalidRequest, "alipay.app did not launch a sign string") }
        let second = try #require(try await sandbox.alipay.payerSign(externalAgreementNo: nil, signString: other, agree: true))
        let terminated = try await adapter.terminateAgreement(Self.agreement("SUB2", signedAs: second.agreement_no), remark: "canceled")
        #expect(terminated.status == .terminated && terminated.providerState == "STOP" && terminated.reason == "canceled")
        let never = try await adapter.terminateAgreement(Self.agreement("SUB3"), remark: "canceled")
        #expect(never.status == .terminated && never.providerState == "USER_AGREEMENT_NOT_EXIST")
        await sandbox.stop()
    }

    /// A verified notification that is not an agreement's answers no report.
    @Test func otherNotificationsAreNotAgreements() async throws {
        let alipayKey = TestKeys.rsa(1)
        let adapter = AlipayAdapter(
            configuration: .init(
                appID: Self.appID, privateKey: Self.appKey, alipayPublicKey: alipayKey.publicKey,
                gateway: URL(string: "http://127.0.0.1:9/gateway.do")!),
            transport: CurlTransport(), notifyBase: { "http://127.0.0.1:9" }, clock: SystemClock())
        var fields = [
            "notify_type": "trade_status_sync", "notify_id": "N1", "app_id": Self.appID, "out_trade_no": "T1", "trade_no": "2026T1",
            "trade_status": "TRADE_SUCCESS", "total_amount": "1.00",
        ]
        fields["sign"] = try Alipay.Signer(privateKey: alipayKey).signature(for: fields, type: .rsa2)
        let body = Array(Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
        #expect(try await adapter.agreementEvents(InboundMessage(headers: [:], body: body)).isEmpty)
        fields["app_id"] = "2021000000000099"
        fields["sign"] = try Alipay.Signer(privateKey: alipayKey).signature(for: fields, type: .rsa2)
        let elsewhere = Array(Alipay.FormBody.encode(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }).utf8)
        let mismatch = await #expect(throws: PaymentError.self) {
            try await adapter.agreementEvents(InboundMessage(headers: [:], body: elsewhere))
        }
        #expect(mismatch?.code == .merchantMismatch)
    }
}
