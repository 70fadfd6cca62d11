import ApplePay
import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// Card payments authorised without capture (Apple Pay with `"capture": "manual"`) — secret key
/// only. `POST /v1/orders/{id}/capture` takes all the money or part of it, `POST /v1/orders/{id}/void`
/// releases it. Money that goes back without ever moving is recorded as a refund (reason
/// `released at capture` or `voided`), reserved against the payment like any refund, so the
/// ledger adds up whatever the processor was asked; the processor decides races (a capture and
/// a void at once: one of them is refused there, and the record follows its answer).
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
        guard payment.capture == .uncaptured, payment.status == .succeeded else {
            let state =
                switch payment.capture {
                case .failed: "captured and its capture failed at the card scheme"
                case let other?: other.rawValue
                case nil: "captured as it was paid"
                }
            throw StoreError(
                .illegalTransition, "payment \(payment.id) is \(state): only an uncaptured authorisation is captured or voided")
        }
        return (order, payment)
    }

    /// Captures the whole authorisation.
    private func captureAll(_ payment: StoredPayment) async throws {
        guard let applePay = configuration.applePay, let reference = payment.transactionID else {
            throw StoreError(.illegalTransition, "payment \(payment.id) has no processor to capture it")
        }
        switch try await applePay.processor.capture(
            reference, amount: payment.amount, idempotencyKey: Self.processorKey(payment, "capture"))
        {
        case .succeeded(let id), .pending(let id):
            _ = try await store.moveCapture(
                of: payment.id, from: .uncaptured, to: .captured,
                record: EventRecord(
                    kind: .applePayCaptured,
                    detail: Self.detail(["payment": payment.id, "amount": payment.amount.decimalString, "processor_reference": id])),
                now: clock.now())
        case .refused(let reason):
            throw StoreError(.illegalTransition, "the processor refused the capture: \(reason)")
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
            return try await finish(refund, .failed(reason)) ?? refund
        }
    }
}
