import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// The recurring job: each period due is opened once (an invoice, unique per subscription and
/// period, and its order), each attempt claimed once, charged under the agreement, and its
/// failure retried on the dunning schedule (``MerchantConfiguration/recurringRetryDelays``) until
/// the subscription's `max_attempts`, after which the subscription is canceled.
extension RecurringService {
    /// One run: pending agreements asked about, periods due opened and charged, open charges
    /// looked at again. - Returns: how many invoices were opened or moved.
    @discardableResult
    func chargeDue(limit: Int = 100) async throws -> Int {
        let now = clock.now()
        for agreement in try await store.pendingAgreements(before: now.addingTimeInterval(-Self.queryAfter), limit: limit) {
            guard !Task.isCancelled else { break }
            let asked = try? await refresh(agreement)
            // Never signed (a refusal is never told): it stops being asked about, every minute, forever.
            if asked?.status == .pending, agreement.createdAt < now.addingTimeInterval(-Self.signWithin) {
                let lapsed = AgreementProgress(
                    status: .failed, providerState: "NOT_SIGNED",
                    reason: "the payer did not sign within \(Int(Self.signWithin / 3600)) hours")
                _ = try? await store.moveAgreement(agreement.id, to: lapsed, now: clock.now())
            }
        }
        var moved = 0
        for subscription in try await store.dueSubscriptions(now: now, limit: limit) {
            guard !Task.isCancelled else { break }
            guard let invoice = try await open(subscription, whileSigning: false) else { continue }
            moved += 1
            try await charge(invoice)
        }
        for invoice in try await store.dueInvoices(now: clock.now(), limit: limit) {
            guard !Task.isCancelled else { break }
            if try await charge(invoice) { moved += 1 }
        }
        return moved
    }

    /// Opens `subscription`'s next period: its order, then its invoice. - Returns: `nil` when it
    /// was not due after all (another instance opened it).
    func open(_ subscription: StoredSubscription, whileSigning: Bool) async throws -> StoredInvoice? {
        let now = clock.now()
        let id = "ord_" + SecureRandom.alphanumeric(count: 24)
        let period = subscription.period + 1
        let order = NewOrder(
            id: id, outTradeNo: TradeNumber.generate(date: now), total: subscription.amount, description: subscription.description,
            metadata: ["subscription": subscription.id, "period": String(period), "agreement": subscription.agreementID],
            clientSecret: id + "_secret_" + SecureRandom.alphanumeric(count: 24), merchant: subscription.merchant)
        let invoice = try await store.openInvoice(subscription: subscription.id, order: order, whileSigning: whileSigning, now: now)
        if invoice != nil { ledger.metrics.increment("cashier_invoices_total", ["status": "open"]) }
        return invoice
    }

    /// Looks at open `invoice`: paid → recorded; an attempt in flight → its payment asked about
    /// (failed → the next attempt scheduled); none in flight and due → the next attempt claimed and
    /// charged. - Returns: whether it moved.
    @discardableResult
    func charge(_ invoice: StoredInvoice) async throws -> Bool {
        guard invoice.status == .open, let order = try await store.order(id: invoice.orderID) else { return false }
        if order.status.hasReceivedMoney { return try await store.finishInvoice(invoice.id, as: .paid, now: clock.now()).changed }
        if invoice.attempts > invoice.failures {
            return try await follow(invoice)
        }
        guard let subscription = try await store.subscription(id: invoice.subscriptionID),
            let agreement = try await store.agreement(id: subscription.agreementID)
        else { return false }
        guard agreement.status == .active, let adapter = adapter(agreement) else {
            return try await store.finishInvoice(
                invoice.id, as: .void(reason: "agreement \(agreement.id) is \(agreement.status.rawValue)"), now: clock.now()
            ).changed
        }
        let now = clock.now()
        guard
            let claimed = try await store.claimInvoiceAttempt(
                invoice.id, seen: invoice.attempts, lookAgainAt: now.addingTimeInterval(Self.recheckAfter), now: now)
        else { return false }  // another instance has it
        let payment = try await store.beginPayment(
            NewPayment(
                orderID: order.id, method: PaymentMethod(rawValue: agreement.method) ?? .applePay, provider: adapter.provider,
                payer: agreement.payer), now: now
        ).payment
        let answer: ChargeAnswer
        do {
            answer = try await adapter.charge(
                payment, order: order, under: agreement, notifyURL: ledger.publicBase + Self.paymentNotifyPath(adapter.provider))
        } catch let error as PaymentError where ProviderAnswer.isDefinitiveRefusal(error) || error.code == .invalidRequest {
            answer = .declined(reason: ProviderAnswer.words(error), retryable: true)
        } catch {
            return true  // unknown: the payment stays open and is asked about at the next look
        }
        try await record(answer, payment: payment, invoice: claimed, subscription: subscription)
        return true
    }

    /// Apple Pay: the first period charged as the payer signs, with the token of the sheet the
    /// agreement's launch showed; the card is stored at the processor for the later periods.
    func authorize(_ id: String, _ body: AgreementAuthorizeBody, caller: Identity) async throws -> SubscriptionJSON {
        let agreement = try await require(id, caller: caller)
        guard agreement.status == .pending, let adapter = adapter(agreement) else {
            throw APIError.invalidState("agreement \(id) is \(agreement.status.rawValue): only a pending Apple Pay agreement is authorised")
        }
        let subscriptions = try await store.subscriptions(agreementID: id, merchant: nil, limit: 2, offset: 0)
        guard
            let subscription = body.subscription.map({ wanted in subscriptions.first { $0.id == wanted } })
                ?? (subscriptions.count == 1 ? subscriptions.first : nil)
        else {
            throw APIError.invalidState(
                "create the agreement's subscription first (POST /v1/subscriptions): its first period is this payment")
        }
        guard let invoice = try await open(subscription, whileSigning: true),
            let order = try await store.order(id: invoice.orderID),
            let claimed = try await store.claimInvoiceAttempt(
                invoice.id, seen: 0, lookAgainAt: clock.now().addingTimeInterval(Self.recheckAfter), now: clock.now())
        else { throw APIError.invalidState("subscription \(subscription.id)'s first period is being charged already") }
        let payment = try await store.beginPayment(
            NewPayment(orderID: order.id, method: .applePay, provider: adapter.provider, status: .processing), now: clock.now()
        ).payment
        let token = Data(try JSONEncoder().encode(body.token))
        let result: (charge: ChargeAnswer, agreement: AgreementProgress)
        do {
            result = try await adapter.authorizeFirstCharge(payment, order: order, under: agreement, token: token)
        } catch let error as PaymentError {
            result = (
                .declined(reason: ProviderAnswer.words(error), retryable: false),
                AgreementProgress(status: .failed, providerState: "REFUSED", reason: ProviderAnswer.words(error))
            )
        }
        try await record(result.charge, payment: payment, invoice: claimed, subscription: subscription, finalOnDecline: true)
        _ = try await store.moveAgreement(id, to: result.agreement, now: clock.now())
        return try await viewSubscription(subscription.id, caller: caller)
    }

    /// Records what the provider answered an attempt: the payment, then the invoice.
    func record(
        _ answer: ChargeAnswer, payment: StoredPayment, invoice: StoredInvoice, subscription: StoredSubscription,
        finalOnDecline: Bool = false
    ) async throws {
        let now = clock.now()
        switch answer {
        case .paid(let amount, let transactionID):
            let record = EventRecord(
                kind: .query,
                detail: Ledger.detail([
                    "found": "charged under the agreement", "transaction_id": transactionID ?? "", "payment": payment.id,
                ]))
            if let recorded = try await ledger.payments.recordSuccess(
                payment, amount: amount, transactionID: transactionID, record: record),
                recorded.order.status.hasReceivedMoney
            {
                try await store.finishInvoice(invoice.id, as: .paid, now: now)
            }
        case .accepted:
            let started = EventRecord(
                kind: .paymentStarted, detail: Ledger.detail(["method": payment.method.rawValue, "answer": "accepted"]))
            _ = try await store.recordPayment(.placed, of: payment.id, record: started, duplicate: started, now: now)
        case .declined(let reason, let retryable):
            _ = try await store.recordPayment(
                .failed(reason: reason), of: payment.id,
                record: EventRecord(kind: .paymentFailed, detail: Ledger.detail(["reason": reason])), now: now)
            try await failed(invoice, reason: reason, retryable: retryable && !finalOnDecline, subscription: subscription)
            // Refused for good: the agreement may have ended without a word (an expiry, a card removed) — ask.
            if !retryable, !finalOnDecline, let agreement = try await store.agreement(id: subscription.agreementID),
                agreement.status == .active
            {
                _ = try? await refresh(agreement)
            }
        }
    }

    /// An attempt in flight: its payment asked about, and its failure recorded once.
    private func follow(_ invoice: StoredInvoice) async throws -> Bool {
        let payments = try await store.payments(orderID: invoice.orderID).sorted { $0.createdAt < $1.createdAt }
        guard let latest = payments.last else {
            // Claimed, then the instance stopped before sending anything: nothing was charged.
            return try await failedNow(invoice, reason: "no charge was sent", retryable: true)
        }
        var current = latest
        if latest.status == .pending || latest.status == .created || latest.status == .processing {
            if let order = try? await ledger.payments.ask(latest), order.status.hasReceivedMoney {
                return try await store.finishInvoice(invoice.id, as: .paid, now: clock.now()).changed
            }
            current = try await store.payment(id: latest.id) ?? latest
        }
        switch current.status {
        case .failed, .closed:
            return try await failedNow(invoice, reason: current.failureReason ?? "the charge did not go through", retryable: true)
        default:
            try await store.deferInvoice(invoice.id, until: clock.now().addingTimeInterval(Self.recheckAfter), now: clock.now())
            return false
        }
    }

    private func failedNow(_ invoice: StoredInvoice, reason: String, retryable: Bool) async throws -> Bool {
        guard let subscription = try await store.subscription(id: invoice.subscriptionID) else { return false }
        return try await failed(invoice, reason: reason, retryable: retryable, subscription: subscription)
    }

    /// Records an attempt's failure: the next attempt on the dunning schedule, or none left.
    @discardableResult
    private func failed(_ invoice: StoredInvoice, reason: String, retryable: Bool, subscription: StoredSubscription) async throws -> Bool {
        let delays = ledger.configuration.recurringRetryDelays
        let left = retryable && invoice.attempts < subscription.maxAttempts
        let delay = delays.isEmpty ? 86_400 : delays[min(max(invoice.attempts - 1, 0), delays.count - 1)]
        let (after, changed) = try await store.finishInvoice(
            invoice.id, as: .attemptFailed(reason: reason, retryAt: left ? clock.now().addingTimeInterval(delay) : nil), now: clock.now())
        if changed { ledger.metrics.increment("cashier_invoices_total", ["status": after.status == .failed ? "failed" : "retrying"]) }
        return changed
    }

    /// Where a provider's payment notifications for charges come (the wallets' ordinary paths).
    static func paymentNotifyPath(_ provider: PaymentProvider) -> String {
        switch provider {
        case .wechatV2: "/notify/wechat/v2"
        case .alipay: "/notify/alipay"
        default: ""
        }
    }
}
