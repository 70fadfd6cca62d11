import ApplePay
import Cashier
import Foundation

/// `POST /notify/adyen`: Adyen's standard webhooks, when its HMAC key is configured
/// (`applepay.adyen.hmac_key_env` or `_file`), read into ``ProviderEvent``s. Every item's
/// signature is checked before any is read; Adyen hears `[accepted]` only after every item is on
/// disk, and sends the whole webhook again otherwise.
///
/// - `REFUND`, `REFUND_FAILED`, `REFUNDED_REVERSED`: a refund's outcome — one of Cashier's, named
///   by the key it was sent with (`cashier_{out_refund_no}_refund`), or one made in Adyen's
///   Customer Area, found by the payment's PSP reference.
/// - `AUTHORISATION`: the decision on a payment Adyen answered `Received`.
/// - `CAPTURE`, `CAPTURE_FAILED`: a capture's fate after Adyen accepted it, or a recapture.
/// - The dispute events: a chargeback's money, its reversal, and the steps between.
/// - `EXPIRE`, and a `CANCELLATION` made in the Customer Area: the authorisation ended.
/// - A `CANCELLATION` Adyen refused of one of Cashier's voids: logged, nothing moves.
struct AdyenEvents: NotificationSource {
    let hmacKey: String

    func verify(_ message: InboundMessage) async throws -> [ProviderEvent] {
        try ApplePay.AdyenNotification.items(in: Data(message.body), hmacKey: hmacKey).flatMap(Self.events(in:))
    }

    /// The dispute events Cashier knows; those that neither open a dispute nor move money are logged only.
    static let disputeEvents: Set<String> = [
        "NOTIFICATION_OF_CHARGEBACK", "CHARGEBACK", "CHARGEBACK_REVERSED", "SECOND_CHARGEBACK", "REQUEST_FOR_INFORMATION",
        "DISPUTE_OPENED_WITH_CHARGEBACK", "PREARBITRATION_WON", "PREARBITRATION_LOST", "INFORMATION_SUPPLIED",
        "DISPUTE_DEFENSE_PERIOD_ENDED", "ISSUER_RESPONSE_TIMEFRAME_EXPIRED", "ISSUER_COMMENTS", "NOTIFICATION_OF_FRAUD",
    ]

    /// The events that open a dispute cycle (`order.disputed`, once per dispute reference and
    /// cycle): the first chargeback, with or without its notice or a request for information
    /// first, and the second chargeback.
    static let disputeOpenings = [
        "NOTIFICATION_OF_CHARGEBACK": "", "REQUEST_FOR_INFORMATION": "", "DISPUTE_OPENED_WITH_CHARGEBACK": "", "CHARGEBACK": "",
        "SECOND_CHARGEBACK": "second",
    ]

    /// The number of the record of a refund made in Adyen's Customer Area: one per Adyen refund.
    static func customerAreaRefundNumber(_ pspReference: String) -> String {
        RefundService.derivedNumber("adyen refund", pspReference)
    }

    /// The events that move money, and the reason their record carries.
    static let disputeMoves = ["CHARGEBACK": "chargeback", "SECOND_CHARGEBACK": "second chargeback"]

    /// What one item says, typed.
    static func events(in item: ApplePay.AdyenNotification) -> [ProviderEvent] {
        let word = ProcessorWord(processor: ProcessorActor.adyen, fields: fields(of: item))
        let original = NamedReference(value: item.originalReference)
        let amount = NamedAmount(value: item.value, currency: item.currency)
        let words = item.reason.flatMap { $0.isEmpty ? nil : $0 }
        switch item.eventCode {
        case "REFUND", "REFUND_FAILED", "REFUNDED_REVERSED":
            let succeeded = item.eventCode == "REFUND" && item.success
            guard OperationKey.recordNumber(in: item.merchantReference, "refund") != nil else {
                // Not one of Cashier's keys: a refund made in Adyen's Customer Area.
                guard let psp = item.originalReference, !psp.isEmpty else { return [] }
                return [
                    .outsideRefund(
                        OutsideRefundReport(
                            payment: .processorReference(psp), amount: amount,
                            number: customerAreaRefundNumber(item.pspReference), reason: "refunded at Adyen",
                            state: item.eventCode == "REFUND"
                                ? .succeeded(providerRefundID: item.pspReference)
                                : .failed("Adyen \(item.eventCode): \(words ?? "reported")"),
                            refused: item.eventCode == "REFUND" && !item.success ? "no: Adyen refused the refund, and no money moved" : nil,
                            word: word))
                ]
            }
            let why = words ?? (item.eventCode == "REFUND" ? "refused" : "reported")
            return [
                .processorRefund(
                    ProcessorRefundReport(
                        key: item.merchantReference, operation: "refund", paymentReference: original, amount: amount,
                        state: succeeded ? .succeeded(item.pspReference) : .failed("Adyen \(item.eventCode): \(why)"), word: word))
            ]
        case "AUTHORISATION":
            // Adyen's word on a payment it answered Received (for one already recorded, nothing moves).
            guard let value = item.value, let currency = try? Currency(code: item.currency ?? "") else { return [] }
            return [
                .decision(
                    ProcessorDecisionReport(
                        tradeNumber: item.merchantReference, reference: item.pspReference,
                        amount: Money(minorUnits: value, currency: currency),
                        authorized: item.success, status: item.success ? "Authorised" : "Refused", word: word))
            ]
        case "CAPTURE", "CAPTURE_FAILED":
            let kind: CaptureReport.Kind =
                if item.eventCode == "CAPTURE_FAILED" || !item.success {
                    .failed
                } else if item.reason?.range(of: "recaptured", options: .caseInsensitive) != nil {
                    .recaptured(item.reason ?? "recaptured")
                } else {
                    .succeeded
                }
            return [
                .capture(
                    CaptureReport(
                        kind: kind, merchantReference: item.merchantReference, paymentReference: original, amount: amount,
                        pspReference: item.pspReference, word: word))
            ]
        case let event where disputeEvents.contains(event):
            // Disputes name the payment by its own reference (our out_trade_no) and its PSP reference.
            // Every event of a dispute carries the dispute's own PSP reference (Adyen's dispute webhooks:
            // "All events related to a dispute have the same PSP reference"; the payment's is `originalReference`).
            let cycle = disputeOpenings[event]
            let move: DisputeReport.Move =
                if let reason = disputeMoves[event] {
                    .chargeback(number: Disputes.number(item.pspReference, event), reason: reason)
                } else if event == "CHARGEBACK_REVERSED" {
                    .reversal(number: Disputes.number(item.pspReference, "CHARGEBACK"))
                } else {
                    .none
                }
            return [
                .dispute(
                    DisputeReport(
                        payment: .tradeNumber(item.merchantReference), paymentReference: original, announces: cycle != nil,
                        disputeID: (cycle ?? "").isEmpty ? item.pspReference : "\(item.pspReference) \(cycle ?? "")", reason: item.reason,
                        status: item.eventCode, evidenceDueBy: item.defensePeriodEndsAt.map { Int64($0.timeIntervalSince1970) },
                        amount: amount, move: move, reference: item.pspReference, word: word))
            ]
        case "EXPIRE":
            // What was held and not captured expired.
            return [
                .authorizationEnded(
                    AuthorizationEndReport(
                        payment: .tradeNumber(item.merchantReference), paymentReference: original, reason: "authorisation lapsed",
                        reference: item.pspReference, word: word))
            ]
        case "CANCELLATION" where item.success && OperationKey.recordNumber(in: item.merchantReference, "void") == nil:
            // A cancel made in the Customer Area: the authorisation ended, as a lapse does.
            guard let psp = item.originalReference, !psp.isEmpty else { return [] }
            return [
                .authorizationEnded(
                    AuthorizationEndReport(
                        payment: .processorReference(psp), reason: "cancelled at Adyen", reference: item.pspReference, word: word))
            ]
        case "CANCELLATION" where !item.success:
            // Logged on the order, not applied: Cashier voids only what it holds uncaptured (under the
            // payment's lock), so Adyen refuses a void when the authorisation lapsed already — the
            // money is back either way — or when someone captured it outside Cashier.
            return [
                .processorRefund(
                    ProcessorRefundReport(
                        key: item.merchantReference, operation: "void", paymentReference: original, amount: nil,
                        state: .logged("no: a void Adyen refused leaves nothing to take, or was overtaken outside Cashier"), word: word))
            ]
        default: return []
        }
    }

    /// What an order's log keeps of an Adyen item.
    static func fields(of item: ApplePay.AdyenNotification) -> [String: String] {
        var fields = ["event_code": item.eventCode, "success": item.success ? "true" : "false", "psp_reference": item.pspReference]
        if let reason = item.reason, !reason.isEmpty { fields["reason"] = reason }
        if let value = item.value, let currency = item.currency { fields["amount"] = "\(value) \(currency)" }
        return fields
    }

    func reply(_ outcome: NotificationOutcome) -> NotificationReply {
        switch outcome {
        case .acknowledged, .refused: NotificationReply(contentType: "text/plain; charset=utf-8", body: "[accepted]")
        case .retry:
            NotificationReply(status: 500, contentType: "text/plain; charset=utf-8", body: "[retry] the outcome could not be recorded")
        case .unverified: refusal(PaymentError(.signatureMismatch, "not an Adyen webhook"))
        }
    }

    /// 401 `[refused]`, saying why.
    func refusal(_ error: any Error) -> NotificationReply {
        NotificationReply(
            status: 401, contentType: "text/plain; charset=utf-8",
            body: "[refused] \((error as? PaymentError)?.message ?? "not an Adyen webhook")")
    }

    func metricName(refund: Bool) -> String { "adyen" }
}
