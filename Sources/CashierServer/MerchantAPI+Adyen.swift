import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// `POST /notify/adyen`: Adyen's standard webhooks, when its HMAC key is configured
/// (`applepay.adyen.hmac_key_env` or `_file`). Every item's signature is checked before any is
/// read; a refund's outcome is then recorded once — confirmed, or failed and its amount given back
/// to the order — and Adyen hears `[accepted]` only after that is on disk.
extension MerchantAPI {
    /// Who asked for the records Adyen's webhooks make of money gone back without a request from
    /// Cashier (a failed capture, a chargeback): they are done at Adyen, and never sent to it.
    static let adyenActor = "adyen"

    func adyenWebhook(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let key = configuration.applePay?.adyenHMACKey else {
            return .error(
                status: 404, code: "not_found",
                message: "Adyen webhooks are not configured on this server (applepay.adyen.hmac_key_env or hmac_key_file)")
        }
        let items: [ApplePay.AdyenNotification]
        do {
            items = try ApplePay.AdyenNotification.items(in: Data(request.body), hmacKey: key)
        } catch {
            metrics.increment("cashier_notifications_total", ["provider": "adyen", "outcome": NotificationOutcome.unverified.rawValue])
            return .text("[refused] \((error as? PaymentError)?.message ?? "not an Adyen webhook")", status: 401)
        }
        let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(request.body))
        for item in items {
            do {
                try await apply(item, bodyHash: bodyHash)
            } catch {
                // Nothing is lost: Adyen sends the whole webhook again, and what was recorded stays recorded once.
                metrics.increment("cashier_notifications_total", ["provider": "adyen", "outcome": NotificationOutcome.retry.rawValue])
                return .text("[retry] the outcome could not be recorded", status: 500)
            }
        }
        metrics.increment("cashier_notifications_total", ["provider": "adyen", "outcome": NotificationOutcome.acknowledged.rawValue])
        return .text("[accepted]")
    }

    /// The refund a modification's reference names (`cashier_{out_refund_no}_refund`, as
    /// ``ApplePayAdapter`` sends it, or `_void` for a void's record), when it is one of this
    /// server's for the payment Adyen names.
    private func refund(for item: ApplePay.AdyenNotification, _ operation: String = "refund") async throws -> (
        StoredRefund, StoredPayment
    )? {
        guard let number = Self.recordNumber(inProcessorKey: item.merchantReference, operation),
            let refund = try await store.refund(outRefundNo: number), let payment = try await store.payment(id: refund.paymentID),
            payment.method == .applePay, item.originalReference == nil || item.originalReference == payment.transactionID
        else { return nil }
        return (refund, payment)
    }

    /// One verified item: a refund's outcome, a capture's success, failure or recapture, the
    /// decision on a payment Adyen answered `Received`, recorded (and logged on its order);
    /// anything else (reports, an authorisation already recorded from Adyen's answer) is
    /// acknowledged without a change.
    private func apply(_ item: ApplePay.AdyenNotification, bodyHash: String) async throws {
        switch item.eventCode {
        case "REFUND", "REFUND_FAILED", "REFUNDED_REVERSED": try await applyRefundOutcome(item, bodyHash: bodyHash)
        case "AUTHORISATION":
            // Adyen's word on a payment it answered Received (for one already recorded, nothing moves).
            guard let payment = try await store.payment(wallet: .applePay, outTradeNo: item.merchantReference),
                let value = item.value, let currency = try? Currency(code: item.currency ?? "")
            else { return }
            try await applyProcessorDecision(
                payment, reference: item.pspReference, amount: Money(minorUnits: value, currency: currency), authorized: item.success,
                status: item.success ? "Authorised" : "Refused", by: Self.adyenActor, fields: Self.fields(of: item), bodyHash: bodyHash)
        case "CAPTURE_FAILED": try await applyCaptureFailure(item, bodyHash: bodyHash)
        case "CAPTURE" where !item.success: try await applyCaptureFailure(item, bodyHash: bodyHash)
        case "CAPTURE" where item.reason?.range(of: "recaptured", options: .caseInsensitive) != nil:
            try await applyRecapture(item, bodyHash: bodyHash)
        case "CAPTURE": try await applyCaptureSuccess(item, bodyHash: bodyHash)
        case let event where Self.disputeEvents.contains(event): try await applyDispute(item, bodyHash: bodyHash)
        case "EXPIRE":
            // What was held and not captured expired (see MerchantAPI+Lapses.swift).
            guard let payment = try await store.payment(wallet: .applePay, outTradeNo: item.merchantReference),
                item.originalReference == nil || item.originalReference == payment.transactionID
            else { return }
            try await applyLapse(
                payment, by: Self.adyenActor, reason: "authorisation lapsed", reference: item.pspReference, fields: Self.fields(of: item),
                bodyHash: bodyHash)
        case "CANCELLATION" where item.success && Self.recordNumber(inProcessorKey: item.merchantReference, "void") == nil:
            try await applyCustomerAreaCancel(item, bodyHash: bodyHash)
        case "CANCELLATION" where !item.success:
            // Logged on the order, not applied: Cashier voids only what it holds uncaptured (under the
            // payment's lock), so Adyen refuses a void when the authorisation lapsed already — the
            // money is back either way — or when someone captured it outside Cashier.
            guard let (void, payment) = try await refund(for: item, "void") else { return }
            var fields = Self.fields(of: item)
            fields["out_refund_no"] = void.outRefundNo
            fields["applied"] = "no: a void Adyen refused leaves nothing to take, or was overtaken outside Cashier"
            try await store.append(
                EventRecord(kind: .refundNotification, detail: Self.detail(fields), bodySHA256: bodyHash), to: payment.orderID,
                now: clock.now())
        default: return
        }
    }

    private func applyRefundOutcome(_ item: ApplePay.AdyenNotification, bodyHash: String) async throws {
        guard let (refund, payment) = try await refund(for: item) else {
            // Not one of Cashier's keys: a refund made in Adyen's Customer Area.
            guard Self.recordNumber(inProcessorKey: item.merchantReference, "refund") == nil else { return }
            return try await applyCustomerAreaRefund(item, bodyHash: bodyHash)
        }
        var fields = Self.fields(of: item)
        fields["out_refund_no"] = refund.outRefundNo
        guard try await sameAmount(item, refund.amount, "the refund's", fields: fields, order: payment.orderID, bodyHash: bodyHash) else {
            return
        }
        try await store.append(
            EventRecord(kind: .refundNotification, detail: Self.detail(fields), bodySHA256: bodyHash), to: payment.orderID, now: clock.now()
        )
        if item.eventCode == "REFUND" && item.success {
            try await finish(refund, .succeeded(providerRefundID: item.pspReference))
        } else {
            let words = item.reason.flatMap { $0.isEmpty ? nil : $0 } ?? (item.eventCode == "REFUND" ? "refused" : "reported")
            try await finish(refund, .failed("Adyen \(item.eventCode): \(words)"))
        }
    }

    /// What an order's log keeps of an Adyen item.
    static func fields(of item: ApplePay.AdyenNotification) -> [String: String] {
        var fields = ["event_code": item.eventCode, "success": item.success ? "true" : "false", "psp_reference": item.pspReference]
        if let reason = item.reason, !reason.isEmpty { fields["reason"] = reason }
        if let value = item.value, let currency = item.currency { fields["amount"] = "\(value) \(currency)" }
        return fields
    }

    /// Whether the item is about `amount` (or names none). Adyen's word on another amount is
    /// logged on the order as refused, and not applied.
    func sameAmount(
        _ item: ApplePay.AdyenNotification, _ amount: Money, _ whose: String, fields: [String: String], order: String, bodyHash: String
    ) async throws -> Bool {
        let sameValue = item.value == nil || item.value == amount.minorUnits
        let sameCurrency = item.currency == nil || item.currency == amount.currency.code
        if sameValue && sameCurrency { return true }
        var fields = fields
        fields["refused"] = "the webhook's amount is not \(whose) \(amount.decimalString) \(amount.currency.code)"
        try await store.append(
            EventRecord(kind: .notificationRefused, detail: Self.detail(fields), bodySHA256: bodyHash), to: order, now: clock.now())
        return false
    }
}
