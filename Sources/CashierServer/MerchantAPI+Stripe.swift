import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// `POST /notify/stripe`: Stripe's webhook events, when the endpoint's signing secret is
/// configured (`applepay.stripe.webhook_secret_env` or `_file`). The `Stripe-Signature` header is
/// checked before the body is read, and a delivery older than five minutes is refused; Stripe hears
/// 2xx only after what the event says is on disk, and sends it again otherwise.
///
/// - A refund's outcome (`refund.created`, `charge.refund.updated`, `refund.updated`,
///   `refund.failed`, with the refund's `metadata.cashier_refund`): confirmed, or failed and its
///   amount given back to the order — what the refund job would learn by asking, sooner. A refund
///   made at Stripe without Cashier (the Dashboard) is recorded too.
/// - A dispute (`charge.dispute.*`): `funds_withdrawn` records the dispute's amount as gone back
///   (a refund with reason `chargeback`, requested by `stripe`, asked of no one; order.refunded),
///   `funds_reinstated` takes that back (the dispute won; order.refund_failed); the other steps
///   (`created`, `updated`, `closed`) are logged on the order. A dispute names only its
///   PaymentIntent: Stripe is asked for the PaymentIntent's `metadata.cashier_payment`.
/// - A held payment's PaymentIntent cancelled without Cashier (`payment_intent.canceled`; its
///   authorisation lapsed after seven days when `cancellation_reason` is `automatic`): see
///   MerchantAPI+Lapses.swift.
/// - A PaymentIntent Stripe left `processing` when it was confirmed: `payment_intent.succeeded`
///   or `payment_intent.amount_capturable_updated` pay the order (once, the amount checked),
///   `payment_intent.payment_failed` fails the attempt (see `applyStripeDecision`).
/// - Anything else is acknowledged and changes nothing.
extension MerchantAPI {
    /// Who asked for the records Stripe's disputes make: done at Stripe, never sent to it.
    static let stripeActor = "stripe"

    func stripeWebhook(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let secret = configuration.applePay?.stripeWebhookSecret else {
            return .error(
                status: 404, code: "not_found",
                message: "Stripe webhooks are not configured on this server (applepay.stripe.webhook_secret_env or webhook_secret_file)")
        }
        let event: ApplePay.StripeEvent
        do {
            event = try ApplePay.StripeEvent.verified(
                Data(request.body), signatureHeader: request.headers["Stripe-Signature"], secret: secret, now: clock.now())
        } catch {
            metrics.increment("cashier_notifications_total", ["provider": "stripe", "outcome": NotificationOutcome.unverified.rawValue])
            return .error(
                status: 400, code: "invalid_signature", message: (error as? PaymentError)?.message ?? "not a Stripe webhook event")
        }
        do {
            try await apply(event, bodyHash: Hex.encode(DigestAlgorithm.sha256.hash(request.body)))
        } catch {
            // Nothing is lost: Stripe sends the event again, and what was recorded stays recorded once.
            metrics.increment("cashier_notifications_total", ["provider": "stripe", "outcome": NotificationOutcome.retry.rawValue])
            return .error(status: 500, code: "retry", message: "the event could not be recorded; Stripe will send it again")
        }
        metrics.increment("cashier_notifications_total", ["provider": "stripe", "outcome": NotificationOutcome.acknowledged.rawValue])
        return .json(["received": true])
    }

    private func apply(_ event: ApplePay.StripeEvent, bodyHash: String) async throws {
        switch (event.object.kind, event.type) {
        case ("refund", "refund.created"), ("refund", "charge.refund.updated"), ("refund", "refund.updated"), ("refund", "refund.failed"):
            try await applyStripeRefund(event, bodyHash: bodyHash)
        case ("dispute", let type) where type.hasPrefix("charge.dispute."):
            try await applyStripeDispute(event, bodyHash: bodyHash)
        case ("payment_intent", "payment_intent.succeeded"), ("payment_intent", "payment_intent.amount_capturable_updated"),
            ("payment_intent", "payment_intent.payment_failed"):
            try await applyStripeDecision(event, bodyHash: bodyHash)
        case ("payment_intent", "payment_intent.canceled"):
            // A held payment's PaymentIntent cancelled by Stripe (its authorisation lapsed) or outside Cashier.
            guard let number = event.object.metadata["cashier_payment"],
                let payment = try await store.payment(wallet: .applePay, outTradeNo: number), payment.transactionID == event.object.id
            else { return }
            try await applyLapse(
                payment, by: Self.stripeActor, reason: Self.lapseReason(.stripe(cancellationReason: event.object.reason)),
                reference: event.object.id, fields: Self.fields(of: event), bodyHash: bodyHash)
        default: return
        }
    }

    /// Stripe's word on a PaymentIntent: `payment_intent.succeeded` (or, held for a manual
    /// capture, `payment_intent.amount_capturable_updated`) authorised it, `payment_intent.payment_failed`
    /// did not. It moves only an attempt Stripe had left `processing` (or one whose authorisation
    /// is still in flight here); for one already paid — every payment's `succeeded` event — it
    /// changes nothing.
    private func applyStripeDecision(_ event: ApplePay.StripeEvent, bodyHash: String) async throws {
        let object = event.object
        guard let number = object.metadata["cashier_payment"], let payment = try await store.payment(wallet: .applePay, outTradeNo: number),
            let minor = object.amount, let currency = try? Currency(code: object.currency ?? "")
        else { return }
        try await applyProcessorDecision(
            payment, reference: object.id, amount: Money(minorUnits: minor, currency: currency),
            authorized: event.type != "payment_intent.payment_failed", status: object.status ?? event.type, by: Self.stripeActor,
            fields: Self.fields(of: event), bodyHash: bodyHash)
    }

    /// What an order's log keeps of a Stripe event.
    private static func fields(of event: ApplePay.StripeEvent) -> [String: String] {
        let object = event.object
        var fields = ["event": event.id, "type": event.type, object.kind: object.id]
        if let status = object.status { fields["status"] = status }
        if let reason = object.reason { fields["reason"] = reason }
        if let amount = object.amount, let currency = object.currency { fields["amount"] = "\(amount) \(currency)" }
        return fields
    }

    /// A refund's event: one Cashier asked for (its `metadata.cashier_refund`), or one made at
    /// Stripe without Cashier (the Dashboard), recorded so the order's books follow the money.
    private func applyStripeRefund(_ event: ApplePay.StripeEvent, bodyHash: String) async throws {
        guard let key = event.object.metadata["cashier_refund"] else { return try await applyOutsideRefund(event, bodyHash: bodyHash) }
        let object = event.object
        guard let number = Self.recordNumber(inProcessorKey: key, "refund"), let refund = try await store.refund(outRefundNo: number),
            let payment = try await store.payment(id: refund.paymentID), payment.method == .applePay,
            object.paymentIntent == payment.transactionID
        else { return }
        var fields = Self.fields(of: event)
        fields["out_refund_no"] = refund.outRefundNo
        guard object.amount == refund.amount.minorUnits, object.currency == refund.amount.currency.code else {
            fields["refused"] = "the event's amount is not the refund's \(refund.amount.decimalString) \(refund.amount.currency.code)"
            return try await store.append(
                EventRecord(kind: .notificationRefused, detail: Self.detail(fields), bodySHA256: bodyHash), to: payment.orderID,
                now: clock.now())
        }
        try await store.append(
            EventRecord(kind: .refundNotification, detail: Self.detail(fields), bodySHA256: bodyHash), to: payment.orderID, now: clock.now()
        )
        switch object.status {
        case "succeeded": try await finish(refund, .succeeded(providerRefundID: object.id))
        case "failed", "canceled": try await finish(refund, .failed(object.reason ?? "Stripe \(object.status ?? "failed") the refund"))
        default: return  // pending, requires_action: a later event says
        }
    }

    /// The number of the record of a refund made at Stripe without Cashier: one per Stripe refund.
    static func outsideRefundNumber(_ stripeRefund: String) -> String {
        derivedNumber("stripe refund", stripeRefund)
    }

    /// A refund made at Stripe without Cashier (the Dashboard, another integration): recorded as
    /// money gone back (reason `refunded at Stripe`, requested by `stripe`, never sent to it) —
    /// counted while `pending` and confirmed by the refund job or a later event, taken back when it
    /// fails — so the order's books and reconciliation follow Stripe's. A failure that arrives
    /// before the refund's creation leaves the record failed, so the creation moves nothing.
    private func applyOutsideRefund(_ event: ApplePay.StripeEvent, bodyHash: String) async throws {
        let object = event.object
        guard let intent = object.paymentIntent, let payment = try await stripePayment(intent) else { return }
        var fields = Self.fields(of: event)
        fields["payment"] = payment.id
        guard
            let amount = try await outsideRefundAmount(
                object.amount, object.currency, of: payment, fields: fields, bodyHash: bodyHash)
        else { return }
        let state: ProviderRefundState =
            switch object.status {
            // Pending: counted now, confirmed when Stripe says succeeded (a later event, or the refund job asking).
            case "succeeded", "pending", "requires_action": .succeeded(providerRefundID: object.id)
            case "failed", "canceled": .failed(object.reason ?? "Stripe \(object.status ?? "failed") the refund")
            default: .processing
            }
        try await recordOutsideRefund(
            payment, amount, number: Self.outsideRefundNumber(object.id), reason: "refunded at Stripe", by: Self.stripeActor, state: state,
            accepted: object.status != "succeeded", fields: fields, bodyHash: bodyHash)
    }

    /// Cashier's Apple Pay payment that Stripe's PaymentIntent `intent` is, found by the
    /// PaymentIntent's `metadata.cashier_payment` (Stripe is asked: refunds and disputes name only
    /// the PaymentIntent).
    private func stripePayment(_ intent: String) async throws -> StoredPayment? {
        guard let number = try await configuration.applePay?.processor.merchantReference(ofPayment: intent),
            let payment = try await store.payment(wallet: .applePay, outTradeNo: number), payment.status == .succeeded,
            payment.transactionID == intent
        else { return nil }
        return payment
    }

    private func applyStripeDispute(_ event: ApplePay.StripeEvent, bodyHash: String) async throws {
        let object = event.object
        guard let intent = object.paymentIntent, let payment = try await stripePayment(intent) else { return }
        var fields = Self.fields(of: event)
        fields["payment"] = payment.id
        let named = Self.namedAmount(object.amount, object.currency, of: payment)
        if event.type == "charge.dispute.created" || event.type == "charge.dispute.funds_withdrawn" {
            // The merchant hears of it once, whichever of the two comes first (funds may be withdrawn as it opens).
            try await announceDispute(
                DisputeJSON(
                    id: object.id, processor: Self.stripeActor, paymentID: payment.id, amount: named ?? payment.amount,
                    reason: object.reason, status: object.status, evidenceDueBy: object.evidenceDueBy), of: payment)
        }
        let moves = event.type == "charge.dispute.funds_withdrawn" || event.type == "charge.dispute.funds_reinstated"
        guard moves else { return try await logDispute(fields, payment, bodyHash: bodyHash) }
        guard let amount = named else {
            fields = notApplied(fields, "the dispute names no amount in \(payment.amount.currency.code)", of: payment, reason: "no_amount")
            return try await logDispute(fields, payment, bodyHash: bodyHash)
        }
        let record = Self.disputeNumber(object.id, "funds_withdrawn")
        if event.type == "charge.dispute.funds_withdrawn" {
            try await recordChargeback(
                payment, amount, number: record, reason: "chargeback", by: Self.stripeActor, reference: object.id, fields: fields,
                bodyHash: bodyHash)
        } else {
            try await takeBack(
                payment, amount, number: record, reason: "chargeback", by: Self.stripeActor, why: "chargeback reversed: the dispute was won"
            )
        }
    }
}
