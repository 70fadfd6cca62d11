import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// What a processor's dispute does to the books, whichever processor reports it (Adyen's
/// `CHARGEBACK`, Stripe's `charge.dispute.funds_withdrawn`): the amount taken back from the
/// merchant is recorded as money gone back — a refund with reason `chargeback`, requested by the
/// processor, asked of no one — and a dispute won takes that record back. Each record's number
/// comes from the dispute's reference and the step, so every copy of a webhook, at any instance,
/// finds the same record and moves nothing again.
extension MerchantAPI {
    /// Who asked for records of money a processor or provider moved by itself (a failed capture, a
    /// chargeback, a refund made in its dashboard or console): they are done there already, so the
    /// refund job never sends them to anyone.
    static let processorActors: Set<String> = [adyenActor, stripeActor, wechatActor, alipayActor]

    /// The number of the record a dispute's step makes (a reversal finds its chargeback's): one per dispute and step.
    static func disputeNumber(_ dispute: String, _ event: String) -> String {
        derivedNumber("dispute", event, dispute)
    }

    /// Records `amount` of `payment` taken back by a dispute (`reference`: the processor's word for
    /// it), once; order.refunded follows. More than is left of the payment (it was refunded
    /// meanwhile) is logged on the order and not recorded: the merchant's to settle with the processor.
    func recordChargeback(
        _ payment: StoredPayment, _ amount: Money, number: String, reason: String, by actor: String, reference: String,
        fields: [String: String], bodyHash: String
    ) async throws {
        let record: StoredRefund
        do {
            record = try await store.reserveRefund(
                NewRefund(
                    orderID: payment.orderID, paymentID: payment.id, amount: amount, outRefundNo: number, reason: reason,
                    requestedBy: actor), now: clock.now()
            ).refund
        } catch let error as StoreError where error.code == .limitExceeded {
            var fields = fields
            fields["applied"] = "no: \(error.message)"
            return try await logDispute(fields, payment, bodyHash: bodyHash)
        }
        // A reversal that came first left the record failed: nothing moves then.
        try await finish(record, .succeeded(providerRefundID: reference))
    }

    /// Takes back the record a processor's word made under `number` (a chargeback whose dispute
    /// was won, a failed capture recaptured, a refund that failed): order.refund_failed follows, and
    /// the amount is the merchant's again. When the taking back outran the word it mends (the
    /// processor retried that one), the record is made already taken back — `amount` (`nil`: all
    /// that is left), `reason` and `actor` as that word would have made it — so the word finds it
    /// and moves nothing.
    func takeBack(_ payment: StoredPayment, _ amount: Money?, number: String, reason: String, by actor: String, why: String)
        async throws
    {
        var record = try await store.refund(outRefundNo: number)
        if record == nil {
            record = try? await store.reserveRefund(
                NewRefund(
                    orderID: payment.orderID, paymentID: payment.id, amount: amount, outRefundNo: number, reason: reason,
                    requestedBy: actor), now: clock.now()
            ).refund
        }
        if let record, record.status != .failed {
            try await finish(record, .failed(why))
        }
    }

    /// The amount a processor's word on an outside refund names, in the payment's currency: `nil`
    /// (logged on the order as not applied) when it names none, or another currency.
    func outsideRefundAmount(_ value: Int64?, _ currency: String?, of payment: StoredPayment, fields: [String: String], bodyHash: String)
        async throws -> Money?
    {
        let expected = payment.amount.currency
        if let value, value > 0, currency == expected.code { return Money(minorUnits: value, currency: expected) }
        var fields = fields
        fields["applied"] = "no: the refund names no amount in \(expected.code)"
        try await logRefundEvent(fields, payment, bodyHash: bodyHash)
        return nil
    }

    /// Reserves the record of a refund made at the processor without Cashier (Stripe's Dashboard,
    /// Adyen's Customer Area): `number` is one per the processor's refund, so every copy of its word
    /// finds the same record. The word is logged on the order either way.
    /// - Returns: the record, or `nil` when it is more than is left of the payment (logged as not applied).
    func reserveOutsideRefund(
        _ payment: StoredPayment, _ amount: Money, number: String, reason: String, by actor: String, fields: [String: String],
        bodyHash: String
    ) async throws -> StoredRefund? {
        var fields = fields
        var record: StoredRefund?
        do {
            record = try await store.reserveRefund(
                NewRefund(
                    orderID: payment.orderID, paymentID: payment.id, amount: amount, outRefundNo: number, reason: reason, requestedBy: actor
                ),
                now: clock.now()
            ).refund
        } catch let error as StoreError where error.code == .limitExceeded {
            fields["applied"] = "no: \(error.message)"
        }
        try await logRefundEvent(fields, payment, bodyHash: bodyHash)
        return record
    }

    /// A processor's word on a refund on its order's log, as it arrives.
    func logRefundEvent(_ fields: [String: String], _ payment: StoredPayment, bodyHash: String) async throws {
        try await store.append(
            EventRecord(kind: .refundNotification, detail: Self.detail(fields), bodySHA256: bodyHash), to: payment.orderID, now: clock.now()
        )
    }

    /// Tells the merchant a dispute opened against `payment` (`order.disputed`, with the order, the
    /// payment and the dispute), logging the word on the order: queued once per dispute, however
    /// many of the processor's words say so at however many instances — its event id comes from
    /// the processor and the dispute. The merchant answers the dispute at the processor. `fields`:
    /// the word's log line (`nil` when the word is logged where it moves money).
    func announceDispute(_ dispute: DisputeJSON, of payment: StoredPayment, fields: [String: String]?, bodyHash: String) async throws {
        let key = ["order.disputed", dispute.processor, dispute.id].joined(separator: "\n")
        try await store.announce(
            "order.disputed", dispute: dispute, eventID: "evt_" + Hex.encode(DigestAlgorithm.sha256.hash(key)).prefix(32),
            record: fields.map { EventRecord(kind: .dispute, detail: Self.detail($0), bodySHA256: bodyHash) }, to: payment.orderID,
            now: clock.now())
    }

    /// A dispute's step on its order's log, as it arrives.
    func logDispute(_ fields: [String: String], _ payment: StoredPayment, bodyHash: String) async throws {
        try await store.append(
            EventRecord(kind: .dispute, detail: Self.detail(fields), bodySHA256: bodyHash), to: payment.orderID, now: clock.now())
    }
}
