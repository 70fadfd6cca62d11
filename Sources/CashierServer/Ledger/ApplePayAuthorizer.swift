import ApplePay
import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// An Apple Pay token authorised: verified (signature chain, signing time, the order bound into
/// it) — and, when the merchant holds the processing key, decrypted and checked against the
/// order's amount —, the authorisation reserved in the store (one at a time per order, a token's
/// `transactionId` once ever, never on a paid order), then the processor with an idempotency key
/// derived from the payment, then the record.
struct ApplePayAuthorizer: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var clock: any WallClock { ledger.clock }

    /// The token and the contacts beside it, as the device sent them.
    struct Presented: Sendable {
        /// The token's JSON (`PKPaymentToken`, or a `PKPayment` whose `token` it is).
        let token: Data
        let contacts: PaymentContacts
        let clientSecret: String?
    }

    /// Apple Pay asked of a server without it: a method not configured (422).
    static let notConfigured = APIError(status: 422, code: "invalid_request", message: "Apple Pay is not configured on this server")

    /// The answer to the device: the status to complete the sheet with, and the order as it is.
    static func answer(
        _ status: ApplePay.AuthorizationStatus, _ order: StoredOrder, _ message: String, payment: String? = nil,
        errors: [ApplePay.SheetError] = []
    ) -> ApplePayAuthorizationAnswer {
        ApplePayAuthorizationAnswer(
            status: status.rawValue, order_status: order.status.rawValue, message: message, payment_id: payment,
            errors: errors.isEmpty ? nil : errors.map(ApplePaySheetError.init))
    }

    /// Authorises `presented` for order `id`.
    func authorize(_ id: String, _ presented: Presented, by identity: Identity) async throws -> ApplePayAuthorizationAnswer {
        guard let applePay = ledger.configuration.applePay, let adapter = ledger.adapters.applePay else { throw Self.notConfigured }
        let order = try await ledger.orders.require(identity, id: id, clientSecret: presented.clientSecret)
        let parsed: ApplePay.PaymentToken
        var decrypted: ApplePay.DecryptedPayment?
        do {
            parsed = try ApplePay.PaymentToken(json: presented.token)
            if let decrypter = applePay.decrypter {
                let payment = try decrypter.decrypt(parsed, applicationData: Array(order.id.utf8))
                ledger.audit?.secret([
                    payment.applicationPrimaryAccountNumber, payment.paymentData.onlinePaymentCryptogram, payment.paymentData.emvData,
                ])
                try payment.check(total: order.total)
                decrypted = payment
            } else {
                _ = try applePay.verifier.verify(parsed, applicationData: Array(order.id.utf8))
            }
        } catch let error as PaymentError {
            // With the token's hash: which token was refused, and (as a message from outside
            // that changed nothing) kept within the order's limit of such lines.
            let tokenHash = Hex.encode(DigestAlgorithm.sha256.hash(Array(presented.token)))
            try await store.append(
                EventRecord(kind: .applePayRefused, detail: Ledger.detail(["reason": error.message]), bodySHA256: tokenHash),
                to: order.id, now: clock.now())
            return Self.answer(.failure, order, error.message)
        }
        let card = decrypted?.maskedAccountNumber ?? parsed.displayName ?? parsed.network ?? "card"
        // Reserved before the processor hears of it: a paid order, a token seen before or an
        // authorisation already in flight is refused here, and the processor is not called.
        let start: PaymentStart
        do {
            start = try await store.beginPayment(
                NewPayment(
                    orderID: order.id, method: .applePay, provider: .applePay, appID: applePay.merchantIdentifier,
                    status: .processing, walletToken: parsed.header.transactionId,
                    record: EventRecord(kind: .paymentStarted, detail: Ledger.detail(["method": "applepay", "card": card]))),
                now: clock.now())
        } catch let error as StoreError where error.code == .conflict {
            throw APIError(status: 409, code: "token_reused", message: error.message)
        }
        for old in start.superseded {
            if let payer = await ledger.payments.closeAttempt(old, reason: "superseded by \(start.payment.id)") {
                try await store.recordPayment(
                    .failed(reason: "order \(order.id) was paid by \(payer)"), of: start.payment.id,
                    record: EventRecord(kind: .paymentFailed), now: clock.now())
                throw APIError.invalidState("order \(id) was paid by \(payer); the token was not charged")
            }
        }
        if !presented.contacts.isEmpty { try await store.setContacts(presented.contacts, of: start.payment.id, now: clock.now()) }
        // Marked before the processor is asked: a crash after its answer never leaves a held
        // authorisation looking captured.
        if applePay.capture == .manual {
            _ = try await store.moveCapture(of: start.payment.id, from: nil, to: .uncaptured, record: nil, now: clock.now())
        }
        let authorization = ApplePay.ProcessorAuthorization(
            amount: order.total, reference: start.payment.outTradeNo,
            idempotencyKey: OperationKey.payment(start.payment, "authorize").value,
            capture: applePay.capture == .automatic, token: parsed, decrypted: decrypted,
            billingPostalCode: presented.contacts.billing?.postalCode)
        let decision: ApplePay.ProcessorDecision
        do {
            decision = try await adapter.authorize(authorization)
        } catch let error as PaymentError where error.code == .transport {
            return try await unknownOutcome(start.payment, adapter: adapter, order: order, error: error)
        } catch {
            try await store.recordPayment(
                .failed(reason: "the processor refused the request"), of: start.payment.id,
                record: EventRecord(
                    kind: .applePayDeclined, detail: Ledger.detail(["reason": (error as? PaymentError)?.message ?? "\(error)"])),
                now: clock.now())
            throw error
        }
        if case .pending(let reference) = decision {
            return try await recordUndecided(start.payment, reference: reference, card: card)
        }
        guard case .authorized(let reference) = decision else {
            let recorded = try await store.recordPayment(
                .failed(reason: "declined (\(decision.status.rawValue))"), of: start.payment.id,
                record: EventRecord(
                    kind: .applePayDeclined, detail: Ledger.detail(["card": card, "status": "\(decision.status.rawValue)"])),
                now: clock.now())
            return Self.answer(decision.status, recorded.order, "declined", payment: start.payment.id, errors: decision.sheetErrors)
        }
        return try await recordAuthorized(start.payment, reference: reference, card: card, order: order)
    }

    private func recordAuthorized(_ payment: StoredPayment, reference: String, card: String, order: StoredOrder) async throws
        -> ApplePayAuthorizationAnswer
    {
        let record = EventRecord(
            kind: .applePayAuthorized,
            detail: Ledger.detail([
                "card": card, "processor_reference": reference, "capture": ledger.configuration.applePay?.capture.rawValue ?? "automatic",
            ]))
        guard
            let recorded = try await ledger.payments.recordSuccess(
                payment, amount: payment.amount, transactionID: reference, record: record)
        else {
            return Self.answer(.failure, order, "the authorisation could not be recorded")
        }
        return Self.answer(.success, recorded.order, "authorized", payment: payment.id)
    }

    /// The processor accepted the authorisation without deciding it (Stripe's `processing`): the
    /// attempt waits, `pending` with the processor's id, and nothing is paid until the processor's
    /// word (``applyDecision(_:reference:amount:authorized:status:by:fields:bodyHash:)``) or the
    /// query fallback says so. The sheet completes with success; the app waits for the order to say paid.
    private func recordUndecided(_ payment: StoredPayment, reference: String, card: String) async throws -> ApplePayAuthorizationAnswer {
        let recorded = try await store.recordPayment(
            .accepted(transactionID: reference), of: payment.id,
            record: EventRecord(kind: .applePayProcessing, detail: Ledger.detail(["card": card, "processor_reference": reference])),
            now: clock.now())
        let message =
            recorded.order.status == .paid
            ? "authorized" : "processing: the processor has not decided yet; the order is paid when it says so"
        return Self.answer(.success, recorded.order, message, payment: payment.id)
    }

    /// The processor's word on an authorisation it had accepted without deciding (its webhook):
    /// `authorized` for `amount` under its payment `reference`, or not (`status` is its own word).
    /// One authorised is recorded paid — once, its amount checked —, one refused failed. It moves
    /// only an attempt that is not paid and has no other processor id; for one already paid —
    /// processors announce every payment — it changes nothing.
    func applyDecision(
        _ payment: StoredPayment, reference: String, amount: Money, authorized: Bool, status: String, by processor: String,
        fields: [String: String], bodyHash: String
    ) async throws {
        guard payment.status != .succeeded, payment.transactionID == nil || payment.transactionID == reference else { return }
        var detail = fields
        detail["payment"] = payment.id
        detail["processor"] = processor
        guard authorized else {
            guard payment.status.isOpen else { return }
            let reason = "\(processor) did not authorise it (\(status))" + (fields["reason"].map { ": \($0)" } ?? "")
            detail["reason"] = reason
            try await store.recordPayment(
                .failed(reason: reason), of: payment.id,
                record: EventRecord(kind: .applePayDeclined, detail: Ledger.detail(detail), bodySHA256: bodyHash), now: clock.now())
            return
        }
        detail["processor_reference"] = reference
        try await ledger.payments.recordSuccess(
            payment, amount: amount, transactionID: reference,
            record: EventRecord(kind: .applePayAuthorized, detail: Ledger.detail(detail), bodySHA256: bodyHash))
    }

    /// The processor did not answer after its retries: whether it charged is unknown. Its list
    /// of payments (when it has one) decides; without one the attempt is recorded failed and
    /// reconciliation against the processor shows any charge that was made after all.
    private func unknownOutcome(_ payment: StoredPayment, adapter: ApplePayAdapter, order: StoredOrder, error: PaymentError) async throws
        -> ApplePayAuthorizationAnswer
    {
        let now = clock.now()
        if let listed = try? await adapter.processorPayments(
            from: payment.createdAt.addingTimeInterval(-600), to: now.addingTimeInterval(600)),
            let found = listed.first(where: { $0.merchantReference == payment.outTradeNo }), found.authorized == payment.amount
        {
            switch found.state {
            case .authorized, .captured: return try await recordAuthorized(payment, reference: found.reference, card: "card", order: order)
            case .pending: return try await recordUndecided(payment, reference: found.reference, card: "card")
            case .refused, .voided: break
            }
        }
        try await store.recordPayment(
            .failed(reason: "the processor did not answer"), of: payment.id,
            record: EventRecord(
                kind: .applePayDeclined, detail: Ledger.detail(["reason": "the processor did not answer: \(error.message)"])),
            now: now)
        throw APIError(
            status: 503, code: "provider_unavailable",
            message:
                "the card processor did not answer; nothing was recorded as paid. Reconciliation against the processor shows a charge if one was made"
        )
    }
}
