import Alipay
import Cashier
import CashierStore
import Foundation

/// Recurring charges (周期扣款) for the direct merchant's app: the payer signs a
/// `CYCLE_PAY_AUTH_P` agreement (the app's sign string for `alipay.app`, the page-sign address
/// for `alipay.page` and `alipay.wap`) whose schedule is the agreement's period; each charge is
/// `alipay.trade.pay` with `agreement_params`; the agreement is read with
/// `alipay.user.agreement.query` and ended with `alipay.user.agreement.unsign`; `dut_user_sign` /
/// `dut_user_unsign` arrive at the sign's `notify_url` and (a payer's unsign in the app) the
/// application gateway.
///
/// Alipay's schedule is days (at least 7) or months (on day 1 to 28): a week is 7 days, a year 12
/// months; a shorter day period or a monthly date after the 28th is refused before anything is sent.
extension AlipayAdapter: Recurring {
    /// The `sign_scene` agreements are signed under: the scene in the merchant's contract with
    /// Alipay for periodic deduction (digital media, the common one for subscriptions).
    static let signScene = "INDUSTRY|DIGITAL_MEDIA"

    var recurringMerchantID: String { configuration.appID }

    var signingMethods: Set<PaymentMethod> { [.alipayApp, .alipayPage, .alipayWap] }

    func signAgreement(_ agreement: StoredAgreement, notifyURL: String, returnURL: String?) async throws -> AgreementLaunch {
        guard let method = PaymentMethod(rawValue: agreement.method), signingMethods.contains(method) else {
            throw PaymentError(
                .invalidRequest, provider: .alipay,
                "\(agreement.method) is not a way to sign an Alipay agreement: use alipay.app, alipay.page or alipay.wap")
        }
        // The app opens Alipay's signing in the Alipay app; a desktop page shows a QR code for it.
        let sign = Alipay.AgreementSign(
            externalAgreementNo: agreement.externalNo, product: .cyclePay, signScene: Self.signScene,
            channel: method == .alipayPage ? "QRCODE" : "ALIPAYAPP", periodRule: try periodRule(agreement))
        if method == .alipayApp { return .alipaySignString(try client.agreementSignString(sign, notifyURL: notifyURL)) }
        return .url(try client.agreementSignURL(sign, notifyURL: notifyURL, returnURL: returnURL).absoluteString)
    }

    /// The agreement's period as Alipay's schedule (`period_rule_params`).
    /// - Throws: `PaymentError.invalidRequest` for a period Alipay cannot express (under 7 days; a
    ///   monthly date after the 28th) or a limit not in CNY.
    func periodRule(_ agreement: StoredAgreement) throws -> Alipay.PeriodRule {
        guard agreement.periodCount >= 1 else {
            throw PaymentError(.invalidRequest, provider: .alipay, "an agreement's period is at least one \(agreement.periodUnit.rawValue)")
        }
        let (type, period): (Alipay.PeriodRule.PeriodType, Int) =
            switch agreement.periodUnit {
            case .day: (.day, agreement.periodCount)
            case .week: (.day, 7 * agreement.periodCount)
            case .month: (.month, agreement.periodCount)
            case .year: (.month, 12 * agreement.periodCount)
            }
        guard type == .month || period >= Alipay.PeriodRule.shortestDayPeriod else {
            throw PaymentError(
                .invalidRequest, provider: .alipay,
                "Alipay charges at most once every \(Alipay.PeriodRule.shortestDayPeriod) days: a period of \(period) days cannot be signed"
            )
        }
        let first = BeijingTime.string(from: agreement.firstChargeAt ?? clock.now(), .day)
        guard type == .day || Int(first.suffix(2)).map({ $0 <= Alipay.PeriodRule.latestMonthDay }) == true else {
            throw PaymentError(
                .invalidRequest, provider: .alipay,
                "Alipay charges monthly on day 1 to \(Alipay.PeriodRule.latestMonthDay): the first charge on \(first) cannot be signed; choose another first charge date"
            )
        }
        guard agreement.singleLimit.currency == .cny else {
            throw PaymentError(
                .invalidRequest, provider: .alipay, "Alipay agreements are in CNY, not \(agreement.singleLimit.currency.code)")
        }
        let rule = Alipay.PeriodRule(periodType: type, period: period, executeTime: first, singleAmount: agreement.singleLimit)
        try rule.validate()
        return rule
    }

    func agreementProgress(_ agreement: StoredAgreement) async throws -> AgreementProgress? {
        let found =
            if let number = agreement.providerAgreementID {
                try await client.agreementQuery(agreementNo: number)
            } else {
                try await client.agreementQuery(externalAgreementNo: agreement.externalNo, product: .cyclePay, signScene: Self.signScene)
            }
        return found.map(Self.progress)
    }

    func terminateAgreement(_ agreement: StoredAgreement, remark: String) async throws -> AgreementProgress {
        do {
            if let number = agreement.providerAgreementID {
                try await client.agreementUnsign(agreementNo: number)
            } else {
                try await client.agreementUnsign(externalAgreementNo: agreement.externalNo, product: .cyclePay, signScene: Self.signScene)
            }
        } catch let error as PaymentError where error.providerCode == "USER_AGREEMENT_NOT_EXIST" {
            // Never signed (or gone): nothing to end at Alipay, and nothing will be charged under it.
            return AgreementProgress(
                status: .terminated, providerState: "USER_AGREEMENT_NOT_EXIST", providerAgreementID: agreement.providerAgreementID,
                reason: remark)
        }
        guard let now = try await agreementProgress(agreement) else {
            return AgreementProgress(
                status: .terminated, providerState: "STOP", providerAgreementID: agreement.providerAgreementID, reason: remark)
        }
        return AgreementProgress(
            status: now.status, providerState: now.providerState, providerAgreementID: now.providerAgreementID, payer: now.payer,
            reason: now.status == .terminated ? remark : now.reason)
    }

    func charge(_ payment: StoredPayment, order: StoredOrder, under agreement: StoredAgreement, notifyURL: String) async throws
        -> ChargeAnswer
    {
        guard let number = agreement.providerAgreementID, !number.isEmpty else {
            return .declined(reason: "the agreement has no agreement_no: it was never signed", retryable: false)
        }
        let answer: Alipay.AgreementCharge
        do {
            answer = try await client.agreementPay(
                outTradeNo: payment.outTradeNo, total: payment.amount, subject: order.description, agreementNo: number, product: .cyclePay,
                notifyURL: notifyURL, extras: extras(order))
        } catch let error as PaymentError where error.providerCode == "ACQ.TRADE_HAS_SUCCESS" {
            // Sent before and paid (a retried charge): the query says how much.
            guard case .paid(let amount, let transactionID) = try await query(payment) else { throw error }
            return .paid(amount: amount, transactionID: transactionID)
        }
        switch answer {
        case .paid(let amount, let tradeNo): return .paid(amount: amount, transactionID: tradeNo)
        case .waiting: return .accepted
        case .declined(let decline):
            return .declined(reason: decline.subCode + (decline.subMessage.map { ": " + $0 } ?? ""), retryable: decline.isRetryable)
        }
    }

    func agreementEvents(_ message: InboundMessage) async throws -> [AgreementReport] {
        guard
            let notification = try Alipay.AgreementNotification.verify(
                message.body, publicKey: configuration.alipayPublicKey, appID: configuration.appID)
        else { return [] }
        guard let externalNo = notification.externalAgreementNo, !externalNo.isEmpty else {
            throw PaymentError(
                .malformedMessage, provider: .alipay, "the \(notification.kind.rawValue) notification names no external_agreement_no")
        }
        let status: StoredAgreement.Status =
            switch (notification.kind, notification.status) {
            case (.signed, .normal): .active
            case (.unsigned, _), (_, .stopped): .terminated
            default: .pending
            }
        return [
            AgreementReport(
                provider: .alipay, merchantID: notification.appID, externalNo: externalNo,
                progress: AgreementProgress(
                    status: status, providerState: notification.status.rawValue, providerAgreementID: notification.agreementNo,
                    payer: notification.alipayUserID,
                    reason: status == .terminated ? "unsigned in Alipay at \(notification.unsignTime ?? "an unknown time")" : nil),
                notificationID: notification.notifyID)
        ]
    }

    /// Alipay's word for an agreement read as progress: `NORMAL` active, `STOP` terminated, `TEMP` still pending.
    static func progress(_ agreement: Alipay.Agreement) -> AgreementProgress {
        let status: StoredAgreement.Status =
            switch agreement.status {
            case .normal: .active
            case .stopped: .terminated
            case .temporary, .other: .pending
            }
        return AgreementProgress(
            status: status, providerState: agreement.status.rawValue, providerAgreementID: agreement.agreementNo,
            payer: agreement.alipayUserID, reason: status == .terminated ? "STOP" : nil)
    }
}
