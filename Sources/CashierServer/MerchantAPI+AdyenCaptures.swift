import ApplePay
import Cashier
import CashierStore
import Foundation

/// Adyen's word on captures, after it accepted them (`received`) — or after the answer was lost,
/// when its `CAPTURE` webhook is the first word of it. A capture the card scheme
/// rejects (`CAPTURE_FAILED`, or `CAPTURE` with `success: false`) took no money, and Adyen may
/// capture it again by itself later (`CAPTURE` with `reason` "Transaction Recaptured").
///
/// A failed capture is recorded as money gone back without moving — as a void or a release is —
/// so the ledger adds up: the payment's capture becomes `failed` and one refund (reason
/// `capture failed`, requested by `adyen`, never sent to the processor) takes what was left to
/// refund; the order is `refunded` and `order.refunded` is sent. A recapture takes that refund
/// back (`order.refund_failed`, the order paid again) and the capture is `captured` once more.
/// Both are moves by compare-and-set, keyed by the payment: every copy of a webhook, at any
/// instance, finds the same record and changes nothing again.
extension MerchantAPI {
    /// The Apple Pay payment a capture's webhook is about, and what that capture was to take: found
    /// by the reference Cashier sent — `cashier_{pay_…}_capture` (all of it),
    /// `cashier_{R…}_capture` (part: that refund released the rest), or the payment's own
    /// `out_trade_no` (its automatic capture) — and checked against the payment Adyen names.
    /// - Throws: while the payment's authorisation is still in flight, so Adyen sends it again.
    private func capturedPayment(for item: ApplePay.AdyenNotification) async throws -> (payment: StoredPayment, amount: Money)? {
        var found: (StoredPayment, Money)?
        if let number = Self.recordNumber(inProcessorKey: item.merchantReference, "capture") {
            if let payment = try await store.payment(id: number) {
                found = (payment, payment.amount)
            } else if let release = try await store.refund(outRefundNo: number),
                let payment = try await store.payment(id: release.paymentID)
            {
                found = (
                    payment, Money(minorUnits: payment.amount.minorUnits - release.amount.minorUnits, currency: payment.amount.currency)
                )
            }
        } else if let payment = try await store.payment(wallet: .applePay, outTradeNo: item.merchantReference) {
            found = (payment, payment.amount)
        }
        guard let (payment, amount) = found, payment.method == .applePay else { return nil }
        if payment.status.isOpen {
            // Adyen's word can outrun the answer to the authorisation it is about: heard again later.
            throw StoreError(.busy, "payment \(payment.id) is still being authorised")
        }
        guard payment.status == .succeeded, item.originalReference == nil || item.originalReference == payment.transactionID else {
            return nil
        }
        return (payment, amount)
    }

    /// `CAPTURE` with `success: true`: usually recorded already from Adyen's `received`. When that
    /// answer was lost (the capture call ended in an error, and a release stayed pending), the
    /// webhook records it: the held payment is captured, and the release's refund done.
    func applyCaptureSuccess(_ item: ApplePay.AdyenNotification, bodyHash: String) async throws {
        guard let (payment, amount) = try await capturedPayment(for: item), payment.capture == .uncaptured else { return }
        var fields = Self.fields(of: item)
        fields["payment"] = payment.id
        guard try await sameAmount(item, amount, "the capture's", fields: fields, order: payment.orderID, bodyHash: bodyHash) else {
            return
        }
        _ = try await store.moveCapture(
            of: payment.id, from: .uncaptured, to: .captured,
            record: EventRecord(kind: .applePayCaptured, detail: Self.detail(fields), bodySHA256: bodyHash), now: clock.now())
        if let number = Self.recordNumber(inProcessorKey: item.merchantReference, "capture"),
            let release = try await store.refund(outRefundNo: number), release.status == .pending
        {
            try await finish(release, .succeeded(providerRefundID: item.pspReference))
        }
    }

    /// `CAPTURE_FAILED`, or `CAPTURE` with `success: false`.
    func applyCaptureFailure(_ item: ApplePay.AdyenNotification, bodyHash: String) async throws {
        guard let (payment, amount) = try await capturedPayment(for: item) else { return }
        var fields = Self.fields(of: item)
        fields["payment"] = payment.id
        guard try await sameAmount(item, amount, "the capture's", fields: fields, order: payment.orderID, bodyHash: bodyHash) else {
            return
        }
        let number = Self.captureFailureNumber(payment)
        if try await store.refund(outRefundNo: number)?.status == .failed {
            return  // Adyen captured it again before this copy of the failure arrived: nothing moves.
        }
        // The capture first (held, captured or automatic → failed), so no refund is asked of Adyen for it meanwhile.
        try await moveCapture(
            of: payment, to: .failed,
            record: EventRecord(kind: .applePayCaptureFailed, detail: Self.detail(fields), bodySHA256: bodyHash))
        let back: StoredRefund
        do {
            back = try await reserveCaptureFailure(of: payment)
        } catch let error as StoreError where error.code == .limitExceeded {
            return  // all of it was already refunded or being refunded
        }
        try await finish(back, .succeeded(providerRefundID: item.pspReference))
    }

    /// `CAPTURE` with `reason` "Transaction Recaptured" (or "Auto-recaptured").
    func applyRecapture(_ item: ApplePay.AdyenNotification, bodyHash: String) async throws {
        guard let (payment, amount) = try await capturedPayment(for: item) else { return }
        var fields = Self.fields(of: item)
        fields["payment"] = payment.id
        fields["recaptured"] = "true"
        guard try await sameAmount(item, amount, "the capture's", fields: fields, order: payment.orderID, bodyHash: bodyHash) else {
            return
        }
        // The capture first, the money after it (as for a failure): whoever reads the order paid
        // again reads the payment captured.
        try await moveCapture(
            of: payment, to: .captured, record: EventRecord(kind: .applePayCaptured, detail: Self.detail(fields), bodySHA256: bodyHash))
        // When the recapture arrived before the failure it mends (Adyen retried that one), the failure's
        // refund is made already taken back, so the failure finds it and moves nothing.
        try await takeBack(
            payment, nil, number: Self.captureFailureNumber(payment), reason: "capture failed", by: Self.adyenActor,
            why: "Adyen captured it after all (\(item.reason ?? "recaptured"))")
    }

    /// Reserves the refund that records the payment's failed capture: all that is left to refund,
    /// under the payment's one number for it (an earlier reservation is found, not repeated).
    private func reserveCaptureFailure(of payment: StoredPayment) async throws -> StoredRefund {
        try await reserveRecord(of: payment, nil, number: Self.captureFailureNumber(payment), reason: "capture failed", by: Self.adyenActor)
    }

    /// Moves the payment's capture to `to` from whatever it is (a void stays a void), once.
    private func moveCapture(of payment: StoredPayment, to: CaptureState, record: EventRecord) async throws {
        var current = payment.capture
        for _ in 0..<8 {
            guard current != to, current != .voided else { return }
            if try await store.moveCapture(of: payment.id, from: current, to: to, record: record, now: clock.now()) != nil { return }
            current = try await store.payment(id: payment.id)?.capture  // another move came first: look again
        }
        throw StoreError(.busy, "payment \(payment.id)'s capture kept changing underneath")
    }
}
