import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// Refunds — secret key only: reserved against the payment that took the money, in the same
/// transaction that checks what is left, before the provider is asked.
extension MerchantAPI {
    struct RefundBody: Decodable {
        let amount: String?
        let amount_minor: WholeNumber?
        let reason: String?
        /// The payment to refund (`pay_…`); default: the one that paid the order.
        let payment: String?
    }

    /// The answer to a refund: the order (with its payments and refunds) and the refund itself.
    struct RefundAnswer: Encodable {
        let order: OrderJSON
        let refund: RefundJSON

        func encode(to encoder: any Encoder) throws {
            // The order's fields at the top level (as before), the refund beside them.
            try order.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(refund, forKey: .refund)
        }

        enum Key: String, CodingKey { case refund }
    }

    /// `POST /v1/orders/{id}/refunds`.
    /// - Parameter actor: who asks, for the record: `api`, or the dashboard session that did.
    func refund(_ request: HTTPServerRequest, id: String, actor: String = "api") async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        if let refusal = await foreignOrder(id, for: identity) { return refusal }
        // A retried refund with its Idempotency-Key answers as the first did and refunds nothing more.
        return await idempotent(request, scope: "refund:\(id):") { await self.performRefund(request, id: id, actor: actor) }
    }

    private func performRefund(_ request: HTTPServerRequest, id: String, actor: String) async -> HTTPServerResponse {
        do {
            let body = try RequestProblem.decode(
                RefundBody.self, from: request,
                expected: #"{"amount":"1.00"} or {"amount_minor":100}, an optional reason and payment (pay_…)"#)
            guard let order = try await store.order(id: id) else {
                return .error(status: 404, code: "not_found", message: "no order \(id)")
            }
            let amount = try Self.requestedAmount(body.amount, body.amount_minor, in: order.total.currency)
            try RequestProblem.check(body.reason, bytes: RequestBounds.reasonBytes, "reason", why: "WeChat Pay's limit for refund_desc")
            if let paymentID = body.payment ?? order.settledPaymentID, let payment = try await store.payment(id: paymentID),
                payment.orderID == order.id
            {
                guard try adapters.adapter(for: payment).canRefund else {
                    return .error(
                        status: 409, code: "unsupported",
                        message: "\(payment.provider.rawValue) payments are refunded through your payment processor")
                }
                guard payment.capture != .failed else {
                    return .error(
                        status: 409, code: "invalid_state",
                        message: "payment \(payment.id)'s capture failed at the card scheme: no money moved, so there is nothing to refund")
                }
            }
            // With an Idempotency-Key the provider's refund number comes from it: a retry after a
            // crash asks the provider for the same refund (which it never repeats) and finds it here.
            let number =
                request.headers["Idempotency-Key"].map { "R" + Hex.encode(DigestAlgorithm.sha256.hash(id + "\n" + $0)).prefix(31) }
                ?? NewRefund.makeRefundNumber()
            let reservation = try await store.reserveRefund(
                NewRefund(
                    orderID: id, paymentID: body.payment, amount: amount, outRefundNo: number, reason: body.reason, requestedBy: actor),
                now: clock.now())
            let sent = try await send(reservation.refund, of: reservation.payment)
            // As it is now: the provider's result may have arrived by notification meanwhile. The
            // order first, the refund last: a refund never comes back from failed, so one still
            // succeeded here was succeeded in everything read before it — the answer agrees with itself.
            guard let current = try await store.order(id: id) else { throw StoreError(.notFound, "no order \(id)") }
            let orderAnswer = try await orderJSON(current, includeSecret: true)
            let refund = try await store.refund(id: sent.id) ?? sent
            let json = RefundAnswer(order: orderAnswer, refund: RefundJSON(refund))
            switch refund.status {
            case .succeeded: return .json(json)
            case .pending:
                // Reserved and sent, but the provider did not answer: the refund job finishes it.
                return .error(
                    status: 503, code: "provider_unavailable",
                    message: "the provider did not answer; refund \(refund.id) (\(refund.amount)) stays reserved and Cashier asks again "
                        + "until it is done. Retrying with the same Idempotency-Key is safe; a retry without one is another refund")
            case .failed:
                return .error(
                    status: 502, code: "refund_failed",
                    message: "the provider refused the refund: \(refund.failureReason ?? "no reason given"); nothing was refunded")
            }
        } catch {
            return Self.failure(error)
        }
    }

    /// `amount` (a decimal string) or `amount_minor`, or neither (`nil`: all that is left).
    /// - Throws: ``RequestProblem`` saying what is wrong.
    static func requestedAmount(_ decimal: String?, _ minor: WholeNumber?, in currency: Currency) throws -> Money? {
        switch (decimal, minor) {
        case (let text?, nil):
            guard RequestBounds.isDecimal(text) else { throw RequestProblem("amount '\(text)' is not a decimal amount (e.g. \"1.00\")") }
            guard let parsed = try? Money(decimal: text, currency: currency), RequestBounds.refundMinorUnits.contains(parsed.minorUnits)
            else {
                throw RequestProblem.unprocessable(
                    "amount '\(text)' is not a decimal amount in \(currency.code) more than zero (e.g. \"1.00\")")
            }
            return parsed
        case (nil, let minor?):
            try RequestProblem.check(minor.value, in: RequestBounds.refundMinorUnits, "amount_minor")
            return Money(minorUnits: minor.value, currency: currency)
        case (nil, nil): return nil
        default: throw RequestProblem("give amount or amount_minor, not both")
        }
    }

    /// Asks the provider for a reserved refund (again, if it is still pending: the provider
    /// never refunds one `out_refund_no` twice) and records its answer.
    /// - Returns: the refund as it is now; still `pending` when the provider's answer was lost.
    func send(_ refund: StoredRefund, of payment: StoredPayment) async throws -> StoredRefund {
        guard refund.status == .pending else { return refund }
        // A processor's own word of money gone back (a failed capture, a chargeback) is asked of no one (a
        // crash came between its reservation and its end): it is done already, there.
        if let actor = refund.requestedBy, Self.processorActors.contains(actor) {
            return try await finish(refund, .succeeded(providerRefundID: nil)) ?? refund
        }
        // Money held but not captured goes back by capturing less, or voiding — decided under the
        // payment's capture lock, so a capture or void at once comes before or after, never beside.
        // An authorisation that ended meanwhile (voided by another call, or lapsed at the processor)
        // took nothing: what this record was to give back is back.
        if payment.capture == .uncaptured || payment.capture == .voided {
            let released = try await withCaptureLock(payment.id) { current -> StoredRefund? in
                switch current.capture {
                case .uncaptured?: return try await self.release(refund, of: current)
                case .voided?: return try await self.finish(refund, .succeeded(providerRefundID: nil)) ?? refund
                default: return nil
                }
            }
            switch released {
            case let released??: return released
            case .some(nil): break  // captured meanwhile: refunded as usual below
            case nil: return refund  // another call is deciding: stays reserved, and is asked again
            }
        }
        let adapter = try adapters.adapter(for: payment)
        let state: ProviderRefundState
        do {
            state = try await adapter.refund(refund, of: payment)
        } catch let error as PaymentError where error.code != .invalidRequest {
            return refund  // unknown outcome: stays reserved; asked again with the same number
        }
        return try await finish(refund, state, accepted: !adapter.refundAnswerIsFinal) ?? refund
    }

    /// Records a provider's word on a refund: the answer to the refund call (`accepted`: a
    /// success there is counted, and confirmed later), or its final word (a notification, a query).
    /// - Returns: the refund afterwards, `nil` when the word settles nothing (still processing).
    @discardableResult
    func finish(_ refund: StoredRefund, _ state: ProviderRefundState, accepted: Bool = false) async throws -> StoredRefund? {
        let outcome: RefundOutcome
        switch state {
        case .succeeded(let providerRefundID):
            outcome = accepted ? .succeeded(providerRefundID: providerRefundID) : .confirmed(providerRefundID: providerRefundID)
        case .failed(let reason): outcome = .failed(reason: reason)
        case .notFound: outcome = .failed(reason: "the provider has no completed refund under \(refund.outRefundNo)")
        case .processing: return nil
        }
        let finished = try await store.finishRefund(refund.id, outcome: outcome, now: clock.now())
        if case .changed(_, let refund) = finished { metrics.increment("cashier_refunds_total", ["status": refund.status.rawValue]) }
        return finished.refund
    }
}
