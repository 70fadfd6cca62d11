import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// Payment attempts: one reserved in the store, the order's other open attempts closed at their
/// providers, then the wallet's parameters; a provider's word that one was paid recorded once,
/// its amount checked; the query fallback.
struct PaymentService: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// What starting a payment came to: the wallet's parameters, or a counter payment's state
    /// (`pending` while the payer confirms: the API answers 202).
    struct Started: Sendable {
        let json: PaymentStartJSON
        var pending = false
    }

    /// Starts a payment of order `id` by `body.method` (`body.client_ip` already filled in from
    /// the request when the body gives none).
    func start(_ id: String, _ body: PaymentRequestBody, by identity: Identity) async throws -> Started {
        guard let method = PaymentMethod(rawValue: body.method) else {
            throw RequestProblem("method '\(body.method)' is not one of \(PaymentMethod.names)")
        }
        try body.checkShape()
        // A payer's payment code is collected at a counter, by the merchant's till: with the app's
        // public key and one order's secret, anyone could charge whoever's code they have seen.
        if method.isBarcode, identity.caller != .secret {
            throw RequestProblem.forbidden(
                "\(method.rawValue) collects a payer's payment code at your counter: your backend sends it with the secret key")
        }
        // Where Alipay sends the browser back (and its back button, quit_url): only a site the
        // merchant listed, never one a caller names — the signed form would carry anyone there.
        if method == .alipayWap || method == .alipayPage, let url = body.return_url {
            _ = try ledger.configuration.checkout.checkedReturnURL(url, own: ledger.publicBase)
        }
        let order = try await ledger.orders.require(identity, id: id, clientSecret: body.client_secret)
        guard !order.status.hasReceivedMoney, order.status != .closed else {
            throw APIError.invalidState("order \(id) is \(order.status.rawValue); it takes no new payment")
        }
        if let expiry = order.expiresAt, expiry <= clock.now() {
            throw APIError.invalidState("order \(id) has expired; it takes no new payment")
        }
        let adapter = try ledger.adapters.adapter(for: method, api: body.api, merchant: order.merchant)
        let counter = try ledger.counter.collector(adapter, method: method, authCode: body.auth_code)
        if let currencies = adapter.currencies, !currencies.contains(order.total.currency) {
            // A clear 400 (the money-safety issue's contract), though the document cannot say it: it
            // depends on the order, not on this request (scripts/test/schemathesis.toml).
            throw RequestProblem(
                "\(method.rawValue) through \(adapter.provider.rawValue) takes \(currencies.map(\.code).sorted().joined(separator: ", ")) "
                    + "only; order \(id) is in \(order.total.currency.code) (a cross-border merchant lists its currencies in "
                    + "cross_border_currencies)")
        }
        let prepared = try await adapter.prepare(body, method: method)
        var detail = ["method": method.rawValue]
        if let api = body.api { detail["api"] = api }
        if let appID = prepared.appID { detail["appid"] = appID }
        // Reserved first (or the same kind of attempt found again), then placed.
        let attempt = NewPayment(
            orderID: order.id, method: method, provider: adapter.provider, appID: prepared.appID, merchantID: prepared.merchantID,
            payer: prepared.payer)
        var start = try await store.beginPayment(attempt, now: clock.now())
        if let counter {
            return try await ledger.counter.collect(start, with: counter, request: body)
        }
        let parameters: WalletParameters
        do {
            parameters = try await place(start, with: adapter, request: body)
        } catch let error as PaymentError where ProviderAnswer.needsNewTradeNumber(error) {
            // The provider will not place this attempt's number again: it holds it with other
            // details (the payer's address changed since it was placed, the expiry moved, or
            // another start of this payment placed it a moment ago), or another start closed it.
            // That trade is closed there and here (the latest start wins, as when a payment
            // supersedes another), and the payment starts afresh under a new number.
            if let payer = await closeAttempt(start.payment, reason: "not placed again: \(ProviderAnswer.words(error))") {
                throw APIError.invalidState("order \(id) was paid by its earlier payment \(payer); nothing new started")
            }
            var afresh = attempt
            afresh.id = NewPayment.makeID()
            start = try await store.beginPayment(afresh, now: clock.now())
            do {
                parameters = try await place(start, with: adapter, request: body)
            } catch let again as PaymentError where ProviderAnswer.needsNewTradeNumber(again) {
                throw APIError.invalidState(
                    "order \(id)'s \(method.rawValue) payment was started again elsewhere at the same moment; start it once more")
            }
        }
        let started = EventRecord(kind: .paymentStarted, detail: Ledger.detail(detail))
        let placed = try await store.recordPayment(.placed, of: start.payment.id, record: started, duplicate: started, now: clock.now())
        guard placed.payment.status == .pending else {
            // Another start for this order closed it (or the order was paid) while it was being placed.
            await closeAttempt(placed.payment, reason: "superseded while it was placed")
            throw APIError.invalidState("order \(id) is \(placed.order.status.rawValue): another payment started or finished meanwhile")
        }
        // The payer must not be able to pay twice: the order's other open attempts are closed now.
        for old in start.superseded {
            if let payer = await closeAttempt(old, reason: "superseded by \(start.payment.id)") {
                throw APIError.invalidState("order \(id) was paid by its earlier payment \(payer); nothing new started")
            }
        }
        return Started(
            json: PaymentStartJSON(
                method: method, paymentID: start.payment.id, outTradeNo: start.payment.outTradeNo,
                api: method.wallet == .wechat ? (adapter.provider == .wechatV3 ? "v3" : "v2") : nil, wallet: parameters))
    }

    /// The wallet's parameters for a reserved attempt. A refusal is recorded as the attempt's
    /// failure; no answer leaves it reserved and unpayable, and a retry places it again under its number.
    private func place(_ start: PaymentStart, with adapter: any PaymentAdapter, request: PaymentRequestBody) async throws
        -> WalletParameters
    {
        do {
            return try await adapter.place(start.payment, order: start.order, request: request)
        } catch let error as PaymentError
            where (ProviderAnswer.isDefinitiveRefusal(error) || error.code == .invalidRequest) && !ProviderAnswer.needsNewTradeNumber(error)
        {
            // (A number the provider holds otherwise is not a failed attempt: its trade is open there,
            // placed before or by another start at this moment, or closed; the caller closes it.)
            try await store.recordPayment(
                .failed(reason: ProviderAnswer.words(error)), of: start.payment.id,
                record: EventRecord(kind: .paymentFailed, detail: Ledger.detail(["reason": ProviderAnswer.words(error)])),
                now: clock.now())
            throw error
        }
    }

    /// Closes an open attempt at its provider and records it; best effort (a provider that does
    /// not answer leaves it open, and a payment that lands later is recorded and flagged).
    /// - Returns: the id of the payment that paid the order, when closing found this one paid.
    @discardableResult
    func closeAttempt(_ payment: StoredPayment, reason: String) async -> String? {
        do {
            switch try await ledger.adapters.adapter(for: payment).close(payment) {
            case .closed:
                try await store.recordPayment(
                    .closed(reason: reason), of: payment.id,
                    record: EventRecord(kind: .paymentClosed, detail: Ledger.detail(["reason": reason])),
                    now: clock.now())
                return nil
            case .paid(let amount, let transactionID):
                let recorded = try await recordSuccess(
                    payment, amount: amount, transactionID: transactionID,
                    record: EventRecord(
                        kind: .query, detail: Ledger.detail(["found": "paid when closing", "transaction_id": transactionID ?? ""])))
                return recorded?.order.settledPaymentID
            }
        } catch {
            try? await store.append(
                EventRecord(
                    kind: .paymentClosed,
                    detail: Ledger.detail(["payment": payment.id, "reason": reason, "result": "not closed at the provider: \(error)"])),
                to: payment.orderID, now: clock.now())
            return nil
        }
    }

    /// Records a provider's word that `payment` was paid, after checking the amount and currency:
    /// the first success settles the order (its other open attempts are then closed), a later one
    /// is recorded as a duplicate to refund. - Returns: `nil` when the amount was refused (logged).
    @discardableResult
    func recordSuccess(
        _ payment: StoredPayment, amount: Money, transactionID: String?, record: EventRecord, duplicate: EventRecord? = nil,
        check: ((Money) throws -> Void)? = nil
    ) async throws -> PaymentRecorded? {
        do {
            try Self.accept(payment, amount: amount, check: check)
        } catch let error as PaymentError {
            try await refuse(payment, error, bodySHA256: record.bodySHA256)
            return nil
        }
        let recorded = try await store.recordPayment(
            .succeeded(transactionID: transactionID, amount: amount), of: payment.id, record: record, duplicate: duplicate, now: clock.now()
        )
        try await afterSuccess(recorded)
        return recorded
    }

    /// The provider module's check of a reported success against the payment (`check`: currency
    /// and amount as the provider writes them), then the amount itself.
    static func accept(_ payment: StoredPayment, amount: Money, check: ((Money) throws -> Void)?) throws {
        if let check { try check(payment.amount) }
        guard amount == payment.amount else {
            throw PaymentError(.amountMismatch, "the provider reports \(amount) for \(payment.outTradeNo), which is for \(payment.amount)")
        }
    }

    /// Logs a reported success that ``accept(_:amount:check:)`` refused.
    func refuse(_ payment: StoredPayment, _ error: PaymentError, bodySHA256: String?) async throws {
        try await store.append(
            EventRecord(
                kind: .notificationRefused, detail: Ledger.detail(["reason": error.message, "payment": payment.id]), bodySHA256: bodySHA256),
            to: payment.orderID, now: clock.now())
    }

    /// What follows a recorded success: metrics, and once the order is paid, its other open
    /// attempts closed so nothing else takes money for it.
    func afterSuccess(_ recorded: PaymentRecorded) async throws {
        let payment = recorded.payment
        switch recorded {
        case .settled(let order, _):
            ledger.metrics.increment("cashier_transitions_total", ["to": order.status.rawValue])
            // A subscription's period: its invoice is paid now, not at the recurring job's next look.
            // (The metadata is not decoded for every other order: its text names the key or not.)
            if order.metadataJSON.contains("\"subscription\""), let invoice = try await store.invoice(orderID: order.id) {
                // Whichever of this and the job's look moves it first queues invoice.paid; the other changes nothing.
                _ = try await store.finishInvoice(invoice.id, as: .paid, now: clock.now())
            }
            // Paid: nothing else of this order may take money.
            for other in try await store.payments(orderID: order.id) where other.status == .pending || other.status == .created {
                await closeAttempt(other, reason: "order \(order.id) was paid by \(payment.id)")
            }
        case .duplicatePayment:
            ledger.metrics.increment("cashier_duplicate_payments_total", ["provider": payment.provider.rawValue])
        default: break
        }
    }

    /// Asks the payment's provider and records what it says; the order as it is now (`nil` when
    /// nothing was learnt).
    func ask(_ payment: StoredPayment) async throws -> StoredOrder? {
        switch try await ledger.adapters.adapter(for: payment).query(payment) {
        case .paid(let amount, let transactionID):
            let record = EventRecord(kind: .query, detail: Ledger.detail(["transaction_id": transactionID ?? "", "payment": payment.id]))
            return try await recordSuccess(payment, amount: amount, transactionID: transactionID, record: record)?.order
        case .failed(let reason):
            return try await store.recordPayment(
                .failed(reason: reason), of: payment.id,
                record: EventRecord(kind: .paymentFailed, detail: Ledger.detail(["reason": reason])),
                now: clock.now()
            ).order
        case .unpaid, .notFound, .unknown:
            return nil
        }
    }
}
