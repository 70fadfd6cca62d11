import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// What a processor's dispute does to the books, whichever processor reports it (Adyen's
/// `CHARGEBACK`, Stripe's `charge.dispute.funds_withdrawn`): the amount taken back from the
/// merchant is recorded as money gone back — a refund with reason `chargeback`, requested by the
/// processor, asked of no one — and a dispute won takes that record back. Each record's number
/// comes from the dispute's reference and the step, so every copy of a webhook, at any instance,
/// finds the same record and moves nothing again. The merchant hears of each dispute once
/// (`order.disputed`) and answers it at the processor.
struct Disputes: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }

    /// The number of the record a dispute's step makes (a reversal finds its chargeback's): one per dispute and step.
    static func number(_ dispute: String, _ event: String) -> String {
        RefundService.derivedNumber("dispute", event, dispute)
    }

    /// Records `amount` of `payment` taken back by a dispute (`reference`: the processor's word for
    /// it), once; order.refunded follows. More than is left of the payment (it was refunded
    /// meanwhile) is logged on the order and not recorded: the merchant's to settle with the processor.
    func recordChargeback(
        _ payment: StoredPayment, _ amount: Money, number: String, reason: String, by actor: String, reference: String,
        fields: [String: String], bodyHash: String
    ) async throws {
        let refunds = ledger.refunds
        let record: StoredRefund
        do {
            record = try await refunds.reserveRecord(of: payment, amount, number: number, reason: reason, by: actor)
        } catch let error as StoreError where error.code == .limitExceeded {
            let fields = refunds.notApplied(fields, error.message, of: payment, reason: "more_than_left")
            return try await log(fields, payment, bodyHash: bodyHash)
        }
        // A reversal that came first left the record failed: nothing moves then.
        try await refunds.finish(record, .succeeded(providerRefundID: reference))
    }

    /// Tells the merchant a dispute opened against `payment` (`order.disputed`, with the order, the
    /// payment and the dispute): queued once per dispute, however many of the processor's words say
    /// so at however many instances — its event id comes from the processor and the dispute. (The
    /// words themselves are logged where they are handled.)
    func announce(_ dispute: DisputeJSON, of payment: StoredPayment) async throws {
        let key = ["order.disputed", dispute.processor, dispute.id].joined(separator: "\n")
        try await store.announce(
            "order.disputed", dispute: dispute, eventID: "evt_" + Hex.encode(DigestAlgorithm.sha256.hash(key)).prefix(32), record: nil,
            to: payment.orderID, now: ledger.clock.now())
    }

    /// A dispute's step on its order's log, as it arrives.
    func log(_ fields: [String: String], _ payment: StoredPayment, bodyHash: String) async throws {
        try await store.append(
            EventRecord(kind: .dispute, detail: Ledger.detail(fields), bodySHA256: bodyHash), to: payment.orderID,
            now: ledger.clock.now())
    }
}
