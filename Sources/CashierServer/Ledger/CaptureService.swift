import ApplePay
import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// Card payments authorised without capture (Apple Pay with `"capture": "manual"`): capture all
/// the money or part of it, or void it. Money that goes back without ever moving is recorded as a
/// refund (reason `released at capture` or `voided`), reserved against the payment like any
/// refund, so the ledger adds up whatever the processor was asked. Races (a capture, a void and
/// refunds at once) are decided under the payment's capture lock (``withCaptureLock(_:wait:_:)``),
/// one call at a time across instances: Adyen answers a capture and a cancel of one payment both
/// `received` and refuses one later, so the processor cannot be left to decide them.
struct CaptureService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// Captures what `body` asks of order `id`'s held payment (all of it when it names no amount;
    /// the rest is released). - Returns: the order as it is now.
    func capture(_ id: String, _ body: CaptureBody, by actor: String) async throws -> OrderJSON {
        let (order, payment) = try await uncaptured(id, body.payment)
        let amount = try RefundService.requestedAmount(body.amount, body.amount_minor, in: order.total.currency) ?? payment.amount
        guard amount.minorUnits <= payment.amount.minorUnits else {
            throw RequestProblem.unprocessable("capture \(amount) is more than the \(payment.amount) authorised")
        }
        if amount == payment.amount {
            try await captureAll(payment)
        } else {
            let released = Money(minorUnits: payment.amount.minorUnits - amount.minorUnits, currency: amount.currency)
            try await ledger.refunds.giveBack(released, of: payment, reason: "released at capture", actor: actor)
            if try await store.payment(id: payment.id)?.capture == .voided {
                // The processor refused to capture the rest: its authorisation had ended (``release(_:of:)``).
                throw StoreError(
                    .illegalTransition,
                    "payment \(payment.id)'s authorisation ended at the processor before this capture (it lapsed or was "
                        + "cancelled there): nothing was captured, and what was held is recorded as gone back")
            }
        }
        return try await ledger.orders.view(id)
    }

    /// Voids order `id`'s held payment: all of it goes back. - Returns: the order as it is now.
    func void(_ id: String, payment paymentID: String?, by actor: String) async throws -> OrderJSON {
        let (_, payment) = try await uncaptured(id, paymentID)
        try await ledger.refunds.giveBack(payment.amount, of: payment, reason: "voided", actor: actor)
        return try await ledger.orders.view(id)
    }

    /// The order and its payment awaiting capture. - Throws: 404/409 as ``StoreError``.
    func uncaptured(_ id: String, _ paymentID: String?) async throws -> (StoredOrder, StoredPayment) {
        guard let order = try await store.order(id: id) else { throw StoreError(.notFound, "no order \(id)") }
        guard let number = paymentID ?? order.settledPaymentID, let payment = try await store.payment(id: number),
            payment.orderID == order.id
        else { throw StoreError(.illegalTransition, "order \(id) has no authorised payment to capture or void") }
        try Self.requireUncaptured(payment)
        return (order, payment)
    }

    /// - Throws: ``StoreError`` (409) unless the payment is an authorisation awaiting capture.
    static func requireUncaptured(_ payment: StoredPayment) throws {
        if payment.capture == .uncaptured && payment.status == .succeeded { return }
        let state =
            switch payment.capture {
            case .failed: "captured and its capture failed at the card scheme"
            case let other?: other.rawValue
            case nil: "captured as it was paid"
            }
        throw StoreError(.illegalTransition, "payment \(payment.id) is \(state): only an uncaptured authorisation is captured or voided")
    }

    /// Captures the whole authorisation.
    private func captureAll(_ payment: StoredPayment) async throws {
        guard let processor = ledger.adapters.capturing(for: payment), let reference = payment.transactionID else {
            throw StoreError(.illegalTransition, "payment \(payment.id) has no processor to capture it")
        }
        let ended: (reason: String, actor: String)?? = try await withCaptureLock(payment.id) { current in
            try Self.requireUncaptured(current)  // a void or a release came first
            switch try await processor.capture(payment, amount: payment.amount, key: .payment(payment, "capture")) {
            case .succeeded(let id), .pending(let id):
                _ = try await store.moveCapture(
                    of: payment.id, from: .uncaptured, to: .captured,
                    record: EventRecord(
                        kind: .applePayCaptured,
                        detail: Ledger.detail(["payment": payment.id, "amount": payment.amount.decimalString, "processor_reference": id])),
                    now: clock.now())
                return nil
            case .refused(let reason):
                guard let lapse = try await endedAuthorization(of: current, reference, processor: processor) else {
                    throw StoreError(.illegalTransition, "the processor refused the capture: \(reason)")
                }
                return lapse
            }
        }
        guard let ended else { throw StoreError(.busy, "another capture or void of payment \(payment.id) is under way: try again") }
        if let (reason, actor) = ended {
            try await ledger.lapses.record(of: payment, by: actor, reason: reason, reference: reference)
            throw StoreError(
                .illegalTransition,
                "the processor no longer holds payment \(payment.id)'s authorisation (\(reason)): nothing was captured, and what "
                    + "was held is recorded as gone back (order refunded)")
        }
    }

    /// Under the payment's capture lock, after the processor refused a capture of it: whether the
    /// processor still holds its authorisation. One that lapsed, or was cancelled there, while its
    /// webhook never came (or has not come yet) ends here as the webhook would end it: the capture
    /// becomes `voided`. - Returns: the reason the lapse is recorded with and who it is recorded
    /// as asked by (the processor); `nil` while the processor holds it, or cannot say.
    private func endedAuthorization(of payment: StoredPayment, _ reference: String, processor: any Capturing) async throws
        -> (reason: String, actor: String)?
    {
        guard let end = (try? await processor.authorizationEnded(payment)) ?? nil else { return nil }
        let reason = Lapses.reason(end)
        _ = try await ledger.lapses.endAuthorization(
            of: payment.id,
            fields: ["payment": payment.id, "processor_reference": reference, "reason": reason, "found": "the processor refused a capture"])
        return (reason, end.processor.lowercased())
    }

    /// How long a capture lock lasts at most (its holder gives it up when done): longer than a
    /// processor call with its retries, so a holder that died frees it in time.
    static let captureLockLease: TimeInterval = 120

    /// Runs `body` with the payment as it is now, holding its capture lock: a lease in the store,
    /// so across instances one call at a time decides how held money moves (a capture, a void, a
    /// release). The processor cannot be left to refuse the second of two at once: Adyen answers
    /// every capture and cancel `received`, and says later which one it did.
    /// - Returns: `nil` when another holds the lock for longer than `wait`.
    func withCaptureLock<T>(_ paymentID: String, wait: Duration = .seconds(10), _ body: (StoredPayment) async throws -> T)
        async throws -> T?
    {
        let job = "capture:" + paymentID
        let holder = RandomText.hex(byteCount: 8)
        let deadline = ContinuousClock.now + wait
        while try await !store.acquireLease(job, holder: holder, now: clock.now(), duration: Self.captureLockLease) {
            guard ContinuousClock.now < deadline else { return nil }
            try await Task.sleep(for: .milliseconds(20))
        }
        do {
            guard let payment = try await store.payment(id: paymentID) else { throw StoreError(.notFound, "no payment \(paymentID)") }
            let result = try await body(payment)
            try? await store.releaseLease(job, holder: holder)
            return result
        } catch {
            try? await store.releaseLease(job, holder: holder)
            throw error
        }
    }

    /// Gives back money that was authorised but not captured: all of it by a void, part of it by
    /// capturing the rest. Idempotent by the refund's number, so the refund job can send it again.
    func release(_ refund: StoredRefund, of payment: StoredPayment) async throws -> StoredRefund {
        let refunds = ledger.refunds
        guard let processor = ledger.adapters.capturing(for: payment), let reference = payment.transactionID else {
            return try await refunds.finish(refund, .failed("payment \(payment.id) has no processor to release it")) ?? refund
        }
        let voiding = refund.amount == payment.amount
        let kept = Money(minorUnits: payment.amount.minorUnits - refund.amount.minorUnits, currency: payment.amount.currency)
        let operation: ProviderOperation
        do {
            operation =
                voiding
                ? try await processor.void(payment, key: .refund(refund, "void"))
                : try await processor.capture(payment, amount: kept, key: .refund(refund, "capture"))
        } catch let error as PaymentError where error.code == .transport {
            return refund  // unknown: stays reserved, sent again under the same key
        }
        switch operation {
        case .succeeded(let id), .pending(let id):
            let record = EventRecord(
                kind: voiding ? .applePayVoided : .applePayCaptured,
                detail: Ledger.detail(["payment": payment.id, "amount": kept.decimalString, "released": refund.amount.decimalString]))
            _ = try await store.moveCapture(
                of: payment.id, from: .uncaptured, to: voiding ? .voided : .captured, record: record, now: clock.now())
            return try await refunds.finish(refund, .succeeded(providerRefundID: id)) ?? refund
        case .refused(let reason):
            // Capturing less refused because the authorisation ended meanwhile: nothing is captured,
            // all of it is back — this record's part now, the rest as the lapse's.
            if !voiding, let lapse = try await endedAuthorization(of: payment, reference, processor: processor) {
                let released = try await refunds.finish(refund, .succeeded(providerRefundID: nil)) ?? refund
                try await ledger.lapses.record(of: payment, by: lapse.actor, reason: lapse.reason, reference: reference)
                return released
            }
            return try await refunds.finish(refund, .failed(reason)) ?? refund
        }
    }
}
