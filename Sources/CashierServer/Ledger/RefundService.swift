import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// Refunds: reserved against the payment that took the money, in the same transaction that
/// checks what is left, before the provider is asked; sent again under the same number until the
/// provider answers; a provider's word on them recorded once.
struct RefundService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// Refunds `body`'s amount (all that is left when it names none) of order `id`'s payment.
    /// - Parameters:
    ///   - idempotencyKey: the request's `Idempotency-Key`: the provider's refund number comes
    ///     from it, so a retry after a crash asks the provider for the same refund (which it never
    ///     repeats) and finds it here.
    ///   - actor: who asks, for the record: `api`, or the dashboard session that did.
    /// - Returns: the order as it is now, and the refund.
    /// - Throws: 503 `provider_unavailable` when the provider did not answer (the refund stays
    ///   reserved and is asked again), 502 `refund_failed` when it refused.
    func refund(orderID id: String, _ body: RefundBody, idempotencyKey: String?, actor: String) async throws -> RefundAnswer {
        guard let order = try await store.order(id: id) else { throw APIError.noOrder(id, forTheseCredentials: false) }
        let amount = try Self.requestedAmount(body.amount, body.amount_minor, in: order.total.currency)
        try RequestProblem.check(body.reason, bytes: RequestBounds.reasonBytes, "reason", why: "WeChat Pay's limit for refund_desc")
        if let paymentID = body.payment ?? order.settledPaymentID, let payment = try await store.payment(id: paymentID),
            payment.orderID == order.id
        {
            _ = try ledger.adapters.refunding(for: payment)  // 409 `unsupported` for a provider Cashier does not refund through
            guard payment.capture != .failed else {
                throw APIError.invalidState(
                    "payment \(payment.id)'s capture failed at the card scheme: no money moved, so there is nothing to refund")
            }
        }
        let number =
            idempotencyKey.map { "R" + Hex.encode(DigestAlgorithm.sha256.hash(id + "\n" + $0)).prefix(31) } ?? NewRefund.makeRefundNumber()
        let reservation = try await store.reserveRefund(
            NewRefund(orderID: id, paymentID: body.payment, amount: amount, outRefundNo: number, reason: body.reason, requestedBy: actor),
            now: clock.now())
        let sent = try await send(reservation.refund, of: reservation.payment)
        // As it is now: the provider's result may have arrived by notification meanwhile. The
        // order first, the refund last: a refund never comes back from failed, so one still
        // succeeded here was succeeded in everything read before it — the answer agrees with itself.
        let orderAnswer = try await ledger.orders.view(id)
        let refund = try await store.refund(id: sent.id) ?? sent
        switch refund.status {
        case .succeeded: return RefundAnswer(order: orderAnswer, refund: RefundJSON(refund))
        case .pending:
            // Reserved and sent, but the provider did not answer: the refund job finishes it.
            throw APIError(
                status: 503, code: "provider_unavailable",
                message: "the provider did not answer; refund \(refund.id) (\(refund.amount)) stays reserved and Cashier asks again "
                    + "until it is done. Retrying with the same Idempotency-Key is safe; a retry without one is another refund")
        case .failed:
            throw APIError(
                status: 502, code: "refund_failed",
                message: "the provider refused the refund: \(refund.failureReason ?? "no reason given"); nothing was refunded")
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
        if let actor = refund.requestedBy, ProcessorActor.all.contains(actor) {
            return try await finish(refund, .succeeded(providerRefundID: nil)) ?? refund
        }
        // Money held but not captured goes back by capturing less, or voiding — decided under the
        // payment's capture lock, so a capture or void at once comes before or after, never beside.
        // An authorisation that ended meanwhile (voided by another call, or lapsed at the processor)
        // took nothing: what this record was to give back is back.
        if payment.capture == .uncaptured || payment.capture == .voided {
            let captures = ledger.captures
            let released = try await captures.withCaptureLock(payment.id) { current -> StoredRefund? in
                switch current.capture {
                case .uncaptured?: return try await captures.release(refund, of: current)
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
        let adapter = try ledger.adapters.refunding(for: payment)
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
        if case .changed(_, let refund) = finished { ledger.metrics.increment("cashier_refunds_total", ["status": refund.status.rawValue]) }
        return finished.refund
    }

    /// Reserves `amount` of the payment to go back and sends it (a capture's release, a void).
    func giveBack(_ amount: Money, of payment: StoredPayment, reason: String, actor: String) async throws {
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
}
