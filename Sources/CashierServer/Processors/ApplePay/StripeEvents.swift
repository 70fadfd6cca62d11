import ApplePay
import Cashier
import Foundation

/// `POST /notify/stripe`: Stripe's webhook events, when the endpoint's signing secret is
/// configured (`applepay.stripe.webhook_secret_env` or `_file`), read into ``ProviderEvent``s.
/// The `Stripe-Signature` header is checked before the body is read, and a delivery older than
/// five minutes is refused; Stripe hears 2xx only after what the event says is on disk.
///
/// - A refund's outcome (`refund.created`, `charge.refund.updated`, `refund.updated`,
///   `refund.failed`): with the refund's `metadata.cashier_refund`, one Cashier asked for
///   (``ProviderEvent/processorRefund(_:)``); without, one made at Stripe without Cashier (the
///   Dashboard: ``ProviderEvent/outsideRefund(_:)``).
/// - A dispute (`charge.dispute.*`): `funds_withdrawn` takes the dispute's amount back,
///   `funds_reinstated` returns it (the dispute won); `created` and `funds_withdrawn` announce it;
///   the other steps are logged. A dispute names only its PaymentIntent: Stripe is asked for the
///   PaymentIntent's `metadata.cashier_payment`.
/// - A held payment's PaymentIntent cancelled without Cashier (`payment_intent.canceled`; its
///   authorisation lapsed after seven days when `cancellation_reason` is `automatic`).
/// - A PaymentIntent Stripe left `processing` when it was confirmed: `payment_intent.succeeded`
///   or `payment_intent.amount_capturable_updated` authorise it, `payment_intent.payment_failed` does not.
/// - Anything else is acknowledged and changes nothing.
struct StripeEvents: NotificationSource {
    let secret: String
    let clock: any WallClock

    func verify(_ message: InboundMessage) async throws -> [ProviderEvent] {
        let event = try ApplePay.StripeEvent.verified(
            Data(message.body), signatureHeader: message.headers["Stripe-Signature"], secret: secret, now: clock.now())
        return Self.events(in: event)
    }

    /// What the event says, typed.
    static func events(in event: ApplePay.StripeEvent) -> [ProviderEvent] {
        let object = event.object
        let word = ProcessorWord(processor: ProcessorActor.stripe, fields: fields(of: event))
        switch (object.kind, event.type) {
        case ("refund", "refund.created"), ("refund", "charge.refund.updated"), ("refund", "refund.updated"), ("refund", "refund.failed"):
            guard let key = object.metadata["cashier_refund"] else {
                // A refund made at Stripe without Cashier (the Dashboard, another integration).
                guard let intent = object.paymentIntent else { return [] }
                let state: ProviderRefundState =
                    switch object.status {
                    // Pending: counted now, confirmed when Stripe says succeeded (a later event, or the refund job asking).
                    case "succeeded", "pending", "requires_action": .succeeded(providerRefundID: object.id)
                    case "failed", "canceled": .failed(object.reason ?? "Stripe \(object.status ?? "failed") the refund")
                    default: .processing
                    }
                return [
                    .outsideRefund(
                        OutsideRefundReport(
                            payment: .askProcessor(intent), amount: NamedAmount(value: object.amount, currency: object.currency),
                            number: RefundService.derivedNumber("stripe refund", object.id), reason: "refunded at Stripe", state: state,
                            accepted: object.status != "succeeded", word: word))
                ]
            }
            let state: ProcessorRefundReport.State =
                switch object.status {
                case "succeeded": .succeeded(object.id)
                case "failed", "canceled": .failed(object.reason ?? "Stripe \(object.status ?? "failed") the refund")
                default: .pending  // pending, requires_action: a later event says
                }
            return [
                .processorRefund(
                    ProcessorRefundReport(
                        key: key, operation: "refund", paymentReference: NamedReference(value: object.paymentIntent, strict: true),
                        amount: NamedAmount(value: object.amount, currency: object.currency, strict: true), state: state, word: word))
            ]
        case ("dispute", let type) where type.hasPrefix("charge.dispute."):
            guard let intent = object.paymentIntent else { return [] }
            let number = Disputes.number(object.id, "funds_withdrawn")
            let move: DisputeReport.Move =
                switch type {
                case "charge.dispute.funds_withdrawn": .chargeback(number: number, reason: "chargeback")
                case "charge.dispute.funds_reinstated": .reversal(number: number)
                default: .none
                }
            return [
                .dispute(
                    DisputeReport(
                        payment: .askProcessor(intent),
                        // The merchant hears of it once, whichever of the two comes first (funds may be withdrawn as it opens).
                        announces: type == "charge.dispute.created" || type == "charge.dispute.funds_withdrawn", disputeID: object.id,
                        reason: object.reason, status: object.status, evidenceDueBy: object.evidenceDueBy,
                        amount: NamedAmount(value: object.amount, currency: object.currency), move: move, reference: object.id, word: word))
            ]
        case ("payment_intent", "payment_intent.succeeded"), ("payment_intent", "payment_intent.amount_capturable_updated"),
            ("payment_intent", "payment_intent.payment_failed"):
            guard let number = object.metadata["cashier_payment"], let minor = object.amount,
                let currency = try? Currency(code: object.currency ?? "")
            else { return [] }
            return [
                .decision(
                    ProcessorDecisionReport(
                        tradeNumber: number, reference: object.id, amount: Money(minorUnits: minor, currency: currency),
                        authorized: event.type != "payment_intent.payment_failed", status: object.status ?? event.type, word: word))
            ]
        case ("payment_intent", "payment_intent.canceled"):
            // A held payment's PaymentIntent cancelled by Stripe (its authorisation lapsed) or outside Cashier.
            guard let number = object.metadata["cashier_payment"] else { return [] }
            return [
                .authorizationEnded(
                    AuthorizationEndReport(
                        payment: .tradeNumber(number), paymentReference: NamedReference(value: object.id, strict: true),
                        reason: Lapses.reason(.stripe(cancellationReason: object.reason)), reference: object.id, word: word))
            ]
        default: return []
        }
    }

    /// What an order's log keeps of a Stripe event.
    static func fields(of event: ApplePay.StripeEvent) -> [String: String] {
        let object = event.object
        var fields = ["event": event.id, "type": event.type, object.kind: object.id]
        if let status = object.status { fields["status"] = status }
        if let reason = object.reason { fields["reason"] = reason }
        if let amount = object.amount, let currency = object.currency { fields["amount"] = "\(amount) \(currency)" }
        return fields
    }

    func reply(_ outcome: NotificationOutcome) -> NotificationReply {
        switch outcome {
        case .acknowledged, .refused: NotificationReply(contentType: "application/json", body: #"{"received":true}"#)
        case .retry:
            .error(status: 500, code: "retry", message: "the event could not be recorded; Stripe will send it again")
        case .unverified: refusal(PaymentError(.signatureMismatch, "not a Stripe webhook event"))
        }
    }

    /// `invalid_signature`, saying why: 401 for a signature that does not verify (or is too old),
    /// 400 for a header or a signed body that is not Stripe's shape. Stripe sends again after
    /// anything but 2xx.
    func refusal(_ error: any Error) -> NotificationReply {
        let message = (error as? PaymentError)?.message ?? "not a Stripe webhook event"
        if (error as? PaymentError)?.code == .malformedMessage {
            return .error(status: 400, code: "invalid_signature", message: message)
        }
        return .error(status: 401, code: "invalid_signature", message: message)
    }

    func metricName(refund: Bool) -> String { "stripe" }
}
