import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// Recurring payments: agreements the payer signs once in their wallet (WeChat Pay's 委托代扣,
/// Alipay's 周期扣款, an Apple Pay card a processor stores on a first payment), subscriptions
/// charged under them every period, and the job that charges each period once — however many
/// instances run it — retrying a failed charge on the dunning schedule. Each period's charge is
/// an ordinary order (an invoice names it), so refunds, reconciliation, exports and webhooks work
/// unchanged. The agreement's state is the provider's word (its notifications and queries),
/// never the app's.
struct RecurringService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// Where WeChat Pay sends contract notifications (`change_type` ADD/DELETE).
    static let wechatContractPath = "/notify/wechat/v2/contracts"
    /// Where Alipay sends `dut_user_sign` / `dut_user_unsign` for agreements signed through Cashier
    /// (a payer's unsign in the wallet goes to the application gateway, ``SplitService/alipayGatewayPath``).
    static let alipayAgreementPath = "/notify/alipay/agreements"
    /// How long a pending agreement waits unchanged before the job asks the provider about it.
    static let queryAfter: TimeInterval = 60
    /// How long a payer has to sign before a pending agreement fails (WeChat's `pre_entrustweb_id`
    /// lasts 10 minutes, a page-sign address a day; a refusal is never notified).
    static let signWithin: TimeInterval = 24 * 3600
    /// How long a charge whose answer is awaited waits before the job asks again.
    static let recheckAfter: TimeInterval = 60
    /// The methods' providers: WeChat Pay's 委托代扣 is API v2's.
    static func provider(of method: PaymentMethod) -> PaymentProvider {
        switch method.wallet {
        case .wechat: .wechatV2
        case .alipay: .alipay
        default: .applePay
        }
    }

    /// The path a provider's agreement notifications come to.
    static func notifyPath(_ provider: PaymentProvider) -> String? {
        switch provider {
        case .wechatV2: wechatContractPath
        case .alipay: alipayAgreementPath
        default: nil
        }
    }

    // MARK: Agreements

    /// Reserves an agreement and asks the provider what the payer opens to sign it.
    /// - Returns: the agreement, `pending`, with its `launch`.
    /// - Throws: 409 `unsupported` when the wallet's recurring API is not configured; 422 for a
    ///   period or limit the provider cannot take; 502 `agreement_failed` when the provider refused.
    func create(_ body: AgreementBody, caller: Identity, idempotencyKey: String?) async throws -> AgreementJSON {
        guard let method = PaymentMethod(rawValue: body.method) else {
            throw RequestProblem("method '\(body.method)' is not one of \(PaymentMethod.names)")
        }
        let provider = Self.provider(of: method)
        guard caller.merchant == nil else {
            throw APIError(
                status: 409, code: "unsupported",
                message: "agreements are made with the platform's own merchant account: use its secret key")
        }
        guard let adapter = ledger.adapters.recurring(provider) else {
            throw APIError(
                status: 409, code: "unsupported",
                message: "recurring payments through \(provider.rawValue) are not configured on this server"
                    + (provider == .wechatV2 ? " (WeChat Pay 委托代扣 uses API v2: configure wechat with its API v2 key)" : ""))
        }
        guard adapter.signingMethods.contains(method) else {
            throw RequestProblem.unprocessable(
                "\(method.rawValue) cannot sign an agreement; use one of "
                    + adapter.signingMethods.map(\.rawValue).sorted().joined(separator: ", "))
        }
        guard (1...32).contains(body.description.unicodeScalars.count), !Self.hasControlCharacters(body.description) else {
            throw RequestProblem("description must be 1 to 32 characters, none of them control characters")
        }
        if let plan = body.plan_id, plan.isEmpty || plan.utf8.count > 28 || !plan.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
            throw RequestProblem("plan_id must be WeChat Pay's template number: 1 to 28 digits")
        }
        let (unit, count) = try Self.period(body.period, field: "period")
        let currency = try Self.currency(body.currency, provider: provider)
        try RequestProblem.check(body.single_limit.value, in: 1...100_000_000, "single_limit", unit: " minor units")
        var firstCharge: Date? = nil
        if let day = body.first_charge_date {
            guard let date = Self.beijingDay(day) else {
                throw RequestProblem.unprocessable("first_charge_date must be a day of the calendar, yyyy-MM-dd")
            }
            firstCharge = date
        }
        if let url = body.return_url { _ = try ledger.configuration.checkout.checkedReturnURL(url, own: ledger.publicBase) }
        let planID = body.plan_id ?? ledger.configuration.wechat?.papayPlanID
        if provider == .wechatV2, planID == nil {
            throw RequestProblem.unprocessable("plan_id is required: WeChat Pay's 委托代扣 template id from the merchant platform")
        }
        let number =
            idempotencyKey.map { "A" + Hex.encode(DigestAlgorithm.sha256.hash("agreement\n" + $0)).prefix(31) }
            ?? "A" + RandomText.alphanumeric(count: 31)
        let wanted = NewAgreement(
            merchant: nil, provider: provider.rawValue, method: method.rawValue, externalNo: number, payer: nil,
            planID: provider == .wechatV2 ? planID : nil, description: body.description, periodUnit: unit, periodCount: count,
            singleLimit: Money(minorUnits: body.single_limit.value, currency: currency), firstChargeAt: firstCharge)
        let (agreement, reserved) = try await store.reserveAgreement(wanted, now: clock.now())
        guard
            agreement.method == wanted.method, agreement.description == wanted.description, agreement.singleLimit == wanted.singleLimit,
            agreement.periodUnit == unit, agreement.periodCount == count
        else {
            throw APIError(
                status: 409, code: "idempotency_conflict", message: "this Idempotency-Key made agreement \(agreement.id) with other terms")
        }
        if reserved { ledger.metrics.increment("cashier_agreements_total", ["status": "reserved"]) }
        guard agreement.status == .pending else { return AgreementJSON(agreement) }
        let launch: AgreementLaunch
        do {
            launch = try await adapter.signAgreement(
                agreement, notifyURL: ledger.publicBase + (Self.notifyPath(provider) ?? ""), returnURL: body.return_url)
        } catch let error as PaymentError where error.code == .invalidRequest {
            throw RequestProblem.unprocessable(error.message)
        } catch let error as PaymentError where error.code == .providerRejected {
            throw APIError(
                status: 502, code: "agreement_failed",
                message: "the provider refused agreement \(agreement.id): \(ProviderAnswer.words(error))")
        } catch {
            throw APIError(
                status: 503, code: "provider_unavailable",
                message:
                    "the provider did not answer; agreement \(agreement.id) stays pending. Retrying with the same Idempotency-Key is safe")
        }
        return AgreementJSON(agreement, launch: Self.json(launch))
    }

    /// Agreement `id` as the provider says it is now: a pending one is asked about first (the
    /// payer may have signed; the app's word is never taken).
    func view(_ id: String, caller: Identity) async throws -> AgreementJSON {
        var agreement = try await require(id, caller: caller)
        if agreement.status == .pending { agreement = try await refresh(agreement) }
        return AgreementJSON(agreement)
    }

    /// The agreements, newest first.
    func list(caller: Identity, limit: Int, offset: Int) async throws -> RecordPage<AgreementJSON> {
        let found = try await store.agreements(merchant: caller.merchant, limit: limit + 1, offset: offset)
        return RecordPage(fetched: found, limit: limit) { AgreementJSON($0) }
    }

    /// Ends agreement `id` at the provider and here: its subscriptions are canceled.
    func terminate(_ id: String, reason: String?, caller: Identity) async throws -> AgreementJSON {
        try Self.checkReason(reason)
        let agreement = try await require(id, caller: caller)
        guard !agreement.status.isFinal else { return AgreementJSON(agreement) }
        let remark = reason.map { String($0.prefix(64)) } ?? "terminated by the merchant"
        guard agreement.status == .active, let adapter = adapter(agreement) else {
            // Never signed: nothing at the provider to end.
            let progress = AgreementProgress(
                status: .failed, providerState: "CANCELED", reason: "canceled before the payer signed: \(remark)")
            return AgreementJSON(try await store.moveAgreement(agreement.id, to: progress, now: clock.now()).agreement)
        }
        let progress: AgreementProgress
        do {
            progress = try await adapter.terminateAgreement(agreement, remark: remark)
        } catch let error as PaymentError where error.code == .providerRejected {
            throw APIError(
                status: 502, code: "agreement_failed",
                message: "the provider refused to end agreement \(id): \(ProviderAnswer.words(error))")
        } catch {
            throw APIError(status: 503, code: "provider_unavailable", message: "the provider did not answer; agreement \(id) is unchanged")
        }
        return AgreementJSON(try await store.moveAgreement(agreement.id, to: progress, now: clock.now()).agreement)
    }

    /// Asks the provider where an agreement stands and records it: a pending one signed, an active
    /// one ended without a word (an expiry, a card removed). Unchanged when the provider does not answer.
    func refresh(_ agreement: StoredAgreement) async throws -> StoredAgreement {
        guard let adapter = adapter(agreement), let progress = try? await adapter.agreementProgress(agreement) else { return agreement }
        return try await store.moveAgreement(agreement.id, to: progress, now: clock.now()).agreement
    }

    /// A verified sign or unsign notification: the agreement it names, at the adapter's merchant, moved.
    func apply(_ report: AgreementReport) async -> NotificationOutcome {
        guard let adapter = ledger.adapters.recurring(report.provider), adapter.recurringMerchantID == report.merchantID else {
            return .refused
        }
        do {
            guard let agreement = try await store.agreement(provider: report.provider.rawValue, externalNo: report.externalNo) else {
                return .refused
            }
            _ = try await store.moveAgreement(agreement.id, to: report.progress, now: clock.now())
            return .acknowledged
        } catch {
            return .retry
        }
    }

    func require(_ id: String, caller: Identity) async throws -> StoredAgreement {
        guard let agreement = try await store.agreement(id: id), caller.merchant == nil || agreement.merchant == caller.merchant else {
            throw APIError(status: 404, code: "not_found", message: "no agreement \(id) for these credentials")
        }
        return agreement
    }

    func adapter(_ agreement: StoredAgreement) -> (any Recurring)? {
        PaymentProvider(rawValue: agreement.provider).flatMap { ledger.adapters.recurring($0) }
    }

    // MARK: Helpers

    static func period(_ period: AgreementBody.Period, field: String) throws -> (StoredAgreement.PeriodUnit, Int) {
        guard let unit = StoredAgreement.PeriodUnit(rawValue: period.unit) else {
            throw RequestProblem("\(field).unit must be day, week, month or year")
        }
        try RequestProblem.check(period.count, in: 1...366, "\(field).count")
        return (unit, period.count)
    }

    /// A reason (WeChat's `contract_termination_remark`): at most 64 characters, no control characters.
    static func checkReason(_ reason: String?) throws {
        guard let reason else { return }
        guard reason.unicodeScalars.count <= 64, !hasControlCharacters(reason) else {
            throw RequestProblem("reason must be at most 64 characters, none of them control characters")
        }
    }

    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    static func currency(_ code: String?, provider: PaymentProvider) throws -> Currency {
        guard let currency = try? Currency(code: code ?? "CNY") else {
            throw RequestProblem.unprocessable("currency '\(code ?? "")' is not an ISO 4217 currency Cashier knows")
        }
        if provider != .applePay, currency != .cny {
            throw RequestProblem.unprocessable("\(provider.rawValue) charges under an agreement in CNY only")
        }
        return currency
    }

    /// Midnight of `yyyy-MM-dd` in Beijing time.
    static func beijingDay(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Shanghai")
        formatter.dateFormat = "yyyy-MM-dd"
        guard text.utf8.count == 10 else { return nil }
        return formatter.date(from: text)
    }

    static func json(_ launch: AgreementLaunch) -> AgreementLaunchJSON {
        switch launch {
        case .url(let url): AgreementLaunchJSON(kind: "url", url: url)
        case .wechatPreEntrust(let id): AgreementLaunchJSON(kind: "wechat_pre_entrust", pre_entrustweb_id: id)
        case .alipaySignString(let string): AgreementLaunchJSON(kind: "alipay_sign_string", sign_string: string)
        case .applePayRequest(let request): AgreementLaunchJSON(kind: "applepay", payment_request: request)
        }
    }
}
