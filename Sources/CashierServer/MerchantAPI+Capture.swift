import ApplePay
import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// Card payments authorised without capture (Apple Pay with `"capture": "manual"`) — secret key
/// only. `POST /v1/orders/{id}/capture` takes all the money or part of it, `POST /v1/orders/{id}/void`
/// releases it. Money that goes back without ever moving is recorded as a refund (reason
/// `released at capture` or `voided`), reserved against the payment like any refund, so the
/// ledger adds up whatever the processor was asked. Races (a capture, a void and refunds at
/// once) are decided under the payment's capture lock (``withCaptureLock(_:wait:_:)``), one call
/// at a time across instances: Adyen answers a capture and a cancel of one payment both
/// `received` and refuses one later, so the processor cannot be left to decide them.
extension MerchantAPI {
    struct CaptureBody: Decodable {
        /// What to capture (the rest is released); default: all of it.
        let amount: String?
        let amount_minor: WholeNumber?
        /// The payment (`pay_…`); default: the one that paid the order.
        let payment: String?
    }

    /// `POST /v1/orders/{id}/capture`.
    func capture(_ request: HTTPServerRequest, id: String, actor: String = "api") async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        if let refusal = await foreignOrder(id, for: identity) { return refusal }
        return await idempotent(request, scope: "capture:\(id):") {
            do {
                let body = try RequestProblem.decode(
                    CaptureBody.self, from: request, expected: #"{} to capture all, or {"amount":"8.00"} / {"amount_minor":800}"#,
                    emptyIsObject: true)
                let (order, payment) = try await uncaptured(id, body.payment)
                let amount = try Self.requestedAmount(body.amount, body.amount_minor, in: order.total.currency) ?? payment.amount
                guard amount.minorUnits <= payment.amount.minorUnits else {
                    throw RequestProblem.unprocessable("capture \(amount) is more than the \(payment.amount) authorised")
                }
                if amount == payment.amount {
                    try await captureAll(payment)
                } else {
                    let released = Money(minorUnits: payment.amount.minorUnits - amount.minorUnits, currency: amount.currency)
                    try await giveBack(released, of: payment, reason: "released at capture", actor: actor)
                    if try await store.payment(id: payment.id)?.capture == .voided {
                        // The processor refused to capture the rest: its authorisation had ended (``release(_:of:)``).
                        throw StoreError(
                            .illegalTransition,
                            "payment \(payment.id)'s authorisation ended at the processor before this capture (it lapsed or was "
                                + "cancelled there): nothing was captured, and what was held is recorded as gone back")
                    }
                }
                return .json(try await self.orderJSON(try await self.store.order(id: id) ?? order, includeSecret: true))
            } catch {
                return Self.failure(error)
            }
        }
    }

    /// `POST /v1/orders/{id}/void`.
    func void(_ request: HTTPServerRequest, id: String, actor: String = "api") async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        if let refusal = await foreignOrder(id, for: identity) { return refusal }
        return await idempotent(request, scope: "void:\(id):") {
            do {
                let body = try RequestProblem.decode(
                    CaptureBody.self, from: request, expected: #"{} or {"payment":"pay_…"}"#, emptyIsObject: true)
                let (order, payment) = try await uncaptured(id, body.payment)
                try await giveBack(payment.amount, of: payment, reason: "voided", actor: actor)
                return .json(try await self.orderJSON(try await self.store.order(id: id) ?? order, includeSecret: true))
            } catch {
                return Self.failure(error)
            }
        }
    }

    /// The order and its payment awaiting capture. - Throws: 404/409 as ``StoreError``.
    private func uncaptured(_ id: String, _ paymentID: String?) async throws -> (StoredOrder, StoredPayment) {
        guard let order = try await store.order(id: id) else { throw StoreError(.notFound, "no order \(id)") }
        guard let number = paymentID ?? order.settledPaymentID, let payment = try await store.payment(id: number),
            payment.orderID == order.id
        else { throw StoreError(.illegalTransition, "order \(id) has no authorised payment to capture or void") }
        try Self.requireUncaptured(payment)
        return (order, payment)
    }

    /// - Throws: ``StoreError`` (409) unless the payment is an authorisation awaiting capture.
    private static func requireUncaptured(_ payment: StoredPayment) throws {
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
        guard let applePay = configuration.applePay, let reference = payment.transactionID else {
            throw StoreError(.illegalTransition, "payment \(payment.id) has no processor to capture it")
        }
        let ended: (reason: String, actor: String)?? = try await withCaptureLock(payment.id) { current in
            try Self.requireUncaptured(current)  // a void or a release came first
            switch try await applePay.processor.capture(
                reference, amount: payment.amount, idempotencyKey: Self.processorKey(payment, "capture"))
            {
            case .succeeded(let id), .pending(let id):
                _ = try await self.store.moveCapture(
                    of: payment.id, from: .uncaptured, to: .captured,
                    record: EventRecord(
                        kind: .applePayCaptured,
                        detail: Self.detail(["payment": payment.id, "amount": payment.amount.decimalString, "processor_reference": id])),
                    now: self.clock.now())
                return nil
            case .refused(let reason):
                guard let lapse = try await self.endedAuthorization(of: current, reference, processor: applePay.processor) else {
                    throw StoreError(.illegalTransition, "the processor refused the capture: \(reason)")
                }
                return lapse
            }
        }
        guard let ended else { throw StoreError(.busy, "another capture or void of payment \(payment.id) is under way: try again") }
        if let (reason, actor) = ended {
            try await recordLapse(of: payment, by: actor, reason: reason, reference: reference)
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
    private func endedAuthorization(of payment: StoredPayment, _ reference: String, processor: any ApplePayProcessor) async throws
        -> (reason: String, actor: String)?
    {
        guard let end = (try? await processor.authorizationEnded(reference)) ?? nil else { return nil }
        let reason = Self.lapseReason(end)
        _ = try await endAuthorization(
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

    /// Reserves `amount` of the payment to go back and sends it (the release path of ``send(_:of:)``).
    private func giveBack(_ amount: Money, of payment: StoredPayment, reason: String, actor: String) async throws {
        let reservation = try await store.reserveRefund(
            NewRefund(
                orderID: payment.orderID, paymentID: payment.id, amount: amount, outRefundNo: NewRefund.makeRefundNumber(), reason: reason,
                requestedBy: actor), now: clock.now())
        let sent = try await send(reservation.refund, of: reservation.payment)
        switch sent.status {
        case .succeeded: return
        case .pending: throw PaymentError(.transport, provider: .applePay, "the processor did not answer; Cashier asks again until it does")
        case .failed: throw StoreError(.illegalTransition, "the processor refused: \(sent.failureReason ?? "no reason given")")
        }
    }

    /// Gives back money that was authorised but not captured: all of it by a void, part of it by
    /// capturing the rest. Idempotent by the refund's number, so the refund job can send it again.
    func release(_ refund: StoredRefund, of payment: StoredPayment) async throws -> StoredRefund {
        guard let applePay = configuration.applePay, let reference = payment.transactionID else {
            return try await finish(refund, .failed("payment \(payment.id) has no processor to release it")) ?? refund
        }
        let voiding = refund.amount == payment.amount
        let kept = Money(minorUnits: payment.amount.minorUnits - refund.amount.minorUnits, currency: payment.amount.currency)
        let operation: ApplePay.ProcessorOperation
        do {
            operation =
                voiding
                ? try await applePay.processor.void(reference, idempotencyKey: Self.processorKey(refund, "void"))
                : try await applePay.processor.capture(reference, amount: kept, idempotencyKey: Self.processorKey(refund, "capture"))
        } catch let error as PaymentError where error.code == .transport {
            return refund  // unknown: stays reserved, sent again under the same key
        }
        switch operation {
        case .succeeded(let id), .pending(let id):
            let record = EventRecord(
                kind: voiding ? .applePayVoided : .applePayCaptured,
                detail: Self.detail(["payment": payment.id, "amount": kept.decimalString, "released": refund.amount.decimalString]))
            _ = try await store.moveCapture(
                of: payment.id, from: .uncaptured, to: voiding ? .voided : .captured, record: record, now: clock.now())
            return try await finish(refund, .succeeded(providerRefundID: id)) ?? refund
        case .refused(let reason):
            // Capturing less refused because the authorisation ended meanwhile: nothing is captured,
            // all of it is back — this record's part now, the rest as the lapse's.
            if !voiding, let lapse = try await endedAuthorization(of: payment, reference, processor: applePay.processor) {
                let released = try await finish(refund, .succeeded(providerRefundID: nil)) ?? refund
                try await recordLapse(of: payment, by: lapse.actor, reason: lapse.reason, reference: reference)
                return released
            }
            return try await finish(refund, .failed(reason)) ?? refund
        }
    }
}
