import ApplePay
import Cashier
import CashierStore
import Foundation

/// An authorisation held for capture that ends without Cashier voiding it: it lapsed (a card's is
/// kept about seven days; Adyen's `EXPIRE`, Stripe's `payment_intent.canceled` with
/// `cancellation_reason` `automatic`) or was cancelled at the processor. No money moved, and none
/// will: the payment's capture becomes `voided` — so a capture is refused here with a clear 409
/// instead of at the processor — and what was held is recorded as gone back (a refund with reason
/// `authorisation lapsed`, requested by the processor, asked of no one); the order is refunded and
/// `order.refunded` is sent. Decided under the payment's capture lock, keyed by the payment: a void
/// or capture of Cashier's at the same moment comes before or after, and every copy of the word,
/// at any instance, moves nothing again.
struct Lapses: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }

    /// The number of the refund that records a payment's lapsed authorisation: one per payment.
    static func number(_ payment: StoredPayment) -> String {
        RefundService.derivedNumber("authorisation lapsed", payment.id)
    }

    /// The reason a lapse's record gives, whichever word brought it (the processor's webhook, or
    /// its answer when a capture was refused): the same either way, as the record is one.
    static func reason(_ end: ApplePay.AuthorizationEnd) -> String {
        end.lapsed ? "authorisation lapsed" : "cancelled at \(end.processor) (\(end.reason ?? "no reason given"))"
    }

    /// Records that the processor no longer holds `payment`'s authorisation (`reference`: its word
    /// for it). Nothing moves when Cashier captured or voided it already.
    /// - Throws: `StoreError.busy` while another capture or void holds the lock (the processor
    ///   sends its word again).
    func apply(
        _ payment: StoredPayment, by actor: String, reason: String, reference: String, fields: [String: String], bodyHash: String
    ) async throws {
        guard payment.method == .applePay, payment.status == .succeeded, payment.capture == .uncaptured || payment.capture == .voided
        else { return }
        var fields = fields
        fields["payment"] = payment.id
        if payment.capture == .uncaptured {
            // Decided under the lock; a voided capture never changes again, so copies that find it
            // voided (every copy after the first) go straight to the money without waiting for the lock.
            let decided: Bool? = try await ledger.captures.withCaptureLock(payment.id) { [fields] current in
                guard current.capture == .uncaptured else {
                    return current.capture == .voided  // captured meanwhile: the word is about money that moved after all
                }
                return try await endAuthorization(of: payment.id, fields: fields, bodyHash: bodyHash)
            }
            guard let decided else {
                throw StoreError(.busy, "another capture or void of payment \(payment.id) is under way: heard again later")
            }
            guard decided else { return }
        }
        try await record(of: payment, by: actor, reason: reason, reference: reference)
    }

    /// Under the payment's capture lock: its capture becomes `voided` (the capture first, so no
    /// capture or void is tried meanwhile; the money after it, by ``record(of:by:reason:reference:)``).
    /// - Returns: whether this call moved it.
    func endAuthorization(of paymentID: String, fields: [String: String], bodyHash: String? = nil) async throws -> Bool {
        try await store.moveCapture(
            of: paymentID, from: .uncaptured, to: .voided,
            record: EventRecord(kind: .applePayVoided, detail: Ledger.detail(fields), bodySHA256: bodyHash), now: ledger.clock.now())
            != nil
    }

    /// The money of an authorisation that ended (its capture `voided` already): what was held is
    /// recorded as gone back, once (its number is the payment's), and the order is refunded.
    func record(of payment: StoredPayment, by actor: String, reason: String, reference: String) async throws {
        let refunds = ledger.refunds
        // A void or release whose answer was lost is done too: the authorisation it was to end is gone.
        for pending in try await store.refunds(orderID: payment.orderID) where pending.paymentID == payment.id && pending.status == .pending
        {
            try await refunds.finish(pending, .succeeded(providerRefundID: nil))
        }
        let record: StoredRefund
        do {
            record = try await refunds.reserveRecord(of: payment, nil, number: Self.number(payment), reason: reason, by: actor)
        } catch let error as StoreError where error.code == .limitExceeded {
            return  // a void of Cashier's recorded all of it already
        }
        try await refunds.finish(record, .succeeded(providerRefundID: reference))
    }
}
