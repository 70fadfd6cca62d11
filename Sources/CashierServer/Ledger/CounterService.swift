import Cashier
import CashierStore
import Foundation

/// Counter payments (`wechat.barcode`, `alipay.barcode`): the till scans the payer's payment
/// code and the server collects with it, then drives the provider's wait — querying while the
/// payer confirms, answering `pending` if that takes longer than the till should wait, and
/// reversing (WeChat Pay) or cancelling (Alipay) what is still undecided when it gives up.
struct CounterService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// The counter adapter for a barcode method, once `auth_code` (its shape checked with the
    /// body, ``PaymentRequestBody/checkShape()``) has the provider's form; `nil` for every other
    /// method. - Throws: before any call, when the code is missing or is not one of that provider's.
    func collector(_ adapter: any PaymentAdapter, method: PaymentMethod, authCode: String?) throws -> (any CounterCollector)? {
        guard method.isBarcode else { return nil }
        guard let collector = adapter as? any CounterCollector else {
            throw PaymentError(.invalidRequest, "\(method.rawValue) is not available through \(adapter.provider.rawValue)")
        }
        guard let code = authCode, !code.isEmpty else {
            throw PaymentError(
                .invalidRequest, "\(method.rawValue) needs auth_code, the payment code the till scanned from the payer's phone")
        }
        // The document's shape was checked with the body (400); here the provider's own form (422).
        try collector.checkPaymentCode(code)
        return collector
    }

    /// Collects the reserved attempt: `paid` (200), `pending` (202: the server goes on asking;
    /// poll the order). - Throws: 402 `payment_failed` (refused, or given up and reversed).
    func collect(_ start: PaymentStart, with collector: any CounterCollector, request body: PaymentRequestBody) async throws
        -> PaymentService.Started
    {
        let payment = start.payment
        let began = clock.now()
        // The payer must not pay twice: the order's other open attempts are closed before any money moves.
        for old in start.superseded {
            if let payer = await ledger.payments.closeAttempt(old, reason: "superseded by \(payment.id)") {
                await ledger.payments.closeAttempt(payment, reason: "order \(payment.orderID) was paid by \(payer) first")
                throw APIError.invalidState("order \(payment.orderID) was paid by its earlier payment \(payer); nothing collected")
            }
        }
        let answer: CounterAnswer
        do {
            answer = try await collector.collect(payment, order: start.order, request: body)
        } catch let error as PaymentError where ProviderAnswer.isDefinitiveRefusal(error) || error.code == .invalidRequest {
            let reason = ProviderAnswer.words(error)
            try await store.recordPayment(
                .failed(reason: reason), of: payment.id,
                record: EventRecord(kind: .paymentFailed, detail: Ledger.detail(["reason": reason])),
                now: clock.now())
            throw Self.failure(payment, "\(collector.provider.rawValue) refused the payment code: \(reason)")
        } catch {
            answer = .unknown("no verified answer: \(error)")  // the money may have moved: ask, and reverse if undecided
        }
        var detail = ["method": payment.method.rawValue, "answer": "\(answer)"]
        if let ip = body.client_ip { detail["client_ip"] = ip }
        let started = EventRecord(kind: .paymentStarted, detail: Ledger.detail(detail))
        // Whatever the attempt's state now, the payer's code was presented: the answer below is read
        // from the store and the provider, not from this record.
        _ = try await store.recordPayment(.placed, of: payment.id, record: started, duplicate: started, now: clock.now())
        if case .paid(let amount, let transactionID) = answer {
            let record = EventRecord(
                kind: .query,
                detail: Ledger.detail(["found": "paid at the counter", "transaction_id": transactionID ?? "", "payment": payment.id]))
            _ = try await ledger.payments.recordSuccess(payment, amount: amount, transactionID: transactionID, record: record)
        }
        let settings = ledger.configuration.barcode
        if let answered = try await decided(payment, until: began.addingTimeInterval(settings.answerWithin)) {
            return try answered.get()
        }
        if settings.answerWithin >= settings.giveUpAfter {
            await giveUp(payment)
            guard let answered = try await decided(payment, until: clock.now()) else {
                throw APIError(
                    status: 503, code: "provider_unavailable", message: "payment \(payment.id) could not be reversed yet; it is retried")
            }
            return try answered.get()
        }
        // The payer is still confirming: the server keeps asking, and gives up at the deadline.
        let giveUpAt = began.addingTimeInterval(settings.giveUpAfter)
        Task { [self] in
            let outcome = (try? await decided(payment, until: giveUpAt)).flatMap { $0 }
            if outcome == nil { await giveUp(payment) }
        }
        return PaymentService.Started(json: PaymentStartJSON(counter: payment, status: "pending", api: Self.api(payment)), pending: true)
    }

    /// Asks the provider every `barcode.query_interval_seconds` until the attempt is decided or
    /// `deadline` passes. - Returns: the answer for a decided attempt (paid, or the 402 refusal),
    /// `nil` while undecided.
    func decided(_ payment: StoredPayment, until deadline: Date) async throws -> Result<PaymentService.Started, APIError>? {
        while true {
            // A notification, or another instance, may have decided it meanwhile.
            guard let current = try await store.payment(id: payment.id) else { return nil }
            switch current.status {
            case .succeeded:
                if current.refundRequired {
                    return .failure(Self.failure(current, "the order was already paid: this payment is to be refunded (refund_required)"))
                }
                return .success(.init(json: PaymentStartJSON(counter: current, status: "paid", api: Self.api(current))))
            case .failed, .closed:
                return .failure(Self.failure(current, current.failureReason ?? "the payment did not go through"))
            default: break
            }
            let now = clock.now()
            guard now < deadline else { return nil }
            try? await clock.sleep(for: .seconds(min(ledger.configuration.barcode.queryInterval, deadline.timeIntervalSince(now))))
            _ = try? await ledger.payments.ask(payment)
        }
    }

    /// Gives up on an undecided counter payment: reversed or cancelled at the provider (a paid
    /// one found on the way is recorded instead).
    func giveUp(_ payment: StoredPayment) async {
        guard let current = try? await store.payment(id: payment.id), current.status == .pending || current.status == .created else {
            return
        }
        await ledger.payments.closeAttempt(
            current, reason: "the payer did not confirm within \(Int(ledger.configuration.barcode.giveUpAfter)) s: reversed at the provider"
        )
    }

    static func failure(_ payment: StoredPayment, _ reason: String) -> APIError {
        APIError(status: 402, code: "payment_failed", message: "payment \(payment.id) failed: \(reason)")
    }

    static func api(_ payment: StoredPayment) -> String? {
        payment.method == .wechatBarcode ? "v2" : nil
    }
}
