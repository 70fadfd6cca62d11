import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// `POST /v1/orders/{id}/payments/applepay/authorize`: the token verified (signature chain,
/// signing time, the order bound into it) — and, when the merchant holds the processing key,
/// decrypted and checked against the order's amount —, the authorisation reserved in the store
/// (one at a time per order, a token's `transactionId` once ever, never on a paid order), then
/// the processor with an idempotency key derived from the payment, then the record.
extension MerchantAPI {
    /// What the device sends: the token and (Apple Pay JS) the contacts beside it. Read for its
    /// shape; the token itself is read as the JSON it came as.
    struct AuthorizeBody: Decodable {
        let token: JSONObject
        let client_secret: String?
        let billing_contact: JSONObject?
        let shipping_contact: JSONObject?
    }

    struct AuthorizationAnswer: Encodable {
        /// `PKPaymentAuthorizationStatus` / `ApplePaySession.STATUS_*`.
        let status: Int
        let order_status: String
        let message: String
        let payment_id: String?
        /// Apple Pay JS's `ApplePayError`s for the sheet (a contact the processor refused).
        let errors: [ApplePay.SheetError]?
    }

    /// The answer to the device: the status to complete the sheet with, and the order as it is.
    static func authorization(
        _ status: ApplePay.AuthorizationStatus, _ order: StoredOrder, _ message: String, payment: String? = nil,
        errors: [ApplePay.SheetError] = []
    ) -> HTTPServerResponse {
        .json(
            AuthorizationAnswer(
                status: status.rawValue, order_status: order.status.rawValue, message: message, payment_id: payment,
                errors: errors.isEmpty ? nil : errors))
    }

    /// The idempotency key of a processor call about a payment: the same on every retry.
    static func processorKey(_ payment: StoredPayment, _ operation: String) -> String { "cashier_\(payment.id)_\(operation)" }

    /// The idempotency key of a processor call for a refund record (a refund, or money released).
    static func processorKey(_ refund: StoredRefund, _ operation: String) -> String { "cashier_\(refund.outRefundNo)_\(operation)" }

    /// The record in a processor key made by `processorKey(_:_:)` for `operation`: a payment's id
    /// (`pay_…`) or a refund's number (what Adyen's webhooks name as the modification's
    /// `merchantReference`).
    static func recordNumber(inProcessorKey key: String, _ operation: String) -> String? {
        let (prefix, suffix) = ("cashier_", "_" + operation)
        guard key.hasPrefix(prefix), key.hasSuffix(suffix), key.count > prefix.count + suffix.count else { return nil }
        return String(key.dropFirst(prefix.count).dropLast(suffix.count))
    }

    /// The number of the refund that records a payment's failed capture (what the capture was to
    /// take, gone back without moving): one per payment, so every copy of the failure finds it.
    static func captureFailureNumber(_ payment: StoredPayment) -> String { derivedNumber("capture failed", payment.id) }

    /// A refund number derived from what a processor's word is about (its kind, then the ids that
    /// name it), so every copy of the word, at any instance, finds the one record it made.
    static func derivedNumber(_ parts: String...) -> String {
        "R" + Hex.encode(DigestAlgorithm.sha256.hash(parts.joined(separator: "\n"))).prefix(31)
    }

    /// Apple Pay asked of a server without it: a method not configured (422).
    static let applePayNotConfigured = HTTPServerResponse.error(
        status: 422, code: "invalid_request", message: "Apple Pay is not configured on this server")

    func authorizeApplePay(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard let identity = await identify(request) else { return Self.unauthorized }
        guard let applePay = configuration.applePay else {
            return Self.applePayNotConfigured
        }
        let expected = #"{"token": <the PKPayment or its token as JSON>}"#
        do {
            _ = try RequestProblem.decode(AuthorizeBody.self, from: request, expected: expected)
        } catch {
            return Self.failure(error)
        }
        // Only an object is a token (Foundation's writer traps on a bare string or number: a
        // schema-driven fuzzer's first find).
        guard let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any],
            let token = body["token"] as? [String: Any], let tokenJSON = try? JSONSerialization.data(withJSONObject: token)
        else {
            return .error(status: 400, code: "invalid_request", message: "expected \(expected)")
        }
        // Contacts come beside the token (Apple Pay JS's ApplePayPayment) or in the body.
        let payment: [String: Any]? = token
        let contacts = PaymentContacts(
            billing: PaymentContact(json: body["billing_contact"] ?? payment?["billingContact"]),
            shipping: PaymentContact(json: body["shipping_contact"] ?? payment?["shippingContact"]))
        do {
            guard let (order, _) = try await authorizedOrder(identity, id: id, clientSecret: body["client_secret"] as? String) else {
                return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
            }
            let parsed: ApplePay.PaymentToken
            var decrypted: ApplePay.DecryptedPayment?
            do {
                parsed = try ApplePay.PaymentToken(json: tokenJSON)
                if let decrypter = applePay.decrypter {
                    let payment = try decrypter.decrypt(parsed, applicationData: Array(order.id.utf8))
                    audit?.secret([
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
                let tokenHash = Hex.encode(DigestAlgorithm.sha256.hash(Array(tokenJSON)))
                try await store.append(
                    EventRecord(kind: .applePayRefused, detail: Self.detail(["reason": error.message]), bodySHA256: tokenHash),
                    to: order.id, now: clock.now())
                return Self.authorization(.failure, order, error.message)
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
                        record: EventRecord(kind: .paymentStarted, detail: Self.detail(["method": "applepay", "card": card]))),
                    now: clock.now())
            } catch let error as StoreError where error.code == .conflict {
                return .error(status: 409, code: "token_reused", message: error.message)
            }
            for old in start.superseded {
                if let payer = await closeAttempt(old, reason: "superseded by \(start.payment.id)") {
                    try await store.recordPayment(
                        .failed(reason: "order \(order.id) was paid by \(payer)"), of: start.payment.id,
                        record: EventRecord(kind: .paymentFailed), now: clock.now())
                    return .error(
                        status: 409, code: "invalid_state", message: "order \(id) was paid by \(payer); the token was not charged")
                }
            }
            if !contacts.isEmpty { try await store.setContacts(contacts, of: start.payment.id, now: clock.now()) }
            // Marked before the processor is asked: a crash after its answer never leaves a held
            // authorisation looking captured.
            if applePay.capture == .manual {
                _ = try await store.moveCapture(of: start.payment.id, from: nil, to: .uncaptured, record: nil, now: clock.now())
            }
            let authorization = ApplePay.ProcessorAuthorization(
                amount: order.total, reference: start.payment.outTradeNo, idempotencyKey: Self.processorKey(start.payment, "authorize"),
                capture: applePay.capture == .automatic, token: parsed, decrypted: decrypted,
                billingPostalCode: contacts.billing?.postalCode)
            let decision: ApplePay.ProcessorDecision
            do {
                decision = try await applePay.processor.authorize(authorization)
            } catch let error as PaymentError where error.code == .transport {
                return try await unknownOutcome(start.payment, applePay: applePay, order: order, error: error)
            } catch {
                try await store.recordPayment(
                    .failed(reason: "the processor refused the request"), of: start.payment.id,
                    record: EventRecord(
                        kind: .applePayDeclined, detail: Self.detail(["reason": (error as? PaymentError)?.message ?? "\(error)"])),
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
                        kind: .applePayDeclined, detail: Self.detail(["card": card, "status": "\(decision.status.rawValue)"])),
                    now: clock.now())
                return Self.authorization(
                    decision.status, recorded.order, "declined", payment: start.payment.id, errors: decision.sheetErrors)
            }
            return try await recordAuthorized(start.payment, reference: reference, card: card, order: order)
        } catch {
            return Self.failure(error)
        }
    }

    private func recordAuthorized(_ payment: StoredPayment, reference: String, card: String, order: StoredOrder) async throws
        -> HTTPServerResponse
    {
        let record = EventRecord(
            kind: .applePayAuthorized,
            detail: Self.detail([
                "card": card, "processor_reference": reference, "capture": configuration.applePay?.capture.rawValue ?? "automatic",
            ]))
        guard let recorded = try await recordSuccess(payment, amount: payment.amount, transactionID: reference, record: record) else {
            return Self.authorization(.failure, order, "the authorisation could not be recorded")
        }
        return Self.authorization(.success, recorded.order, "authorized", payment: payment.id)
    }

    /// The processor accepted the authorisation without deciding it (Stripe's `processing`): the
    /// attempt waits, `pending` with the processor's id, and nothing is paid until the processor's
    /// word (``applyProcessorDecision(_:reference:amount:authorized:status:by:fields:bodyHash:)``) or the query fallback
    /// says so. The sheet completes with success; the app waits for the order to say paid.
    private func recordUndecided(_ payment: StoredPayment, reference: String, card: String) async throws -> HTTPServerResponse {
        let recorded = try await store.recordPayment(
            .accepted(transactionID: reference), of: payment.id,
            record: EventRecord(kind: .applePayProcessing, detail: Self.detail(["card": card, "processor_reference": reference])),
            now: clock.now())
        let message =
            recorded.order.status == .paid
            ? "authorized" : "processing: the processor has not decided yet; the order is paid when it says so"
        return Self.authorization(.success, recorded.order, message, payment: payment.id)
    }

    /// The processor's word on an authorisation it had accepted without deciding (its webhook):
    /// `authorized` for `amount` under its payment `reference`, or not (`status` is its own word).
    /// One authorised is recorded paid — once, its amount checked —, one refused failed. It moves
    /// only an attempt that is not paid and has no other processor id; for one already paid —
    /// processors announce every payment — it changes nothing.
    func applyProcessorDecision(
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
                record: EventRecord(kind: .applePayDeclined, detail: Self.detail(detail), bodySHA256: bodyHash), now: clock.now())
            return
        }
        detail["processor_reference"] = reference
        try await recordSuccess(
            payment, amount: amount, transactionID: reference,
            record: EventRecord(kind: .applePayAuthorized, detail: Self.detail(detail), bodySHA256: bodyHash))
    }

    /// The processor did not answer after its retries: whether it charged is unknown. Its list
    /// of payments (when it has one) decides; without one the attempt is recorded failed and
    /// reconciliation against the processor shows any charge that was made after all.
    private func unknownOutcome(
        _ payment: StoredPayment, applePay: MerchantConfiguration.ApplePay, order: StoredOrder, error: PaymentError
    ) async throws -> HTTPServerResponse {
        let now = clock.now()
        if let listed = try? await applePay.processor.payments(
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
            record: EventRecord(kind: .applePayDeclined, detail: Self.detail(["reason": "the processor did not answer: \(error.message)"])),
            now: now)
        return .error(
            status: 503, code: "provider_unavailable",
            message:
                "the card processor did not answer; nothing was recorded as paid. Reconciliation against the processor shows a charge if one was made"
        )
    }
}
