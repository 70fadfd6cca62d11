import Cashier
import CashierStore
import Foundation

/// A processor's word on captures, after it accepted them (Adyen's `received`) — or after the
/// answer was lost, when its `CAPTURE` webhook is the first word of it. A capture the card scheme
/// rejects (`CAPTURE_FAILED`, or `CAPTURE` with `success: false`) took no money, and Adyen may
/// capture it again by itself later (`CAPTURE` with `reason` "Transaction Recaptured").
///
/// A failed capture is recorded as money gone back without moving — as a void or a release is —
/// so the ledger adds up: the payment's capture becomes `failed` and one refund (reason
/// `capture failed`, requested by the processor, never sent to it) takes what was left to
/// refund; the order is `refunded` and `order.refunded` is sent. A recapture takes that refund
/// back (`order.refund_failed`, the order paid again) and the capture is `captured` once more.
/// Both are moves by compare-and-set, keyed by the payment: every copy of a webhook, at any
/// instance, finds the same record and changes nothing again.
extension EventApplier {
    /// The number of the refund that records a payment's failed capture (what the capture was to
    /// take, gone back without moving): one per payment, so every copy of the failure finds it.
    static func captureFailureNumber(_ payment: StoredPayment) -> String {
        RefundService.derivedNumber("capture failed", payment.id)
    }

    func apply(_ report: CaptureReport, bodyHash: String) async throws {
        switch report.kind {
        case .succeeded: try await applyCaptureSuccess(report, bodyHash: bodyHash)
        case .failed: try await applyCaptureFailure(report, bodyHash: bodyHash)
        case .recaptured(let reason): try await applyRecapture(report, reason: reason, bodyHash: bodyHash)
        }
    }

    /// The Apple Pay payment a capture's word is about, and what that capture was to take: found
    /// by the reference Cashier sent — `cashier_{pay_…}_capture` (all of it),
    /// `cashier_{R…}_capture` (part: that refund released the rest), or the payment's own
    /// `out_trade_no` (its automatic capture) — and checked against the payment the word names.
    /// - Throws: while the payment's authorisation is still in flight, so the processor sends it again.
    private func capturedPayment(for report: CaptureReport) async throws -> (payment: StoredPayment, amount: Money)? {
        var found: (StoredPayment, Money)?
        if let number = OperationKey.recordNumber(in: report.merchantReference, "capture") {
            if let payment = try await store.payment(id: number) {
                found = (payment, payment.amount)
            } else if let release = try await store.refund(outRefundNo: number),
                let payment = try await store.payment(id: release.paymentID)
            {
                found = (
                    payment, Money(minorUnits: payment.amount.minorUnits - release.amount.minorUnits, currency: payment.amount.currency)
                )
            }
        } else if let payment = try await store.payment(wallet: .applePay, outTradeNo: report.merchantReference) {
            found = (payment, payment.amount)
        }
        guard let (payment, amount) = found, payment.method == .applePay else { return nil }
        if payment.status.isOpen {
            // The processor's word can outrun the answer to the authorisation it is about: heard again later.
            throw StoreError(.busy, "payment \(payment.id) is still being authorised")
        }
        guard payment.status == .succeeded, report.paymentReference.matches(payment.transactionID) else { return nil }
        return (payment, amount)
    }

    /// `CAPTURE` with `success: true`: usually recorded already from the processor's `received`.
    /// When that answer was lost (the capture call ended in an error, and a release stayed
    /// pending), the word records it: the held payment is captured, and the release's refund done.
    private func applyCaptureSuccess(_ report: CaptureReport, bodyHash: String) async throws {
        guard let (payment, amount) = try await capturedPayment(for: report), payment.capture == .uncaptured else { return }
        var fields = report.word.fields
        fields["payment"] = payment.id
        guard try await sameAmount(report.amount, amount, "the capture's", fields: fields, order: payment.orderID, bodyHash: bodyHash)
        else {
            return
        }
        _ = try await store.moveCapture(
            of: payment.id, from: .uncaptured, to: .captured,
            record: EventRecord(kind: .applePayCaptured, detail: Ledger.detail(fields), bodySHA256: bodyHash), now: clock.now())
        if let number = OperationKey.recordNumber(in: report.merchantReference, "capture"),
            let release = try await store.refund(outRefundNo: number), release.status == .pending
        {
            try await ledger.refunds.finish(release, .succeeded(providerRefundID: report.pspReference))
        }
    }

    /// `CAPTURE_FAILED`, or `CAPTURE` with `success: false`.
    private func applyCaptureFailure(_ report: CaptureReport, bodyHash: String) async throws {
        guard let (payment, amount) = try await capturedPayment(for: report) else { return }
        var fields = report.word.fields
        fields["payment"] = payment.id
        guard try await sameAmount(report.amount, amount, "the capture's", fields: fields, order: payment.orderID, bodyHash: bodyHash)
        else {
            return
        }
        let number = Self.captureFailureNumber(payment)
        if try await store.refund(outRefundNo: number)?.status == .failed {
            return  // captured again before this copy of the failure arrived: nothing moves.
        }
        // The capture first (held, captured or automatic → failed), so no refund is asked of the processor for it meanwhile.
        try await moveCapture(
            of: payment, to: .failed,
            record: EventRecord(kind: .applePayCaptureFailed, detail: Ledger.detail(fields), bodySHA256: bodyHash))
        let back: StoredRefund
        do {
            back = try await ledger.refunds.reserveRecord(
                of: payment, nil, number: number, reason: "capture failed", by: report.word.processor)
        } catch let error as StoreError where error.code == .limitExceeded {
            return  // all of it was already refunded or being refunded
        }
        try await ledger.refunds.finish(back, .succeeded(providerRefundID: report.pspReference))
    }

    /// `CAPTURE` with `reason` "Transaction Recaptured" (or "Auto-recaptured").
    private func applyRecapture(_ report: CaptureReport, reason: String, bodyHash: String) async throws {
        guard let (payment, amount) = try await capturedPayment(for: report) else { return }
        var fields = report.word.fields
        fields["payment"] = payment.id
        fields["recaptured"] = "true"
        guard try await sameAmount(report.amount, amount, "the capture's", fields: fields, order: payment.orderID, bodyHash: bodyHash)
        else {
            return
        }
        // The capture first, the money after it (as for a failure): whoever reads the order paid
        // again reads the payment captured.
        try await moveCapture(
            of: payment, to: .captured, record: EventRecord(kind: .applePayCaptured, detail: Ledger.detail(fields), bodySHA256: bodyHash))
        // When the recapture arrived before the failure it mends (the processor retried that one), the failure's
        // refund is made already taken back, so the failure finds it and moves nothing.
        try await ledger.refunds.takeBack(
            payment, nil, number: Self.captureFailureNumber(payment), reason: "capture failed", by: report.word.processor,
            why: "\(report.word.processor == ProcessorActor.adyen ? "Adyen" : report.word.processor) captured it after all (\(reason))")
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
