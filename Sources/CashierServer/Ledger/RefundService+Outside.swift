import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// Money a provider or processor moved by itself, recorded so the order's books follow it: a
/// refund made in its console or dashboard (WeChat Pay's merchant platform, Alipay's merchant
/// center, Stripe's Dashboard, Adyen's Customer Area), a chargeback, a failed capture. Each is a
/// refund record under a number derived from the provider's own reference, requested by the
/// provider (``ProcessorActor``) and so never sent to anyone; every copy of the word, at any
/// instance, finds the one record it made.
extension RefundService {
    /// A refund number derived from what a processor's word is about (its kind, then the ids that
    /// name it), so every copy of the word, at any instance, finds the one record it made.
    static func derivedNumber(_ parts: String...) -> String {
        "R" + Hex.encode(DigestAlgorithm.sha256.hash(parts.joined(separator: "\n"))).prefix(31)
    }

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
        let fields = notApplied(fields, "the refund names no amount in \(payment.amount.currency.code)", of: payment, reason: "no_amount")
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

    /// A refund made in WeChat Pay's or Alipay's console, reported by its notification (a refund
    /// number that is not one of Cashier's): recorded under the provider's own number — reason
    /// `refunded at WeChat Pay` or `refunded at Alipay` —, once however many copies arrive at
    /// however many instances. WeChat's notification names the refund's amount; Alipay's names only
    /// the total refunded so far, so Alipay is asked for the refund by its number
    /// (``PaymentAdapter/consoleRefundAmount(_:of:)``). A refund WeChat closed or could not pay
    /// (`REFUNDCLOSE`, `CHANGE`) moves nothing, and leaves its number failed so that no success can
    /// follow it.
    /// - Returns: whether the refund's word was taken up (and logged on the order): `false` when it
    /// is not a paid WeChat or Alipay payment's, or its amount is not known.
    func recordConsoleRefund(
        _ report: RefundReport, of payment: StoredPayment, adapter: any Refunding, fields: [String: String], bodyHash: String
    ) async throws -> Bool {
        let wallet = payment.method.wallet
        guard payment.status == .succeeded, wallet == .wechat || wallet == .alipay else { return false }
        let (actor, reason) =
            wallet == .wechat ? (ProcessorActor.wechat, "refunded at WeChat Pay") : (ProcessorActor.alipay, "refunded at Alipay")
        var amount = report.amountMinor.map { Money(minorUnits: $0, currency: payment.amount.currency) }
        if amount == nil, case .succeeded = report.state {
            amount = try await adapter.consoleRefundAmount(report.outRefundNo, of: payment)
        }
        guard let amount, amount.isPositive, amount.currency == payment.amount.currency else { return false }
        var state = report.state
        if case .succeeded(nil) = state { state = .succeeded(providerRefundID: report.outRefundNo) }
        try await recordOutsideRefund(
            payment, amount, number: report.outRefundNo, reason: reason, by: actor, state: state, fields: fields, bodyHash: bodyHash)
        return true
    }

    /// `fields`, marked as a verified word that money moved which the books do not take (`why`:
    /// more than is left of the payment, no amount in its currency), and counted for `/metrics` in
    /// `cashier_reports_not_applied_total` by provider and `reason` (`more_than_left`,
    /// `no_amount`). The money moved at the provider all the same: an alert on the counter sends
    /// the merchant to the order's log, and to the provider, to settle it.
    func notApplied(_ fields: [String: String], _ why: String, of payment: StoredPayment, reason: String) -> [String: String] {
        ledger.metrics.increment("cashier_reports_not_applied_total", ["provider": payment.provider.rawValue, "reason": reason])
        var fields = fields
        fields["applied"] = "no: \(why)"
        return fields
    }

    /// A provider's word on a refund on its order's log, as it arrives.
    func logRefundEvent(_ fields: [String: String], _ payment: StoredPayment, bodyHash: String?) async throws {
        try await store.append(
            EventRecord(kind: .refundNotification, detail: Ledger.detail(fields), bodySHA256: bodyHash), to: payment.orderID,
            now: clock.now()
        )
    }
}
