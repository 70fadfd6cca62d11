import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import Foundation
import Synchronization

/// Stripe's API under `/stripe/v1/…`, for Apple Pay: tokens from `pk_token`, PaymentIntents
/// confirmed with them (automatic or manual capture), capture, cancel, refunds (full and
/// partial) and the list of PaymentIntents — enough for Stripe's Python SDK with
/// `stripe.api_base` pointed here, and for ``ApplePay/StripeProcessor``. Any `sk_test_…` key is
/// accepted; others answer 401. Cards and amounts decide as ``ApplePay/SandboxProcessor``
/// documents; an amount ending in 99 answers 500 (an outage: nothing is charged), and one ending
/// in 56 stays `processing` — authorised or failed only when `POST /sandbox/stripe/decide` says,
/// with its webhook event (see StripeSandbox+Events.swift).
///
/// Like Stripe, it sends signed webhook events once an endpoint is set up (``sendWebhooks(to:secret:)``,
/// or `POST /sandbox/stripe/webhook`): `charge.refund.updated` when a refund that came back
/// `pending` fails, and a dispute's events (``dispute(_:event:amount:)``, or
/// `POST /sandbox/stripe/dispute`) — see StripeSandbox+Events.swift.
public final class StripeSandbox: Sendable {
    public let core: ProcessorSandbox
    let delivery: NotificationDelivery
    /// Where events go, and the endpoint's signing secret.
    let webhook = Mutex<(url: String, secret: String)?>(nil)
    /// Each disputed PaymentIntent's dispute (Stripe allows one per charge).
    let disputes = Mutex<[String: Dispute]>([:])
    /// Each cancelled PaymentIntent's `cancellation_reason` (`automatic` when its authorisation lapsed).
    let cancellations = Mutex<[String: String]>([:])
    /// `tok_…` → the decrypted payment it stands for, until a PaymentIntent uses it.
    private let tokens = Mutex<[String: (token: ApplePay.PaymentToken, payment: ApplePay.DecryptedPayment, used: Bool)]>([:])

    /// Tokens, payment methods and refunds as created, for `GET` (Stripe's objects are JSON).
    let objects = Mutex<[String: StripeObject]>([:])
    /// PaymentIntents created without `confirm=true`, waiting for a payment method and a confirm.
    let drafts = Mutex<[String: Draft]>([:])
    /// PaymentIntents confirmed for an amount ending in 56: `processing` until
    /// ``decide(_:succeeded:)`` (`POST /sandbox/stripe/decide`).
    let undecided = Mutex<[String: Undecided]>([:])
    /// What refunds do (`POST /sandbox/refund_outcome`): succeed, be refused (`balance_insufficient`),
    /// or come back `pending` and turn `failed` (`expired_or_canceled_card`, no money moved).
    private let refundOutcome = Mutex<SandboxRefundOutcome>(.succeed)
    /// Refund ids in the order they were made, for the list.
    private let refundOrder = Mutex<[String]>([])
    /// Customers, the cards attached to them, and which PaymentIntents used which (StripeSandbox+Customers.swift).
    let customers = Mutex<[String: StripeObject]>([:])
    let stored = StoredPaymentMethods()
    let intentMethods = Mutex<[String: (customer: String, method: String)]>([:])

    /// A JSON object kept as Stripe returned it.
    struct StripeObject: @unchecked Sendable {
        let value: [String: Any]
    }

    /// A PaymentIntent Stripe has not decided, with what deciding it needs.
    struct Undecided: Sendable {
        let draft: Draft
        let token: ApplePay.PaymentToken
        let payment: ApplePay.DecryptedPayment
        let idempotencyKey: String?
    }

    struct Draft: Sendable {
        let id: String
        let amount: Money
        let capture: Bool
        let metadata: [String: String]
        var paymentMethod: String?
        var created: Int
        var lastError: String?
        /// The Customer (`customer`), and whether to keep the card for it (`setup_future_usage`).
        var customer: String? = nil
        var setupFutureUsage: String? = nil
        /// The `pm_…` the request named, if any.
        var methodID: String? = nil
    }

    init(ca: ApplePayTestCA, delivery: NotificationDelivery) {
        core = ProcessorSandbox(naming: .init(payment: "pi_", operation: "re_"), ca: ca)
        self.delivery = delivery
    }

    /// What refunds do from now on (shared with the other sandboxes' `POST /sandbox/refund_outcome`).
    public func setRefundOutcome(_ outcome: SandboxRefundOutcome) {
        refundOutcome.withLock { $0 = outcome }
    }

    func register(on router: inout Router, prefix: String) {
        router.add("POST", prefix + "/v1/tokens") { request, _ in await self.idempotent(request) { self.createToken(request) } }
        router.add("POST", prefix + "/v1/payment_intents") { request, _ in
            await self.idempotent(request) { await self.createPaymentIntent(request) }
        }
        router.add("GET", prefix + "/v1/payment_intents") { request, _ in self.authorized(request) ?? self.list(request) }
        router.add("GET", prefix + "/v1/payment_intents/{id}") { request, parameters in
            self.authorized(request) ?? self.retrieve(parameters["id"])
        }
        router.add("POST", prefix + "/v1/payment_intents/{id}/capture") { request, parameters in
            await self.idempotent(request) { await self.capture(parameters["id"], request.formFields) }
        }
        router.add("POST", prefix + "/v1/payment_intents/{id}/cancel") { request, parameters in
            await self.idempotent(request) { await self.cancel(parameters["id"], reason: request.formFields["cancellation_reason"]) }
        }
        router.add("POST", prefix + "/v1/refunds") { request, _ in await self.idempotent(request) { await self.refund(request.formFields) }
        }
        router.add("POST", prefix + "/v1/payment_intents/{id}/confirm") { request, parameters in
            await self.idempotent(request) { await self.confirm(parameters["id"], request) }
        }
        router.add("POST", prefix + "/v1/payment_methods") { request, _ in
            await self.idempotent(request) { self.createPaymentMethod(request.formFields) }
        }
        router.add("GET", prefix + "/v1/refunds") { request, _ in self.authorized(request) ?? self.listRefunds(request) }
        router.add("GET", prefix + "/v1/disputes") { request, _ in self.authorized(request) ?? self.listDisputes(request) }
        registerEvents(on: &router)
        registerCustomers(on: &router, prefix: prefix)
        for (path, kind) in [("/v1/tokens/{id}", "token"), ("/v1/refunds/{id}", "refund"), ("/v1/payment_methods/{id}", "payment_method")] {
            router.add("GET", prefix + path) { request, parameters in
                if let refusal = self.authorized(request) { return refusal }
                let id = parameters["id"]
                guard let object = self.objects.withLock({ $0[id] }) else {
                    return Self.error(404, "invalid_request_error", "resource_missing", "No such \(kind): '\(id)'", param: "id")
                }
                return .json(object: object.value)
            }
        }
    }

    // MARK: - Requests

    func idempotent(_ request: HTTPServerRequest, _ act: () async -> HTTPServerResponse) async -> HTTPServerResponse {
        if let refusal = authorized(request) { return refusal }
        return await core.once(
            request.headers["Idempotency-Key"], request,
            conflict: Self.error(
                409, "idempotency_error", "idempotency_key_in_use",
                "There is currently another in-progress request using this Idempotent Key."),
            mismatch: Self.error(
                400, "idempotency_error", nil,
                "Keys for idempotent requests can only be used with the same parameters they were first used with."),
            act)
    }

    /// `nil` when the request carries an `sk_test_` key.
    func authorized(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        let header = request.headers["Authorization"] ?? ""
        guard header.hasPrefix("Bearer sk_test_") || header.hasPrefix("Bearer rk_test_") else {
            return Self.error(401, "invalid_request_error", nil, "Invalid API Key provided (the sandbox takes sk_test_… keys).")
        }
        return nil
    }

    private func createToken(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let fields = request.formFields
        guard let pkToken = fields["pk_token"] else {
            return Self.error(400, "invalid_request_error", "parameter_missing", "Missing required param: pk_token.", param: "pk_token")
        }
        let token: ApplePay.PaymentToken
        let payment: ApplePay.DecryptedPayment
        do {
            (token, payment) = try core.decrypt(Data(pkToken.utf8))
        } catch {
            return Self.error(
                400, "invalid_request_error", "apple_pay_token_invalid",
                "There was an error decrypting the Apple Pay token: \((error as? PaymentError)?.message ?? "\(error)")", param: "pk_token")
        }
        let id = "tok_" + SecureRandom.alphanumeric(count: 24)
        tokens.withLock { $0[id] = (token, payment, false) }
        let expiry = payment.applicationExpirationDate
        var card: [String: Any] = [
            "id": "card_" + SecureRandom.alphanumeric(count: 24), "object": "card", "tokenization_method": "apple_pay",
            "last4": String(payment.applicationPrimaryAccountNumber.suffix(4)),
        ]
        card["brand"] = fields["pk_token_payment_network"] ?? "Visa"
        card["exp_year"] = 2000 + (Int(expiry.prefix(2)) ?? 0)
        card["exp_month"] = Int(expiry.dropFirst(2).prefix(2)) ?? 0
        card["address_zip"] = fields["card[address_zip]"]
        card["name"] = fields["pk_token_instrument_name"]
        let object: [String: Any] = [
            "id": id, "object": "token", "type": "card", "used": false, "livemode": false, "created": Int(Date().timeIntervalSince1970),
            "card": card,
        ]
        objects.withLock { $0[id] = StripeObject(value: object) }
        return .json(object: object)
    }

    private func createPaymentIntent(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let fields = request.formFields
        guard let amount = fields["amount"].flatMap({ Int64($0) }), amount > 0,
            let currency = try? Currency(code: (fields["currency"] ?? "").uppercased())
        else {
            return Self.error(400, "invalid_request_error", "parameter_missing", "amount (a positive integer) and currency are required.")
        }
        let metadata = Self.metadata(fields)
        if let refusal = customerRefusal(fields) { return refusal }
        if Self.isOffSession(fields) {
            return await chargeOffSession(fields, amount: Money(minorUnits: amount, currency: currency), request)
        }
        var draft = Draft(
            id: "pi_" + SecureRandom.alphanumeric(count: 24), amount: Money(minorUnits: amount, currency: currency),
            capture: fields["capture_method"] != "manual", metadata: metadata, paymentMethod: paymentMethod(fields),
            created: Int(Date().timeIntervalSince1970))
        draft.customer = fields["customer"]
        draft.setupFutureUsage = fields["setup_future_usage"]
        draft.methodID = fields["payment_method"] ?? reservedMethod(fields)
        guard fields["confirm"] == "true" else {
            drafts.withLock { $0[draft.id] = draft }
            return .json(object: draftObject(draft))
        }
        return await confirm(draft, idempotencyKey: request.headers["Idempotency-Key"])
    }

    /// `POST /v1/payment_intents/{id}/confirm`, with the payment method given now or at creation.
    private func confirm(_ id: String, _ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard var draft = drafts.withLock({ $0[id] }) else {
            if core.processor.entry(id) != nil {
                return Self.error(
                    400, "invalid_request_error", "payment_intent_unexpected_state", "This PaymentIntent was already confirmed.")
            }
            return Self.error(404, "invalid_request_error", "resource_missing", "No such payment_intent: '\(id)'", param: "intent")
        }
        if let method = paymentMethod(request.formFields) { draft.paymentMethod = method }
        return await confirm(draft, idempotencyKey: request.headers["Idempotency-Key"])
    }

    /// The token a request names: `payment_method_data[card][token]`, or a `pm_…` made from one.
    private func paymentMethod(_ fields: [String: String]) -> String? {
        if let token = fields["payment_method_data[card][token]"] { return token }
        guard let method = fields["payment_method"] else { return nil }
        return objects.withLock { ($0[method]?.value["card"] as? [String: Any])?["token"] as? String }
    }

    /// `POST /v1/payment_methods` (`type=card`, `card[token]=tok_…`).
    private func createPaymentMethod(_ fields: [String: String]) -> HTTPServerResponse {
        guard fields["type"] == "card", let token = fields["card[token]"], let card = objects.withLock({ $0[token]?.value["card"] }) else {
            return Self.error(
                400, "invalid_request_error", "parameter_missing",
                "The sandbox makes card payment methods from tokens: type=card&card[token]=tok_….")
        }
        let id = "pm_" + SecureRandom.alphanumeric(count: 24)
        var object: [String: Any] = ["id": id, "object": "payment_method", "type": "card", "livemode": false]
        object["card"] = ["token": token, "wallet": ["type": "apple_pay"], "details": card]
        objects.withLock { $0[id] = StripeObject(value: object) }
        return .json(object: object)
    }

    func draftObject(_ draft: Draft) -> [String: Any] {
        var object: [String: Any] = [
            "id": draft.id, "object": "payment_intent", "amount": draft.amount.minorUnits, "amount_received": 0,
            "currency": draft.amount.currency.code.lowercased(),
            "status": draft.paymentMethod == nil ? "requires_payment_method" : "requires_confirmation",
            "capture_method": draft.capture ? "automatic" : "manual", "created": draft.created, "livemode": false,
            "metadata": draft.metadata,
        ]
        if let error = draft.lastError { object["last_payment_error"] = ["type": "card_error", "message": error] }
        if let customer = draft.customer { object["customer"] = customer }
        if let method = draft.methodID, draft.paymentMethod != nil { object["payment_method"] = method }
        return object
    }

    /// Authorises a PaymentIntent with its token, once.
    private func confirm(_ draft: Draft, idempotencyKey: String?) async -> HTTPServerResponse {
        guard let tokenID = draft.paymentMethod else {
            return Self.error(
                400, "invalid_request_error", "parameter_missing",
                "You cannot confirm this PaymentIntent because it's missing a payment method: send payment_method_data[card][token]=tok_….")
        }
        let found: (token: ApplePay.PaymentToken, payment: ApplePay.DecryptedPayment)? = tokens.withLock { tokens in
            guard let entry = tokens[tokenID], !entry.used else { return nil }
            tokens[tokenID]?.used = true
            return (entry.token, entry.payment)
        }
        guard let found else {
            return Self.error(
                400, "invalid_request_error", "token_already_used", "You cannot use a Stripe token more than once: \(tokenID).")
        }
        if abs(draft.amount.minorUnits % 100) == 56 {
            undecided.withLock {
                $0[draft.id] = Undecided(draft: draft, token: found.token, payment: found.payment, idempotencyKey: idempotencyKey)
            }
            drafts.withLock { $0[draft.id] = nil }
            return .json(object: Self.processingObject(draftObject(draft)))
        }
        return await authorize(draft, found, tokenID: tokenID, idempotencyKey: idempotencyKey)
    }

    /// A PaymentIntent confirmed for an amount ending in 56, as Stripe shows one it has not decided.
    static func processingObject(_ draft: [String: Any]) -> [String: Any] {
        var object = draft
        object["status"] = "processing"
        return object
    }

    /// Asks the processor to authorise a confirmed PaymentIntent; its answer as Stripe gives it.
    /// `tokenID`: the token to give back when the processor could not be reached.
    func authorize(
        _ draft: Draft, _ found: (token: ApplePay.PaymentToken, payment: ApplePay.DecryptedPayment), tokenID: String?,
        idempotencyKey: String?
    ) async -> HTTPServerResponse {
        let decision: ApplePay.ProcessorDecision
        do {
            decision = try await core.processor.authorize(
                ApplePay.ProcessorAuthorization(
                    amount: draft.amount, reference: draft.metadata["cashier_payment"] ?? draft.id,
                    idempotencyKey: idempotencyKey ?? draft.id, capture: draft.capture, token: found.token, decrypted: found.payment),
                as: draft.id)
        } catch let error as PaymentError where error.code == .transport {
            if let tokenID { tokens.withLock { $0[tokenID]?.used = false } }
            return Self.error(500, "api_error", nil, "An error occurred with our connection to Stripe (the sandbox's amount ending in 99).")
        } catch {
            return Self.error(400, "invalid_request_error", "amount_mismatch", (error as? PaymentError)?.message ?? "\(error)")
        }
        switch decision {
        case .authorized(let id), .pending(let id):
            metadataByIntent.withLock { $0[id] = draft.metadata }
            keepForCustomer(draft, found, intent: id)
            drafts.withLock { $0[draft.id] = nil }
            return retrieve(id)
        case .declined(let reason, let message):
            let code: (String, String?) =
                switch reason {
                case .insufficientFunds: ("card_declined", "insufficient_funds")
                case .expiredCard: ("expired_card", nil)
                case .invalidBillingAddress: ("incorrect_zip", nil)
                case .pinRequired: ("card_declined", "online_or_offline_pin_required")
                case .authenticationRequired: ("authentication_required", "authentication_required")
                default: ("card_declined", "generic_decline")
                }
            // As Stripe does: the PaymentIntent stays, waiting for another payment method.
            var declined = draft
            declined.paymentMethod = nil
            declined.lastError = message
            drafts.withLock { $0[draft.id] = declined }
            var error: [String: Any] = ["type": "card_error", "code": code.0, "message": message]
            if let decline = code.1 { error["decline_code"] = decline }
            error["payment_intent"] = draftObject(declined)
            return .json(object: ["error": error], status: 402)
        }
    }

    private let metadataByIntent = Mutex<[String: [String: String]]>([:])

    private func retrieve(_ id: String, expandCharge: Bool = false) -> HTTPServerResponse {
        if let draft = drafts.withLock({ $0[id] }) { return .json(object: draftObject(draft)) }
        if let pending = undecided.withLock({ $0[id] }) { return .json(object: Self.processingObject(draftObject(pending.draft))) }
        guard let object = intent(id, expandCharge: expandCharge) else {
            return Self.error(404, "invalid_request_error", "resource_missing", "No such payment_intent: '\(id)'", param: "intent")
        }
        return .json(object: object)
    }

    func intent(_ id: String, expandCharge: Bool) -> [String: Any]? {
        guard let entry = core.processor.entry(id) else { return nil }
        let status =
            switch entry.status {
            case .authorized: "requires_capture"
            case .captured: "succeeded"
            case .voided, .captureFailed: "canceled"  // Stripe's captures do not fail later; only the Adyen sandbox's do
            }
        let charge = "ch_" + entry.reference.dropFirst(3)
        let used = intentMethods.withLock { $0[entry.reference] }
        return [
            "customer": used?.customer ?? NSNull(), "payment_method": used?.method ?? NSNull(),
            "id": entry.reference, "object": "payment_intent", "amount": entry.amount.minorUnits,
            "amount_capturable": entry.status == .authorized ? entry.amount.minorUnits : 0, "amount_received": entry.captured.minorUnits,
            "currency": entry.amount.currency.code.lowercased(), "status": status,
            "capture_method": entry.status == .authorized || entry.captured != entry.amount ? "manual" : "automatic",
            "created": Int(entry.createdAt.timeIntervalSince1970), "livemode": false,
            "metadata": metadataByIntent.withLock { $0[entry.reference] } ?? [:],
            "cancellation_reason": cancellations.withLock { $0[entry.reference] } ?? NSNull(),
            "latest_charge": expandCharge
                ? [
                    "id": charge, "object": "charge", "amount": entry.amount.minorUnits, "amount_captured": entry.captured.minorUnits,
                    "amount_refunded": entry.refunded.minorUnits, "refunded": entry.refunded == entry.captured && entry.captured.isPositive,
                    "disputed": disputes.withLock { $0[entry.reference] } != nil,
                ] as [String: Any] : charge,
        ]
    }

    private func list(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let from = request.queryValue("created[gte]").flatMap(Int.init) ?? 0
        let to = request.queryValue("created[lt]").flatMap(Int.init) ?? Int.max
        let limit = min(100, max(1, request.queryValue("limit").flatMap(Int.init) ?? 10))
        let expand = request.query.contains { $0.name == "expand[]" && $0.value == "data.latest_charge" }
        // Newest first, as Stripe lists; those Stripe has not decided (amounts ending in 56) among
        // them, as `processing`.
        let decided = core.processor.entries.map { (id: $0.reference, created: Int($0.createdAt.timeIntervalSince1970)) }
        let waiting = undecided.withLock { $0.values.map { (id: $0.draft.id, created: $0.draft.created) } }
        var listed = (decided + waiting).reversed().sorted { $0.created > $1.created }[...]
        // The cursor is found among every intent (as Stripe does), not only those the filter keeps;
        // one that names none is an error, not the first page again (a client would page forever).
        if let after = request.queryValue("starting_after") {
            guard let index = listed.firstIndex(where: { $0.id == after }) else {
                return Self.error(
                    404, "invalid_request_error", "resource_missing", "No such payment_intent: '\(after)'", param: "starting_after")
            }
            listed = listed[(index + 1)...]
        }
        listed = listed.filter { $0.created >= from && $0.created < to }
        let page = listed.prefix(limit).compactMap { entry -> [String: Any]? in
            intent(entry.id, expandCharge: expand)
                ?? undecided.withLock { $0[entry.id] }.map { Self.processingObject(draftObject($0.draft)) }
        }
        return .json(object: ["object": "list", "url": "/v1/payment_intents", "has_more": listed.count > limit, "data": page])
    }

    private func capture(_ id: String, _ fields: [String: String]) async -> HTTPServerResponse {
        guard let entry = core.processor.entry(id) else {
            return Self.error(404, "invalid_request_error", "resource_missing", "No such payment_intent: '\(id)'", param: "intent")
        }
        let amount =
            fields["amount_to_capture"].flatMap { Int64($0) }.map { Money(minorUnits: $0, currency: entry.amount.currency) } ?? entry.amount
        return operation(id, try? await core.processor.capture(id, amount: amount, idempotencyKey: UUID().uuidString))
    }

    /// Cancels a PaymentIntent; its `cancellation_reason` is the request's (`null` without one), as Stripe keeps it.
    private func cancel(_ id: String, reason: String?) async -> HTTPServerResponse {
        if undecided.withLock({ $0[id] }) != nil {
            return Self.error(
                400, "invalid_request_error", "payment_intent_unexpected_state",
                "You cannot cancel this PaymentIntent because it has a status of processing.")
        }
        if let draft = drafts.withLock({ $0.removeValue(forKey: id) }) {
            var object = draftObject(draft)
            object["status"] = "canceled"
            return .json(object: object)
        }
        let result = try? await core.processor.void(id, idempotencyKey: UUID().uuidString)
        if case .succeeded = result {
            if let reason { cancellations.withLock { $0[id] = reason } }
            if let object = intent(id, expandCharge: false) {
                announce("payment_intent.canceled", object, filedUnder: "payment_intent.canceled \(id)")
            }
        }
        return operation(id, result)
    }

    private func operation(_ id: String, _ result: ApplePay.ProcessorOperation?) -> HTTPServerResponse {
        switch result {
        case .succeeded, .pending: return retrieve(id)
        case .refused(let reason): return Self.error(400, "invalid_request_error", "payment_intent_unexpected_state", reason)
        case nil: return Self.error(404, "invalid_request_error", "resource_missing", "No such payment_intent: '\(id)'")
        }
    }

    /// `GET /v1/refunds?payment_intent=…`: newest first, `limit` and `starting_after` as Stripe pages.
    private func listRefunds(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let intent = request.queryValue("payment_intent")
        let limit = min(100, max(1, request.queryValue("limit").flatMap(Int.init) ?? 10))
        var refunds = refundOrder.withLock { $0 }.reversed().compactMap { id in objects.withLock { $0[id]?.value } }[...]
        if let after = request.queryValue("starting_after") {
            guard let index = refunds.firstIndex(where: { $0["id"] as? String == after }) else {
                return Self.error(404, "invalid_request_error", "resource_missing", "No such refund: '\(after)'", param: "starting_after")
            }
            refunds = refunds[(index + 1)...]
        }
        refunds = refunds.filter { intent == nil || $0["payment_intent"] as? String == intent }
        return .json(object: [
            "object": "list", "url": "/v1/refunds", "has_more": refunds.count > limit, "data": Array(refunds.prefix(limit)),
        ])
    }

    /// `metadata[key]` form fields as Stripe's `metadata` object.
    static func metadata(_ fields: [String: String]) -> [String: String] {
        var metadata: [String: String] = [:]
        for (name, value) in fields where name.hasPrefix("metadata[") && name.hasSuffix("]") {
            metadata[String(name.dropFirst(9).dropLast())] = value
        }
        return metadata
    }

    /// Keeps a refund object for `GET /v1/refunds/{id}` and the list.
    private func keep(refund id: String, _ object: [String: Any]) {
        objects.withLock { $0[id] = StripeObject(value: object) }
        refundOrder.withLock { $0.append(id) }
    }

    func refund(_ fields: [String: String]) async -> HTTPServerResponse {
        guard let id = fields["payment_intent"], let entry = core.processor.entry(id) else {
            return Self.error(
                400, "invalid_request_error", "resource_missing", "No such payment_intent: '\(fields["payment_intent"] ?? "")'",
                param: "payment_intent")
        }
        let minor = fields["amount"].flatMap { Int64($0) } ?? (entry.captured.minorUnits - entry.refunded.minorUnits)
        let amount = Money(minorUnits: minor, currency: entry.amount.currency)
        var object: [String: Any] = [
            "object": "refund", "amount": minor, "currency": entry.amount.currency.code.lowercased(), "payment_intent": id,
            "charge": "ch_" + id.dropFirst(3), "status": "succeeded", "created": Int(Date().timeIntervalSince1970),
            "metadata": Self.metadata(fields),
        ]
        switch refundOutcome.withLock({ $0 }) {
        case .succeed:
            let result = try? await core.processor.refund(id, amount: amount, idempotencyKey: UUID().uuidString)
            guard case .succeeded(let refund) = result else {
                let reason: String = if case .refused(let text) = result { text } else { "the refund failed" }
                let code = entry.refunded == entry.captured && entry.captured.isPositive ? "charge_already_refunded" : "amount_too_large"
                return Self.error(400, "invalid_request_error", code, reason, param: "amount")
            }
            object["id"] = refund
            keep(refund: refund, object)
        case .refuse:
            return Self.error(400, "invalid_request_error", "balance_insufficient", "Insufficient funds in Stripe balance to refund")
        case .failLater:
            // Pending now; failed when asked again. The card never gets the money.
            let refund = "re_" + SecureRandom.alphanumeric(count: 24)
            object["id"] = refund
            object["status"] = "failed"
            object["failure_reason"] = "expired_or_canceled_card"
            keep(refund: refund, object)
            announce("charge.refund.updated", object, filedUnder: "charge.refund.updated " + refund)
            object["status"] = "pending"
            object["failure_reason"] = nil
        }
        if let id = object["id"] as? String { announce("refund.created", object, filedUnder: "refund.created " + id) }
        return .json(object: object)
    }

    /// Stripe's error shape: `{"error": {"type", "code", "message", "param"}}`.
    static func error(_ status: Int, _ type: String, _ code: String?, _ message: String, param: String? = nil) -> HTTPServerResponse {
        var error: [String: Any] = ["type": type, "message": message]
        if let code { error["code"] = code }
        if let param { error["param"] = param }
        return .json(object: ["error": error], status: status)
    }
}
