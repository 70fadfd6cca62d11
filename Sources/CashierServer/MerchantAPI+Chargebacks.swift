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

    /// Reserves the record of money a provider's or processor's word says went back by itself —
    /// `amount` (`nil`: all that is left) of `payment`, under `number`, requested by `actor` and so
    /// never sent to anyone. A copy of the word finds the record reserved already.
    /// - Throws: `StoreError.limitExceeded` when it is more than is left of the payment.
    func reserveRecord(of payment: StoredPayment, _ amount: Money?, number: String, reason: String, by actor: String) async throws
        -> StoredRefund
    {
        try await store.reserveRefund(
            NewRefund(
                orderID: payment.orderID, paymentID: payment.id, amount: amount, outRefundNo: number, reason: reason, requestedBy: actor),
            now: clock.now()
        ).refund
    }

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
            record = try await reserveRecord(of: payment, amount, number: number, reason: reason, by: actor)
        } catch let error as StoreError where error.code == .limitExceeded {
            let fields = notApplied(fields, error.message, of: payment, reason: "more_than_left")
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
            record = try? await reserveRecord(of: payment, amount, number: number, reason: reason, by: actor)
        }
        if let record, record.status != .failed {
            try await finish(record, .failed(why))
        }
    }

    /// The amount a provider's or processor's word names (`value` minor units in `currency`), when
    /// it is a positive amount in the payment's currency; `nil` otherwise.
    static func namedAmount(_ value: Int64?, _ currency: String?, of payment: StoredPayment) -> Money? {
        guard let value, value > 0, currency == payment.amount.currency.code else { return nil }
        return Money(minorUnits: value, currency: payment.amount.currency)
    }

    /// The amount a word on an outside refund names (``namedAmount(_:_:of:)``): `nil`, logged on the
    /// order as not applied, when it names none in the payment's currency.
    func outsideRefundAmount(_ value: Int64?, _ currency: String?, of payment: StoredPayment, fields: [String: String], bodyHash: String)
        async throws -> Money?
    {
        if let amount = Self.namedAmount(value, currency, of: payment) { return amount }
        let fields = notApplied(
            fields, "the refund names no amount in \(payment.amount.currency.code)", of: payment, reason: "no_amount")
        try await logRefundEvent(fields, payment, bodyHash: bodyHash)
        return nil
    }

    /// A refund made at the provider or processor without Cashier (Stripe's Dashboard, Adyen's
    /// Customer Area, WeChat Pay's and Alipay's consoles), as its word says it stands, under
    /// `number` — one per the provider's refund, so every copy of its word finds the same record:
    /// - succeeded: recorded as money gone back, never sent to anyone (`accepted`: counted now and
    ///   confirmed later); more than is left of the payment is logged as not applied;
    /// - failed: taken back (``takeBack(_:_:number:reason:by:why:)``: first, it leaves the record
    ///   failed, so a late success moves nothing);
    /// - still processing: only logged (its last word follows).
    /// The word is logged on the order in every case.
    func recordOutsideRefund(
        _ payment: StoredPayment, _ amount: Money, number: String, reason: String, by actor: String, state: ProviderRefundState,
        accepted: Bool = false, fields: [String: String], bodyHash: String
    ) async throws {
        var fields = fields
        var record: StoredRefund?
        if case .succeeded = state {
            do {
                record = try await reserveRecord(of: payment, amount, number: number, reason: reason, by: actor)
            } catch let error as StoreError where error.code == .limitExceeded {
                fields = notApplied(fields, error.message, of: payment, reason: "more_than_left")
            }
        }
        try await logRefundEvent(fields, payment, bodyHash: bodyHash)
        switch state {
        case .succeeded:
            if let record { try await finish(record, state, accepted: accepted) }
        case .failed(let why): try await takeBack(payment, amount, number: number, reason: reason, by: actor, why: why)
        case .processing, .notFound: return
        }
    }

    /// `fields`, marked as a verified word that money moved which the books do not take (`why`:
    /// more than is left of the payment, no amount in its currency), and counted for `/metrics` in
    /// `cashier_reports_not_applied_total` by provider and `reason` (`more_than_left`,
    /// `no_amount`). The money moved at the provider all the same: an alert on the counter sends
    /// the merchant to the order's log, and to the provider, to settle it.
    func notApplied(_ fields: [String: String], _ why: String, of payment: StoredPayment, reason: String) -> [String: String] {
        metrics.increment("cashier_reports_not_applied_total", ["provider": payment.provider.rawValue, "reason": reason])
        var fields = fields
        fields["applied"] = "no: \(why)"
        return fields
    }

    /// A processor's word on a refund on its order's log, as it arrives.
    func logRefundEvent(_ fields: [String: String], _ payment: StoredPayment, bodyHash: String) async throws {
        try await store.append(
            EventRecord(kind: .refundNotification, detail: Self.detail(fields), bodySHA256: bodyHash), to: payment.orderID, now: clock.now()
        )
    }

    /// Tells the merchant a dispute opened against `payment` (`order.disputed`, with the order, the
    /// payment and the dispute): queued once per dispute, however many of the processor's words say
    /// so at however many instances — its event id comes from the processor and the dispute. (The
    /// words themselves are logged where they are handled.) The merchant answers the dispute at the
    /// processor.
    func announceDispute(_ dispute: DisputeJSON, of payment: StoredPayment) async throws {
        let key = ["order.disputed", dispute.processor, dispute.id].joined(separator: "\n")
        try await store.announce(
            "order.disputed", dispute: dispute, eventID: "evt_" + Hex.encode(DigestAlgorithm.sha256.hash(key)).prefix(32), record: nil,
            to: payment.orderID, now: clock.now())
    }

    /// A dispute's step on its order's log, as it arrives.
    func logDispute(_ fields: [String: String], _ payment: StoredPayment, bodyHash: String) async throws {
        try await store.append(
            EventRecord(kind: .dispute, detail: Self.detail(fields), bodySHA256: bodyHash), to: payment.orderID, now: clock.now())
    }
}
