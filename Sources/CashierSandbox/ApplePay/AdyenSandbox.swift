import ApplePay
public import Cashier
import CashierCrypto
import CashierHTTP
import Foundation
import Synchronization

/// Adyen's Checkout API under `/adyen/{version}/…`, for Apple Pay: `POST /payments` with an
/// `applepay` payment method (automatic capture, or manual with `additionalData.manualCapture`),
/// and `/payments/{pspReference}/captures`, `/cancels` and `/refunds` answering `received` (a
/// modification the payment's state refuses too: its webhook says `success` `"false"`) —
/// enough for Adyen's Python SDK with its service's `baseUrl` pointed here, and for
/// ``ApplePay/AdyenProcessor``. Any non-empty `X-API-Key` is accepted. Cards and amounts decide
/// as ``ApplePay/SandboxProcessor`` documents; an amount ending in 99 answers 500, and one ending
/// in 56 answers `Received`: authorised or refused when `POST /sandbox/adyen/decide` says, by an
/// `AUTHORISATION` webhook.
///
/// Like Adyen, it sends standard webhooks signed with an HMAC key once a merchant sets them up
/// (``sendWebhooks(to:hmacKey:)``, or `POST /sandbox/adyen/webhook` — Adyen's Customer Area does
/// the same): an item for every modification it accepts (`REFUND`, `CAPTURE`, `CANCELLATION`,
/// `CANCEL_OR_REFUND`), a refund's with `success` `"false"` when the refund outcome
/// (`POST /sandbox/refund_outcome`) says it fails later, in which case no money moves.
///
/// Captures can fail at the card scheme after Adyen accepted them (``setCapturesFailLater(_:)``,
/// or `POST /sandbox/adyen/capture_outcome {"outcome":"fail_later"}`): each capture — a manual
/// one, or the automatic capture of a payment — is followed by `CAPTURE_FAILED` and takes nothing,
/// until Adyen captures it again by itself (``recapture(_:)``, or `POST /sandbox/adyen/recapture
/// {"psp_reference":"PSP…"}`), which sends `CAPTURE` with `reason` "Transaction Recaptured".
/// Those two are filed for replays under `CAPTURE_FAILED {reference}` and `RECAPTURE {reference}`
/// (the capture's reference: `cashier_…_capture`, or the payment's for an automatic capture).
/// An uncaptured authorisation expires on request (``expire(_:account:)``, or
/// `POST /sandbox/adyen/expire {"psp_reference":"PSP…"}`): `EXPIRE`, and `Expired` in the report.
/// What a merchant does in the Customer Area instead: ``customerArea(_:psp:amount:failLater:account:)``.
public final class AdyenSandbox: Sendable {
    public let core: ProcessorSandbox
    private let delivery: NotificationDelivery
    private let webhook = Mutex<(url: String, hmacKey: String)?>(nil)
    private let refundOutcome = Mutex<SandboxRefundOutcome>(.succeed)
    private let capturesFailLater = Mutex(false)
    /// A failed capture's item by its payment's PSP reference: what a recapture reports again.
    private let failedCaptures = Mutex<[String: ApplePay.AdyenNotification]>([:])
    /// Payments answered `Received` (amounts ending in 56), until ``decide(_:succeeded:)``.
    private let undecided = Mutex<[String: (ApplePay.ProcessorAuthorization, String)]>([:])
    /// Payments whose authorisation expired uncaptured (reported `Expired`, not `Cancelled`).
    private let expired = Mutex<Set<String>>([])
    /// The cards stored for shoppers (`storePaymentMethod`), charged with `ContAuth` (AdyenSandbox+Recurring.swift).
    let stored = StoredPaymentMethods()
    /// Each disputed payment's dispute reference (`pspReference` of every event of its dispute) and when it opened.
    private let disputes = Mutex<[String: (reference: String, opened: Date)]>([:])

    /// When payment `psp`'s dispute opened (now, for one that has not).
    private func disputeOpened(_ psp: String) -> Date { disputes.withLock { $0[psp]?.opened } ?? Date() }

    /// Adyen's retries of an unacknowledged webhook: 2, 5, 10, 15, 30 minutes, then 1, 2, 4, 8 hours.
    public static let webhookSchedule: [Duration] = [120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800].map { .seconds($0) }

    init(ca: ApplePayTestCA, delivery: NotificationDelivery) {
        core = ProcessorSandbox(naming: .init(payment: "PSP", operation: "MOD"), ca: ca)
        self.delivery = delivery
    }

    /// Sends standard webhooks to `url`, each item signed with `hmacKey` (hex), from now on.
    public func sendWebhooks(to url: String, hmacKey: String) throws {
        try ApplePay.AdyenNotification.checkKey(hmacKey)
        webhook.withLock { $0 = (url, hmacKey) }
    }

    /// What refunds do from now on (shared with the other sandboxes' `POST /sandbox/refund_outcome`).
    public func setRefundOutcome(_ outcome: SandboxRefundOutcome) {
        refundOutcome.withLock { $0 = outcome }
    }

    /// Whether captures from now on fail at the card scheme after Adyen accepted them.
    public func setCapturesFailLater(_ fail: Bool) {
        capturesFailLater.withLock { $0 = fail }
    }

    /// Adyen captures a failed capture of the payment `psp` again by itself, and says so by webhook.
    /// - Returns: whether there was a failed capture to take again.
    @discardableResult
    public func recapture(_ psp: String) -> Bool {
        guard var item = failedCaptures.withLock({ $0.removeValue(forKey: psp) }), core.processor.recapture(psp) != nil else {
            return false
        }
        item.eventCode = "CAPTURE"
        item.reason = "Transaction Recaptured"
        announce(item, filedUnder: "RECAPTURE " + item.merchantReference)
        return true
    }

    /// The events of a dispute Adyen sends for a payment: `NOTIFICATION_OF_CHARGEBACK` (nothing
    /// moves yet), `CHARGEBACK` and `SECOND_CHARGEBACK` (`amount`, by default all that is left, taken
    /// back from the merchant), `CHARGEBACK_REVERSED` (`amount`, by default all charged back,
    /// given back). Filed for replays under `{event} {merchant reference}`.
    /// - Returns: why it cannot happen, or `nil` when it was sent.
    public func dispute(_ psp: String, event: String, amount: Money? = nil, account: String = "CashierSandbox") -> String? {
        guard let entry = core.processor.entry(psp) else { return "no payment \(psp)" }
        let value: Money
        switch event {
        case "NOTIFICATION_OF_CHARGEBACK": value = amount ?? entry.left
        case "CHARGEBACK", "SECOND_CHARGEBACK":
            value = amount ?? entry.left
            guard value.isPositive, core.processor.chargeBack(psp, amount: value) else {
                return "payment \(psp) has less than \(value) captured and not refunded"
            }
        case "CHARGEBACK_REVERSED":
            value = amount ?? entry.chargedBack
            guard value.isPositive, core.processor.chargeBack(psp, amount: Money(minorUnits: -value.minorUnits, currency: value.currency))
            else { return "payment \(psp) has less than \(value) charged back" }
        default: return "the sandbox sends NOTIFICATION_OF_CHARGEBACK, CHARGEBACK, CHARGEBACK_REVERSED and SECOND_CHARGEBACK"
        }
        let reference = disputes.withLock { disputes in
            if let known = disputes[psp] { return known.reference }
            let made = "DSP" + SecureRandom.alphanumeric(count: 13)
            disputes[psp] = (made, Date())
            return made
        }
        var item = ApplePay.AdyenNotification(
            eventCode: event, success: true, pspReference: reference, originalReference: psp, merchantAccountCode: account,
            merchantReference: entry.merchantReference, value: value.minorUnits, currency: value.currency.code,
            reason: "Fraud: card absent environment")
        // The merchant has some three weeks to defend a chargeback; the sandbox says twenty days from its opening.
        item.defensePeriodEndsAt = disputeOpened(psp).addingTimeInterval(20 * 86_400)
        announce(item, filedUnder: event + " " + entry.merchantReference)
        return nil
    }

    /// Adyen decides a payment it answered `Received` (an amount ending in 56): `succeeded`
    /// authorises it (a card the sandbox declines still fails), and `AUTHORISATION` says whether it
    /// was, filed under `AUTHORISATION {merchant reference}`.
    /// - Returns: why it cannot happen, or `nil` when it was decided.
    public func decide(_ psp: String, succeeded: Bool) async -> String? {
        guard let (authorization, account) = undecided.withLock({ $0.removeValue(forKey: psp) }) else {
            return "payment \(psp) is not waiting for a decision (only one made for an amount ending in 56 is)"
        }
        var refusal: String? = "Refused"
        if succeeded, case .authorized? = try? await core.processor.authorize(authorization, as: psp) {
            refusal = nil
            if authorization.capture {
                failIfCapturesFail(
                    psp, capture: "MOD" + SecureRandom.alphanumeric(count: 13), reference: authorization.reference, account: account)
            }
        }
        announce(
            ApplePay.AdyenNotification(
                eventCode: "AUTHORISATION", success: refusal == nil, pspReference: psp, merchantAccountCode: account,
                merchantReference: authorization.reference, value: authorization.amount.minorUnits,
                currency: authorization.amount.currency.code, reason: refusal ?? ""),
            filedUnder: "AUTHORISATION " + authorization.reference)
        return nil
    }

    /// What an uncaptured authorisation of `psp` held expires (after about seven days for cards):
    /// nothing is held any more, and `EXPIRE` says so, filed under `EXPIRE {merchant reference}`.
    /// - Returns: why it cannot happen, or `nil` when it was sent.
    public func expire(_ psp: String, account: String = "CashierSandbox") async -> String? {
        guard let entry = core.processor.entry(psp) else { return "no payment \(psp)" }
        guard entry.status == .authorized, case .succeeded? = try? await core.processor.void(psp, idempotencyKey: UUID().uuidString)
        else { return "payment \(psp) holds nothing uncaptured (it is \(entry.status.rawValue))" }
        expired.withLock { _ = $0.insert(psp) }
        announce(
            ApplePay.AdyenNotification(
                eventCode: "EXPIRE", success: true, pspReference: "MOD" + SecureRandom.alphanumeric(count: 13), originalReference: psp,
                merchantAccountCode: account, merchantReference: entry.merchantReference, value: entry.amount.minorUnits,
                currency: entry.amount.currency.code),
            filedUnder: "EXPIRE " + entry.merchantReference)
        return nil
    }

    /// A capture of `psp` (for `value`, filed under `reference`) that the card scheme rejects, when
    /// captures fail: the ledger takes nothing and `CAPTURE_FAILED` follows.
    private func failIfCapturesFail(_ psp: String, capture: String, reference: String, account: String) {
        guard capturesFailLater.withLock({ $0 }), let tried = core.processor.failCapture(psp) else { return }
        let item = ApplePay.AdyenNotification(
            eventCode: "CAPTURE_FAILED", success: true, pspReference: capture, originalReference: psp, merchantAccountCode: account,
            merchantReference: reference, value: tried.minorUnits, currency: tried.currency.code,
            reason: "Capture rejected by card scheme because of a technical issue.")
        failedCaptures.withLock { $0[psp] = item }
        announce(item, filedUnder: "CAPTURE_FAILED " + reference)
    }

    /// Posts one item as Adyen would, when webhooks are set up; filed (for replays) under `name`, by
    /// default the modification's reference.
    func announce(_ item: ApplePay.AdyenNotification, filedUnder name: String? = nil) {
        guard let (url, key) = webhook.withLock({ $0 }), let signed = try? item.jsonObject(hmacKey: key),
            let body = try? JSONSerialization.data(withJSONObject: ["live": "false", "notificationItems": [signed]])
        else { return }
        delivery.deliver(
            key: name ?? item.merchantReference, url: url, body: body, contentType: "application/json", schedule: Self.webhookSchedule
        ) { response in
            response.status == 200 && String(decoding: response.body, as: UTF8.self).contains("[accepted]")
        }
    }

    func register(on router: inout Router, prefix: String) {
        router.add("POST", prefix + "/{version}/payments") { request, _ in
            await self.idempotent(request) { await self.payment(request) }
        }
        router.add("GET", prefix + "/reports/download/MerchantAccount/{account}/{file}") { request, parameters in
            guard !(request.headers["X-API-Key"] ?? "").isEmpty else {
                return Self.error(401, "000", "HTTP Status Response - Unauthorized", type: "security")
            }
            return self.report(account: parameters["account"], file: parameters["file"])
        }
        router.add("POST", prefix + "/{version}/paymentMethods") { request, _ in
            guard !(request.headers["X-API-Key"] ?? "").isEmpty else {
                return Self.error(401, "000", "HTTP Status Response - Unauthorized", type: "security")
            }
            return .json(object: [
                "paymentMethods": [
                    [
                        "name": "Apple Pay", "type": "applepay", "brands": ["visa", "mc", "amex", "cup"],
                        "configuration": ["merchantId": "000000000000000", "merchantName": "Cashier Sandbox"],
                    ]
                ]
            ])
        }
        router.add("POST", "/sandbox/adyen/webhook") { request, _ in
            guard let object = SandboxControl.object(request),
                let url = object["url"] as? String, let key = object["hmac_key"] as? String,
                (try? self.sendWebhooks(to: url, hmacKey: key)) != nil
            else {
                return SandboxControl.invalid(#"expected {"url":"http://…/notify/adyen","hmac_key":"<hex>"}"#)
            }
            return .json(["url": url])
        }
        router.add("POST", "/sandbox/adyen/capture_outcome") { request, _ in
            guard let object = SandboxControl.object(request),
                let outcome = object["outcome"] as? String, ["succeed", "fail_later"].contains(outcome)
            else { return SandboxControl.invalid(#"expected {"outcome":"succeed"|"fail_later"}"#) }
            self.setCapturesFailLater(outcome == "fail_later")
            return .json(["outcome": outcome])
        }
        router.add("POST", "/sandbox/adyen/dispute") { request, _ in
            guard let object = SandboxControl.object(request),
                let psp = object["psp_reference"] as? String, let event = object["event"] as? String
            else {
                return SandboxControl.invalid(
                    #"expected {"psp_reference":"PSP…","event":"CHARGEBACK"|"CHARGEBACK_REVERSED"|…,"amount":"5.00"}"#)
            }
            guard let amount = self.requestedAmount(in: object, of: psp) else { return Self.invalidAmount }
            if let refusal = self.dispute(psp, event: event, amount: amount) {
                return .error(status: 422, code: "invalid_request", message: refusal)
            }
            return .json(["psp_reference": psp, "event": event])
        }
        router.add(
            "POST", "/sandbox/adyen/decide",
            ProcessorSandbox.decideHandler(field: "psp_reference", example: "PSP…", decide: { await self.decide($0, succeeded: $1) }) {
                .json(["psp_reference": $0, "event": "AUTHORISATION"])
            })
        router.add("POST", "/sandbox/adyen/expire") { request, _ in
            guard let object = SandboxControl.object(request),
                let psp = object["psp_reference"] as? String
            else { return SandboxControl.invalid(#"expected {"psp_reference":"PSP…"}"#) }
            if let refusal = await self.expire(psp) { return .error(status: 422, code: "invalid_request", message: refusal) }
            return .json(["psp_reference": psp, "event": "EXPIRE"])
        }
        router.add("POST", "/sandbox/adyen/recapture") { request, _ in
            guard let object = SandboxControl.object(request),
                let psp = object["psp_reference"] as? String
            else { return SandboxControl.invalid(#"expected {"psp_reference":"PSP…"}"#) }
            guard self.recapture(psp) else {
                return .error(status: 404, code: "not_found", message: "payment \(psp) has no failed capture to take again")
            }
            return .json(["psp_reference": psp])
        }
        registerCustomerArea(on: &router)
        registerRecurring(on: &router, prefix: prefix)
        for (kind, name) in [("captures", "capture"), ("cancels", "cancel"), ("refunds", "refund"), ("reversals", "reversal")] {
            router.add("POST", prefix + "/{version}/payments/{psp}/\(kind)") { request, parameters in
                await self.idempotent(request) { await self.modify(parameters["psp"], name, request) }
            }
        }
    }

    /// A sandbox request's `"amount"` (a decimal) in payment `psp`'s currency: `.some(nil)` when it
    /// names none, `nil` when it is not one (answer ``invalidAmount``).
    func requestedAmount(in object: [String: Any], of psp: String) -> Money?? {
        guard let text = object["amount"] as? String else { return .some(nil) }
        guard let currency = core.processor.entry(psp)?.amount.currency, let amount = try? Money(decimal: text, currency: currency)
        else { return nil }
        return amount
    }

    static let invalidAmount = HTTPServerResponse.error(
        status: 400, code: "invalid_amount", message: "amount must be a decimal in the payment's currency")

    private func idempotent(_ request: HTTPServerRequest, _ act: () async -> HTTPServerResponse) async -> HTTPServerResponse {
        guard !(request.headers["X-API-Key"] ?? "").isEmpty else {
            return Self.error(401, "000", "HTTP Status Response - Unauthorized", type: "security")
        }
        return await core.once(
            request.headers["Idempotency-Key"], request,
            conflict: Self.error(409, "704", "request already processed or in progress", type: "validation"),
            mismatch: Self.error(422, "702", "Idempotency key reused with another request body", type: "validation"), act)
    }

    private func payment(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let body = SandboxControl.object(request) else {
            return Self.error(400, "702", "Structure of PaymentRequest contains the following unknown fields or is not JSON")
        }
        guard let account = body["merchantAccount"] as? String, !account.isEmpty else {
            return Self.error(422, "901", "Invalid Merchant Account")
        }
        guard let reference = body["reference"] as? String, !reference.isEmpty else {
            return Self.error(422, "130", "Required field 'reference' is not provided.")
        }
        guard let amount = Self.money(body["amount"]) else { return Self.error(422, "100", "Required field 'amount' is not provided.") }
        let token: ApplePay.PaymentToken
        let payment: ApplePay.DecryptedPayment
        if let refusal = storingRefusal(body) { return refusal }
        if let storedID = (body["paymentMethod"] as? [String: Any])?["storedPaymentMethodId"] as? String {
            switch storedCard(storedID, body, amount: amount) {
            case .refused(let refusal): return refusal
            case .card(let storedToken, let storedPayment): (token, payment) = (storedToken, storedPayment)
            }
        } else {
            guard let method = body["paymentMethod"] as? [String: Any], method["type"] as? String == "applepay",
                let encoded = method["applePayToken"] as? String, let paymentData = try? Base64.decodeBytes(encoded)
            else {
                return Self.error(422, "905_1", "The sandbox takes paymentMethod {\"type\":\"applepay\",\"applePayToken\":<base64>}")
            }
            do {
                (token, payment) = try core.decrypt(Data(paymentData))
            } catch {
                return Self.error(422, "5_002", "Invalid Apple Pay token: \((error as? PaymentError)?.message ?? "\(error)")")
            }
        }
        let additional = body["additionalData"] as? [String: Any]
        let capture = "\(additional?["manualCapture"] ?? "false")" != "true"
        let authorization = ApplePay.ProcessorAuthorization(
            amount: amount, reference: reference, idempotencyKey: request.headers["Idempotency-Key"] ?? UUID().uuidString,
            capture: capture, token: token, decrypted: payment)
        if abs(amount.minorUnits % 100) == 56 {
            // Received: decided later (`decide(_:succeeded:)`), and AUTHORISATION says how.
            let psp = "PSP" + SecureRandom.alphanumeric(count: 13)
            undecided.withLock { $0[psp] = (authorization, account) }
            return .json(object: [
                "merchantReference": reference, "amount": ["currency": amount.currency.code, "value": amount.minorUnits],
                "resultCode": "Received", "pspReference": psp,
            ])
        }
        let decision: ApplePay.ProcessorDecision
        do {
            decision = try await core.processor.authorize(authorization)
        } catch let error as PaymentError where error.code == .transport {
            return Self.error(500, "905", "Internal error (the sandbox's amount ending in 99)", type: "internal")
        } catch {
            return Self.error(422, "137", (error as? PaymentError)?.message ?? "\(error)")
        }
        var answer: [String: Any] = [
            "merchantReference": reference, "amount": ["currency": amount.currency.code, "value": amount.minorUnits],
        ]
        switch decision {
        case .authorized(let psp):
            answer["resultCode"] = "Authorised"
            answer["pspReference"] = psp
            if capture {
                failIfCapturesFail(psp, capture: "MOD" + SecureRandom.alphanumeric(count: 13), reference: reference, account: account)
            }
            answer["additionalData"] = [
                "paymentMethod": "applepay", "cardSummary": String(payment.applicationPrimaryAccountNumber.suffix(4)),
            ].merging(storeIfAsked(body, token: token, payment: payment)) { $1 }
        case .pending(let psp):  // the sandbox's processor decides at once; Adyen's word for "not yet" is Received
            answer["resultCode"] = "Received"
            answer["pspReference"] = psp
        case .declined(let reason, _):
            let refusal: (String, String) =
                switch reason {
                case .insufficientFunds: ("12", "Not enough balance")
                case .expiredCard: ("6", "Expired Card")
                case .invalidBillingAddress: ("2", "AVS Declined")
                case .pinRequired: ("2", "Pin validation not possible")
                case .authenticationRequired: ("38", "Authentication required")
                default: ("2", "Refused")
                }
            answer["resultCode"] = "Refused"
            answer["pspReference"] = "PSP" + SecureRandom.alphanumeric(count: 13)
            answer["refusalReasonCode"] = refusal.0
            answer["refusalReason"] = refusal.1
        }
        return .json(object: answer)
    }

    private func modify(_ psp: String, _ kind: String, _ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let body = SandboxControl.object(request),
            let account = body["merchantAccount"] as? String, !account.isEmpty
        else { return Self.error(422, "901", "Invalid Merchant Account") }
        guard let entry = core.processor.entry(psp) else {
            return Self.error(422, "167", "Original pspReference required for this operation")
        }
        let amount = Self.money(body["amount"])
        if kind == "capture" || kind == "refund", amount == nil { return Self.error(422, "137", "Invalid amount specified") }
        let key = UUID().uuidString
        let result: ApplePay.ProcessorOperation?
        let outcome = kind == "refund" ? refundOutcome.withLock { $0 } : .succeed
        switch kind {
        case "capture": result = try? await core.processor.capture(psp, amount: amount!, idempotencyKey: key)
        case "refund" where outcome == .refuse: result = .refused("Insufficient balance on merchant account")
        case "refund" where outcome != .succeed:
            // Received, then refused by the webhook: no money moves.
            result = .succeeded(reference: "MOD" + SecureRandom.alphanumeric(count: 13))
        case "refund": result = try? await core.processor.refund(psp, amount: amount!, idempotencyKey: key)
        case "reversal":
            // Cancel when not captured, refund all that is left when it is.
            let left = Money(minorUnits: entry.captured.minorUnits - entry.refunded.minorUnits, currency: entry.amount.currency)
            result =
                entry.status == .authorized
                ? try? await core.processor.void(psp, idempotencyKey: key)
                : try? await core.processor.refund(psp, amount: left, idempotencyKey: key)
        default: result = try? await core.processor.void(psp, idempotencyKey: key)
        }
        let reference: String
        var refusal: String?
        switch result {
        case .succeeded(let id)?: reference = id
        case .refused(let text)? where outcome != .refuse:
            // Adyen checks a modification against the payment after answering it (a capture of a
            // voided payment, a cancel of a captured one, a refund beyond what was captured):
            // received, then refused by webhook, and no money moves.
            reference = "MOD" + SecureRandom.alphanumeric(count: 13)
            refusal = text
        default:
            let reason: String = if case .refused(let text) = result { text } else { "the \(kind) failed" }
            return Self.error(422, "167", reason)
        }
        var answer: [String: Any] = [
            "merchantAccount": account, "paymentPspReference": entry.reference, "pspReference": reference, "status": "received",
        ]
        if let reference = body["reference"] { answer["reference"] = reference }
        if let amount { answer["amount"] = ["currency": amount.currency.code, "value": amount.minorUnits] }
        // Each modification's outcome follows by webhook, as Adyen sends it.
        let event = ["refund": "REFUND", "capture": "CAPTURE", "cancel": "CANCELLATION", "reversal": "CANCEL_OR_REFUND"][kind] ?? kind
        let failedLater = kind == "refund" && outcome != .succeed
        let value = amount ?? entry.amount
        announce(
            ApplePay.AdyenNotification(
                eventCode: event, success: !failedLater && refusal == nil, pspReference: reference, originalReference: entry.reference,
                merchantAccountCode: account, merchantReference: body["reference"] as? String ?? "", value: value.minorUnits,
                currency: value.currency.code, reason: refusal ?? (failedLater ? "Refund failed: the card account is closed" : "")))
        if kind == "capture", refusal == nil {
            failIfCapturesFail(psp, capture: reference, reference: body["reference"] as? String ?? "", account: account)
        }
        return .json(object: answer, status: 201)
    }

    /// `payments_accounting_report_YYYY_MM_DD.csv`: every payment booked that UTC day, one line per
    /// status it reached (Authorised, SentForSettle, Cancelled, SentForRefund), in Adyen's columns.
    private func report(account: String, file: String) -> HTTPServerResponse {
        let prefix = "payments_accounting_report_"
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = file.dropFirst(prefix.count).dropLast(4).split(separator: "_").compactMap { Int($0) }
        guard file.hasPrefix(prefix), file.hasSuffix(".csv"), parts.count == 3,
            let day = calendar.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2]))
        else { return HTTPServerResponse(status: 404) }
        let booking = DateFormatter()
        booking.locale = Locale(identifier: "en_US_POSIX")
        booking.timeZone = calendar.timeZone
        booking.dateFormat = "yyyy-MM-dd HH:mm:ss"
        var lines = [ApplePay.AccountingReport.columns.joined(separator: ",")]
        for entry in core.processor.entries where calendar.isDate(entry.createdAt, inSameDayAs: day) {
            let currency = entry.amount.currency.code
            func line(_ type: String, authorised: String = "", captured: String = "") -> String {
                [
                    "CashierSandbox", account, entry.reference, entry.merchantReference, "applepay", booking.string(from: entry.createdAt),
                    "UTC",
                    currency, entry.amount.decimalString, type, currency, entry.amount.decimalString, authorised, captured,
                ].joined(separator: ",")
            }
            lines.append(line("Received"))
            lines.append(line("Authorised", authorised: entry.amount.decimalString))
            switch entry.status {
            case .captured: lines.append(line("SentForSettle", captured: entry.captured.decimalString))
            case .captureFailed:
                lines.append(line("SentForSettle", captured: entry.captured.decimalString))
                lines.append(line("CaptureFailed", captured: entry.captured.decimalString))
            case .voided: lines.append(line(expired.withLock { $0.contains(entry.reference) } ? "Expired" : "Cancelled"))
            case .authorized: break
            }
            if entry.refunded.isPositive { lines.append(line("SentForRefund", captured: "-" + entry.refunded.decimalString)) }
            if entry.chargedBack.isPositive { lines.append(line("Chargeback", captured: "-" + entry.chargedBack.decimalString)) }
        }
        return .text(lines.joined(separator: "\n") + "\n", contentType: "text/csv")
    }

    static func money(_ value: Any?) -> Money? {
        guard let object = value as? [String: Any], let code = object["currency"] as? String,
            let currency = try? Currency(code: code), let minor = (object["value"] as? NSNumber)?.int64Value, minor > 0
        else { return nil }
        return Money(minorUnits: minor, currency: currency)
    }

    /// Adyen's error shape: `{"status", "errorCode", "message", "errorType"}`.
    static func error(_ status: Int, _ code: String, _ message: String, type: String = "validation") -> HTTPServerResponse {
        .json(object: ["status": status, "errorCode": code, "message": message, "errorType": type], status: status)
    }
}
