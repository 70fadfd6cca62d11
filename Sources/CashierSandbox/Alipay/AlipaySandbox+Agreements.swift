import Alipay
import Cashier
import CashierCrypto
public import Foundation

/// Agreements at the gateway: `alipay.trade.pay` with `agreement_params` (the period rules, the
/// single-charge and total limits, the payer's balance), `alipay.user.agreement.query`,
/// `alipay.user.agreement.unsign` and `alipay.user.agreement.executionplan.modify`. A charge is an
/// ordinary trade: queried, refunded and billed as any other. The signing (pages, the payer's
/// JSON calls, the notifications) is in `+AgreementSigning`.
extension AlipaySandbox {
    /// `alipay.trade.pay` under an agreement.
    func agreementPay(_ biz: [String: Any], appID: String, notifyURL: String?) -> [String: Any] {
        guard let number = biz["out_trade_no"] as? String, let totalText = biz["total_amount"] as? String,
            let total = try? Money(decimal: totalText, currency: .cny), total.isPositive, let subject = biz["subject"] as? String,
            let agreementNo = (biz["agreement_params"] as? [String: Any])?["agreement_no"] as? String
        else { return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "参数无效") }
        guard let product = (biz["product_code"] as? String).flatMap(Alipay.AgreementProduct.init(productCode:)) else {
            return failure("40002", "Invalid Arguments", "isv.invalid-parameter", "product_code无效 (CYCLE_PAY_AUTH, GENERAL_WITHHOLDING)")
        }
        settleWaiting(number)
        if let existing = trades[number] {
            switch existing.status {
            case "TRADE_SUCCESS", "TRADE_FINISHED": return failure("40004", "Business Failed", "ACQ.TRADE_HAS_SUCCESS", "交易已被支付")
            case "TRADE_CLOSED": return failure("40004", "Business Failed", "ACQ.TRADE_HAS_CLOSE", "交易已经关闭")
            default: return ["code": "10003", "msg": " order success pay inprocess", "out_trade_no": number, "trade_no": existing.tradeNo]
            }
        }
        guard var agreement = agreementDesk.agreements[agreementNo], agreement.appID == appID, agreement.status != .stopped else {
            return failure("40004", "Business Failed", "ACQ.AGREEMENT_NOT_EXIST", "用户协议不存在")
        }
        guard agreement.status == .normal else {
            return failure("40004", "Business Failed", "ACQ.AGREEMENT_STATUS_NOT_NORMAL", "用户协议状态非NORMAL")
        }
        guard agreement.product == product else { return failure("40004", "Business Failed", "ACQ.AGREEMENT_ERROR", "协议信息异常") }
        let now = agreementDesk.now()
        if let rule = agreement.rule {
            guard total.minorUnits <= rule.singleAmount.minorUnits else {
                return failure("40004", "Business Failed", "ACQ.CYCLE_PAY_SINGLE_FEE_EXCEED", "周期扣款的单笔金额超过签约时限制")
            }
            guard let period = agreementDesk.period(of: agreement, at: now), !agreementDesk.isPaid(agreement, period: period) else {
                return failure("40004", "Business Failed", "ACQ.CYCLE_PAY_DATE_NOT_MATCH", "扣款日期不在签约时的允许范围之内")
            }
            if let limit = rule.totalPayments, agreement.charges.count >= limit {
                return failure("40004", "Business Failed", "ACQ.CYCLE_PAY_TOTAL_TIMES_EXCEED", "周期扣款的总次数超过签约时限制")
            }
            if let limit = rule.totalAmount, agreement.charges.reduce(total.minorUnits, { $0 + $1.amount }) > limit.minorUnits {
                return failure("40004", "Business Failed", "ACQ.CYCLE_PAY_TOTAL_FEE_EXCEED", "周期扣款的累计金额超过签约时限制")
            }
        }
        guard agreement.balance != .insufficient else {
            return failure("40004", "Business Failed", "ACQ.BUYER_BALANCE_NOT_ENOUGH", "买家余额不足")
        }
        var sent = Self.sentFields(biz)
        sent["agreement_no"] = agreementNo
        var trade = Trade(
            appID: appID, subject: subject, total: total, notifyURL: notifyURL,
            tradeNo: "2026" + SecureRandom.string(count: 24, alphabet: "0123456789"), sent: sent, authAppID: currentAuthApp)
        agreement.charges.append(.init(outTradeNo: number, amount: total.minorUnits, at: now))
        agreementDesk.agreements[agreementNo] = agreement
        if agreement.balance == .delayed {
            // Paid once the payer's side is done: a query or the notification says so.
            trade.payableAt = Date().addingTimeInterval(passwordDelay)
            trades[number] = trade
            return ["code": "10003", "msg": " order success pay inprocess", "out_trade_no": number, "trade_no": trade.tradeNo]
        }
        trade.status = "TRADE_SUCCESS"
        trade.paid = Date()
        trades[number] = trade
        if let notifyURL { notify(number, trade, notifyURL) }
        return success([
            "out_trade_no": number, "trade_no": trade.tradeNo, "total_amount": total.decimalString, "receipt_amount": total.decimalString,
            "buyer_logon_id": "san***@sandbox.example", "buyer_user_id": agreement.payer,
            "gmt_payment": BeijingTime.string(from: trade.paid ?? Date(), .dateTime),
        ])
    }

    /// The agreement a gateway call names: by `agreement_no`, or by `external_agreement_no` with
    /// `personal_product_code` and `sign_scene`; only the calling app's.
    private func namedAgreement(_ biz: [String: Any], appID: String) -> Result<AlipayAgreementDesk.Agreement, AgreementLookupFailure> {
        if let number = biz["agreement_no"] as? String {
            guard let agreement = agreementDesk.agreements[number], agreement.appID == appID else { return .failure(.notFound) }
            return .success(agreement)
        }
        guard let externalNo = biz["external_agreement_no"] as? String,
            let product = (biz["personal_product_code"] as? String).flatMap(Alipay.AgreementProduct.init(personalProductCode:)),
            let scene = biz["sign_scene"] as? String
        else { return .failure(.missingParameters) }
        guard let number = agreementDesk.latest[AlipayAgreementDesk.key(appID, externalNo, product, scene)],
            let agreement = agreementDesk.agreements[number]
        else { return .failure(.notFound) }
        return .success(agreement)
    }

    enum AgreementLookupFailure: Error {
        case notFound, missingParameters
    }

    private func lookupFailure(_ failure: AgreementLookupFailure) -> [String: Any] {
        switch failure {
        case .notFound: self.failure("40004", "Business Failed", "USER_AGREEMENT_NOT_EXIST", "用户协议不存在")
        case .missingParameters:
            self.failure(
                "40002", "Invalid Arguments", "isv.missing-parameter",
                "agreement_no, or external_agreement_no with personal_product_code and sign_scene")
        }
    }

    /// `alipay.user.agreement.query`.
    func agreementQuery(_ biz: [String: Any], appID: String) -> [String: Any] {
        switch namedAgreement(biz, appID: appID) {
        case .failure(let failure): return lookupFailure(failure)
        case .success(let agreement): return success(agreementFields(agreement))
        }
    }

    /// What the query answers of an agreement.
    private func agreementFields(_ agreement: AlipayAgreementDesk.Agreement) -> [String: Any] {
        let stamp = { (date: Date) in BeijingTime.string(from: date, .dateTime) }
        var fields: [String: Any] = [
            "agreement_no": agreement.agreementNo, "external_agreement_no": agreement.externalNo, "status": agreement.status.rawValue,
            "personal_product_code": agreement.product.personalProductCode, "sign_scene": agreement.signScene,
            "principal_id": agreement.payer, "alipay_logon_id": "san***@sandbox.example", "third_party_type": "PARTNER",
            "invalid_time": "2115-02-01 00:00:00",
        ]
        if let signed = agreement.signed {
            fields["sign_time"] = stamp(signed)
            fields["valid_time"] = stamp(signed)
        }
        if let rule = agreement.rule { fields["single_quota"] = rule.singleAmount.decimalString }
        if agreement.status == .normal, let next = agreementDesk.nextDeductDate(agreement) {
            fields["next_deduct_time"] = BeijingTime.string(from: next, .day)
        }
        if let last = agreement.charges.last { fields["last_deduct_time"] = BeijingTime.string(from: last.at, .day) }
        return fields
    }

    /// `alipay.user.agreement.unsign`: the agreement stops; `dut_user_unsign` goes to the call's
    /// `notify_url` when it gave one. Unsigning a stopped agreement again is no error.
    func agreementUnsign(_ biz: [String: Any], appID: String, notifyURL: String?) -> [String: Any] {
        switch namedAgreement(biz, appID: appID) {
        case .failure(let failure): return lookupFailure(failure)
        case .success(let agreement):
            if agreement.status != .stopped { endAgreement(agreement.agreementNo, notifyURL: notifyURL) }
            return success([:])
        }
    }

    /// `alipay.user.agreement.executionplan.modify`: the schedule continues from `deduct_time`
    /// (today or later; for a `MONTH` schedule, day 1 to 28).
    func executionPlanModify(_ biz: [String: Any], appID: String) -> [String: Any] {
        guard let number = biz["agreement_no"] as? String, let text = biz["deduct_time"] as? String else {
            return failure("40002", "Invalid Arguments", "isv.missing-parameter", "需要agreement_no和deduct_time")
        }
        guard var agreement = agreementDesk.agreements[number], agreement.appID == appID, agreement.status == .normal,
            var rule = agreement.rule
        else { return failure("40004", "Business Failed", "USER_AGREEMENT_NOT_EXIST", "用户协议不存在或不是周期扣款协议") }
        rule.executeTime = text
        let today = AlipayAgreementDesk.calendar.startOfDay(for: agreementDesk.now())
        guard (try? rule.validate()) != nil, let date = rule.executeDate, date >= today else {
            return failure("40004", "Business Failed", "DEDUCT_TIME_ERROR", "扣款时间不合法 (yyyy-MM-dd, not before today; MONTH: day 1-28)")
        }
        agreement.rule = rule
        agreement.anchor = date
        agreementDesk.agreements[number] = agreement
        return success(["agreement_no": number, "deduct_time": text])
    }

    // MARK: Controls

    /// Sets the clock the agreement desk reads (before ``advanceAgreementClock(by:)``'s offset).
    public func setAgreementClock(_ clock: @escaping @Sendable () -> Date) {
        agreementDesk.base = clock
    }

    /// Moves the agreement clock on by `seconds`: periods open and close by it.
    public func advanceAgreementClock(by seconds: TimeInterval) {
        agreementDesk.offset += seconds
    }

    /// The agreement clock's time now.
    public func agreementNow() -> Date { agreementDesk.now() }

    /// How many days before a period's date its charge is first allowed (5 unless set).
    public func setEarlyDeductionDays(_ days: Int) {
        agreementDesk.earlyDays = max(0, days)
    }

    /// What charges under an agreement meet at the payer's end: `sufficient` (paid), `insufficient`
    /// (`ACQ.BUYER_BALANCE_NOT_ENOUGH`) or `delayed` (`10003`, paid later).
    /// - Returns: `false` for an unknown agreement or outcome.
    @discardableResult
    public func setAgreementBalance(agreementNo: String?, externalAgreementNo: String? = nil, outcome: String) -> Bool {
        guard let balance = AlipayAgreementDesk.Balance(rawValue: outcome),
            let agreement = agreementDesk.find(agreementNo: agreementNo, externalNo: externalAgreementNo)
        else { return false }
        agreementDesk.agreements[agreement.agreementNo]?.balance = balance
        return true
    }

    /// An agreement by Alipay's number; `nil` when unknown.
    public func agreement(agreementNo: String) -> SandboxAlipayAgreement? {
        agreementDesk.agreements[agreementNo].map(snapshot)
    }

    /// The newest agreement under a merchant's number (any app, product or scene); `nil` when none.
    public func agreement(externalAgreementNo: String) -> SandboxAlipayAgreement? {
        agreementDesk.find(agreementNo: nil, externalNo: externalAgreementNo).map(snapshot)
    }

    func snapshot(_ agreement: AlipayAgreementDesk.Agreement) -> SandboxAlipayAgreement {
        SandboxAlipayAgreement(
            app_id: agreement.appID, agreement_no: agreement.agreementNo, external_agreement_no: agreement.externalNo,
            status: agreement.status.rawValue, personal_product_code: agreement.product.personalProductCode,
            sign_scene: agreement.signScene,
            next_deduct_time: agreement.status == .normal
                ? agreementDesk.nextDeductDate(agreement).map { BeijingTime.string(from: $0, .day) } : nil,
            charges: agreement.charges.map(\.outTradeNo), balance: agreement.balance.rawValue)
    }
}
