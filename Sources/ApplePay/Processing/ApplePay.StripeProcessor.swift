public import Cashier
import CashierCrypto
public import Foundation

extension ApplePay {
    /// Stripe, in its encrypted-token mode: the token goes to `POST /v1/tokens` as Stripe's iOS SDK
    /// sends it (`pk_token`, `pk_token_instrument_name`, `pk_token_payment_network`,
    /// `pk_token_transaction_id`), then a PaymentIntent is created and confirmed with it
    /// (`capture_method` automatic or manual). Captures, cancels (voids) and refunds use the
    /// PaymentIntent. Every request carries an `Idempotency-Key` derived from Cashier's records.
    ///
    /// ```swift
    /// let stripe = ApplePay.StripeProcessor(secretKey: env["STRIPE_SECRET_KEY"]!)
    /// ```
    public struct StripeProcessor: PaymentProcessor {
        public static let productionURL = URL(string: "https://api.stripe.com")!

        private let secretKey: String
        private let baseURL: URL
        private let call: ProcessorCall

        /// - Parameters:
        ///   - secretKey: `sk_live_…`/`sk_test_…` (or a restricted `rk_…` key with PaymentIntents and refunds).
        ///   - baseURL: Stripe's API, or the sandbox's `{sandbox}/stripe`.
        ///   - transport: how requests are sent.
        ///   - attempts: how many times a request is sent before the outcome is called unknown.
        ///   - backoff: the wait before the first retry (doubled for each next one).
        public init(
            secretKey: String, baseURL: URL = productionURL, transport: any HTTPTransport = URLSessionTransport(), attempts: Int = 3,
            backoff: Duration = .milliseconds(200)
        ) {
            self.secretKey = secretKey
            self.baseURL = baseURL
            self.call = ProcessorCall(transport: transport, attempts: attempts, backoff: backoff, processor: "Stripe")
        }

        public var tokenForm: TokenForm { .encrypted }

        public func authorize(_ authorization: ProcessorAuthorization) async throws -> ProcessorDecision {
            let tokenID: String
            switch try await token(for: authorization) {
            case .declined(let decline): return decline
            case .created(let id): tokenID = id
            }
            let intent = try await post(
                "/v1/payment_intents",
                [
                    ("amount", String(authorization.amount.minorUnits)), ("currency", authorization.amount.currency.code.lowercased()),
                    ("payment_method_data[type]", "card"), ("payment_method_data[card][token]", tokenID), ("confirm", "true"),
                    ("capture_method", authorization.capture ? "automatic" : "manual"),
                    ("metadata[cashier_payment]", authorization.reference),
                ], idempotencyKey: authorization.idempotencyKey)
            return try decision(intent)
        }

        /// What `POST /v1/tokens` made of the Apple Pay token.
        enum TokenAnswer {
            case created(String)
            case declined(ProcessorDecision)
        }

        /// `POST /v1/tokens` with the token as Stripe's iOS SDK sends it (under the authorisation's
        /// key plus `-token`).
        func token(for authorization: ProcessorAuthorization) async throws -> TokenAnswer {
            let token = authorization.token
            var tokenFields = [("pk_token", String(decoding: try token.paymentDataJSON(), as: UTF8.self))]
            if let name = token.displayName { tokenFields.append(("pk_token_instrument_name", name)) }
            if let network = token.network { tokenFields.append(("pk_token_payment_network", network)) }
            tokenFields.append(("pk_token_transaction_id", token.transactionIdentifier ?? token.header.transactionId))
            if let postalCode = authorization.billingPostalCode { tokenFields.append(("card[address_zip]", postalCode)) }
            let created = try await post("/v1/tokens", tokenFields, idempotencyKey: authorization.idempotencyKey + "-token")
            if let decline = try decline(created) { return .declined(decline) }
            guard let tokenID = created.json["id"] as? String else { throw malformed("a token without an id") }
            return .created(tokenID)
        }

        /// A confirmed PaymentIntent's answer (or its card error) as a decision.
        func decision(_ intent: (status: Int, json: [String: Any])) throws -> ProcessorDecision {
            if let decline = try decline(intent) { return decline }
            guard let id = intent.json["id"] as? String, let status = intent.json["status"] as? String else {
                throw malformed("a PaymentIntent without id or status")
            }
            switch status {
            case "succeeded", "requires_capture": return .authorized(reference: id)
            // Not decided yet: no money until Stripe says (`payment_intent.succeeded`, or asked again).
            case "processing": return .pending(reference: id)
            default:
                let error = intent.json["last_payment_error"] as? [String: Any]
                return .declined(
                    Self.reason(error), message: error?["message"] as? String ?? "Stripe left the payment \(status)")
            }
        }

        /// Captures `amount`. Refused because the PaymentIntent is already captured for `amount` —
        /// this very capture, sent again after Stripe forgot its key (24 hours) — it is done.
        public func capture(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ProcessorOperation {
            let answer = try operation(
                await post(
                    "/v1/payment_intents/\(FormEncoding.escape(reference))/capture", [("amount_to_capture", String(amount.minorUnits))],
                    idempotencyKey: idempotencyKey))
            guard case .refused = answer else { return answer }
            return try await alreadyDone(reference, answer) { intent in
                intent["status"] as? String == "succeeded" && (intent["amount_received"] as? NSNumber)?.int64Value == amount.minorUnits
            }
        }

        /// Cancels the PaymentIntent. Refused because it is already canceled — this very void, sent
        /// again after Stripe forgot its key — it is done.
        public func void(_ reference: String, idempotencyKey: String) async throws -> ProcessorOperation {
            let answer = try operation(
                await post(
                    "/v1/payment_intents/\(FormEncoding.escape(reference))/cancel", [("cancellation_reason", "requested_by_customer")],
                    idempotencyKey: idempotencyKey))
            guard case .refused = answer else { return answer }
            return try await alreadyDone(reference, answer) { $0["status"] as? String == "canceled" }
        }

        /// `refused`, unless the PaymentIntent (`GET /v1/payment_intents/{id}`) shows the operation
        /// `done` already: then it succeeded, under the PaymentIntent's id.
        private func alreadyDone(_ reference: String, _ refused: ProcessorOperation, done: ([String: Any]) -> Bool) async throws
            -> ProcessorOperation
        {
            let intent = try await send("GET", "/v1/payment_intents/" + FormEncoding.escape(reference), body: nil, idempotencyKey: nil)
            guard intent.status == 200, done(intent.json), let id = intent.json["id"] as? String else { return refused }
            return .succeeded(reference: id)
        }

        public func refund(_ reference: String, amount: Money, idempotencyKey: String) async throws -> ProcessorOperation {
            try operation(
                await post(
                    "/v1/refunds",
                    [
                        ("payment_intent", reference), ("amount", String(amount.minorUnits)),
                        (Self.refundKeyField, idempotencyKey),
                    ], idempotencyKey: idempotencyKey))
        }

        /// A refund can be `pending` when made and `failed` later: Stripe's refund object says which.
        public var looksUpRefunds: Bool { true }

        /// `GET /v1/refunds/{id}`: `succeeded`, `pending` (or `requires_action`), or `failed`/`canceled`
        /// with Stripe's `failure_reason`.
        public func refundStatus(_ refundReference: String) async throws -> ProcessorOperation? {
            try operation(await send("GET", "/v1/refunds/" + FormEncoding.escape(refundReference), body: nil, idempotencyKey: nil))
        }

        /// Every refund carries its idempotency key in its metadata, to be found by it later.
        static let refundKeyField = "metadata[cashier_refund]"

        /// `GET /v1/refunds?payment_intent=…`, page by page, for the one whose
        /// `metadata.cashier_refund` is `idempotencyKey`.
        public func refundStatus(payment reference: String, idempotencyKey: String) async throws -> ProcessorOperation? {
            var after: String?
            repeat {
                var query = [("payment_intent", reference), ("limit", "100")]
                if let after { query.append(("starting_after", after)) }
                let page = try await send("GET", "/v1/refunds?" + FormEncoding.encode(query), body: nil, idempotencyKey: nil)
                guard page.status == 200, let data = page.json["data"] as? [[String: Any]] else { throw try rejected(page) }
                if let found = data.first(where: { ($0["metadata"] as? [String: Any])?["cashier_refund"] as? String == idempotencyKey }) {
                    return try operation((200, found))
                }
                after = page.json["has_more"] as? Bool == true ? (data.last?["id"] as? String) : nil
            } while after != nil
            return nil
        }

        /// `GET /v1/payment_intents/{id}`: its `metadata.cashier_payment`.
        public func merchantReference(ofPayment reference: String) async throws -> String? {
            let intent = try await send("GET", "/v1/payment_intents/" + FormEncoding.escape(reference), body: nil, idempotencyKey: nil)
            guard intent.status == 200 else {
                guard intent.status == 404 else { throw try rejected(intent) }
                return nil
            }
            return (intent.json["metadata"] as? [String: Any])?["cashier_payment"] as? String
        }

        /// `GET /v1/payment_intents/{id}`: ended when it is `canceled` (lapsed: `cancellation_reason`
        /// `automatic`, Stripe's cancel of a hold past its seven days).
        public func authorizationEnded(_ reference: String) async throws -> AuthorizationEnd? {
            let intent = try await send("GET", "/v1/payment_intents/" + FormEncoding.escape(reference), body: nil, idempotencyKey: nil)
            guard intent.status == 200 else { throw try rejected(intent) }
            return .stripe(status: intent.json["status"] as? String, cancellationReason: intent.json["cancellation_reason"] as? String)
        }

        /// `GET /v1/payment_intents/{id}` (its charge expanded): where it stands now. `processing`
        /// is ``ProcessorPayment/State/pending``; a PaymentIntent that failed waits for another
        /// payment method (`requires_payment_method`) and is ``ProcessorPayment/State/refused``.
        public func payment(_ reference: String) async throws -> ProcessorPayment? {
            let intent = try await send(
                "GET", "/v1/payment_intents/" + FormEncoding.escape(reference) + "?" + FormEncoding.encode([("expand[]", "latest_charge")]),
                body: nil, idempotencyKey: nil)
            guard intent.status == 200 else {
                guard intent.status == 404 else { throw try rejected(intent) }
                return nil
            }
            return try await payment(from: intent.json)
        }

        /// A PaymentIntent (with `latest_charge` expanded) as Cashier reads it, and what went back
        /// of it: refunds, and what disputes took (for a charge marked `disputed`).
        private func payment(from intent: [String: Any]) async throws -> ProcessorPayment {
            guard let id = intent["id"] as? String, let amount = intent["amount"] as? Int,
                let currency = try? Currency(code: (intent["currency"] as? String ?? "").uppercased())
            else { throw malformed("a PaymentIntent without id, amount or currency") }
            let charge = intent["latest_charge"] as? [String: Any]
            let disputed = charge?["disputed"] as? Bool == true ? try await chargedBack(id) : 0
            let status = intent["status"] as? String ?? ""
            let state: ProcessorPayment.State =
                switch status {
                case "succeeded": .captured
                case "requires_capture": .authorized
                case "processing": .pending
                case "canceled": .voided
                default: .refused  // requires_payment_method, requires_confirmation, requires_action
                }
            return ProcessorPayment(
                reference: id, merchantReference: (intent["metadata"] as? [String: Any])?["cashier_payment"] as? String,
                authorized: Money(minorUnits: Int64(amount), currency: currency),
                captured: Money(minorUnits: Int64(intent["amount_received"] as? Int ?? 0), currency: currency),
                refunded: Money(minorUnits: Int64(charge?["amount_refunded"] as? Int ?? 0) + disputed, currency: currency),
                state: state, status: status, createdAt: Date(timeIntervalSince1970: TimeInterval(intent["created"] as? Int ?? 0)))
        }

        /// What disputes took from a disputed PaymentIntent and kept (`GET /v1/disputes?payment_intent=…`):
        /// each dispute's amount for every withdrawal among its balance transactions not matched by
        /// a reinstatement (a dispute won gives the money back).
        private func chargedBack(_ reference: String) async throws -> Int64 {
            let page = try await send(
                "GET", "/v1/disputes?" + FormEncoding.encode([("payment_intent", reference), ("limit", "100")]), body: nil,
                idempotencyKey: nil)
            guard page.status == 200, let data = page.json["data"] as? [[String: Any]] else { throw try rejected(page) }
            return data.reduce(0) { total, dispute in
                let moves = (dispute["balance_transactions"] as? [[String: Any]] ?? []).compactMap {
                    ($0["amount"] as? NSNumber)?.int64Value
                }
                let kept = moves.filter { $0 < 0 }.count - moves.filter { $0 > 0 }.count
                return total + Int64(max(0, kept)) * ((dispute["amount"] as? NSNumber)?.int64Value ?? 0)
            }
        }

        /// Lists PaymentIntents (`GET /v1/payment_intents`, page by page) and what went back of
        /// each: refunds, and what disputes took (for a charge marked `disputed`).
        public func payments(from: Date, to: Date) async throws -> [ProcessorPayment]? {
            var payments: [ProcessorPayment] = []
            var after: String?
            repeat {
                var query = [
                    ("limit", "100"), ("created[gte]", String(Int(from.timeIntervalSince1970))),
                    ("created[lt]", String(Int(to.timeIntervalSince1970))), ("expand[]", "data.latest_charge"),
                ]
                if let after { query.append(("starting_after", after)) }
                let page = try await send("GET", "/v1/payment_intents?" + FormEncoding.encode(query), body: nil, idempotencyKey: nil)
                guard page.status == 200, let data = page.json["data"] as? [[String: Any]] else { throw try rejected(page) }
                for intent in data { payments.append(try await payment(from: intent)) }
                after = page.json["has_more"] as? Bool == true ? (data.last?["id"] as? String) : nil
            } while after != nil
            return payments
        }

        // MARK: - Requests

        func post(_ path: String, _ fields: [(String, String)], idempotencyKey: String) async throws -> (
            status: Int, json: [String: Any]
        ) {
            try await send("POST", path, body: Data(FormEncoding.encode(fields).utf8), idempotencyKey: idempotencyKey)
        }

        func send(_ method: String, _ path: String, body: Data?, idempotencyKey: String?) async throws -> (
            status: Int, json: [String: Any]
        ) {
            guard let url = URL(string: baseURL.absoluteString.trimmingSuffix("/") + path) else {
                throw PaymentError(.invalidConfiguration, provider: .applePay, "Stripe base URL \(baseURL) does not take \(path)")
            }
            var headers: HTTPHeaders = ["Authorization": "Bearer \(secretKey)"]
            if body != nil { headers.add("Content-Type", "application/x-www-form-urlencoded") }
            if let idempotencyKey { headers.add("Idempotency-Key", idempotencyKey) }
            let answer = try await call.send(HTTPRequest(method: method, url: url, headers: headers, body: body ?? Data()))
            if answer.status == 401 || answer.status == 403 {
                throw call.credentialsRefused(answer.status, (answer.json["error"] as? [String: Any])?["message"] as? String)
            }
            return answer
        }

        /// A card error (402, or a token Stripe would not create) as a decline; other 4xx thrown.
        func decline(_ answer: (status: Int, json: [String: Any])) throws -> ProcessorDecision? {
            guard answer.status != 200 else { return nil }
            let error = answer.json["error"] as? [String: Any]
            guard answer.status == 402 || error?["type"] as? String == "card_error" else { throw try rejected(answer) }
            return .declined(Self.reason(error), message: error?["message"] as? String ?? "The card was declined.")
        }

        private func operation(_ answer: (status: Int, json: [String: Any])) throws -> ProcessorOperation {
            guard answer.status == 200 else {
                let error = answer.json["error"] as? [String: Any]
                guard answer.status == 400 || answer.status == 402, let message = error?["message"] as? String else {
                    throw try rejected(answer)
                }
                return .refused(message)
            }
            guard let id = answer.json["id"] as? String else { throw malformed("an answer without an id") }
            let status = answer.json["status"] as? String ?? ""
            if answer.json["object"] as? String == "refund", status == "failed" || status == "canceled" {
                return .refused(answer.json["failure_reason"] as? String ?? "Stripe could not refund")
            }
            return status == "pending" || status == "requires_action" ? .pending(reference: id) : .succeeded(reference: id)
        }

        /// Stripe's `code`/`decline_code` as Apple Pay's reason.
        static func reason(_ error: [String: Any]?) -> DeclineReason {
            switch (error?["decline_code"] as? String) ?? (error?["code"] as? String) {
            case "insufficient_funds": .insufficientFunds
            case "expired_card": .expiredCard
            case "incorrect_zip", "incorrect_address": .invalidBillingAddress
            case "offline_pin_required", "online_or_offline_pin_required": .pinRequired
            case "authentication_required": .authenticationRequired
            default: .cardDeclined
            }
        }

        func rejected(_ answer: (status: Int, json: [String: Any])) throws -> PaymentError {
            let error = answer.json["error"] as? [String: Any]
            return PaymentError(
                .providerRejected, provider: .applePay,
                "Stripe answered HTTP \(answer.status): \(error?["message"] as? String ?? "no error message")")
        }

        func malformed(_ what: String) -> PaymentError {
            PaymentError(.malformedMessage, provider: .applePay, "Stripe sent \(what)")
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
