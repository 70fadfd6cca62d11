import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import Foundation

/// Stripe's Customers and the cards kept for them, for Apple Pay recurring payments:
///
/// - `POST /v1/customers` (`description`, `email`, `metadata[…]`), `GET /v1/customers/{id}`.
/// - A PaymentIntent confirmed with a `customer` and `setup_future_usage` (`off_session` or
///   `on_session`) attaches its card, once authorised, to the Customer as a `pm_…` (the one the
///   request named, or a new one made from the token): the PaymentIntent answers with its
///   `customer` and `payment_method`, and `payment_method.attached` follows.
/// - A merchant-initiated PaymentIntent — `off_session=true` (or `recurring`/`one_off`) with the
///   `customer`, a `payment_method` attached to it and `confirm=true` — charges that card for
///   its amount; `payment_intent.succeeded` or `payment_intent.payment_failed` follows. Refused
///   (400, `param` `payment_method`): no `payment_method`, or one not attached to that Customer;
///   an unknown Customer is a 404 (`resource_missing`, `param` `customer`).
/// - `GET /v1/payment_methods?customer=…&type=card`, `POST /v1/payment_methods/{id}/detach`
///   (`payment_method.detached`), and `GET /v1/payment_methods/{id}` with its `customer`.
/// - Declines: the sandbox's magic cards and amounts (an amount ending in 51 declines
///   `insufficient_funds`), and `POST /sandbox/stripe/payment_methods/{pm_…}/decline
///   {"code":"insufficient_funds"|"card_declined"|"expired_card"|"authentication_required"}`,
///   which declines that card's next merchant-initiated charge (once) with Stripe's error
///   (`card_declined` + `decline_code`, or `authentication_required`).
extension StripeSandbox {
    func registerCustomers(on router: inout Router, prefix: String) {
        router.add("POST", prefix + "/v1/customers") { request, _ in
            await self.idempotent(request) { self.createCustomer(request.formFields) }
        }
        router.add("GET", prefix + "/v1/customers/{id}") { request, parameters in
            if let refusal = self.authorized(request) { return refusal }
            guard let customer = self.customers.withLock({ $0[parameters["id"]] }) else {
                return Self.error(
                    404, "invalid_request_error", "resource_missing", "No such customer: '\(parameters["id"])'", param: "id")
            }
            return .json(object: customer.value)
        }
        router.add("GET", prefix + "/v1/payment_methods") { request, _ in
            if let refusal = self.authorized(request) { return refusal }
            guard let customer = request.queryValue("customer") else {
                return Self.error(400, "invalid_request_error", "parameter_missing", "The sandbox lists a customer's: customer=cus_….")
            }
            let data = self.stored.cards(of: customer).compactMap { card in self.objects.withLock { $0[card.id]?.value } }
            return .json(object: ["object": "list", "url": "/v1/payment_methods", "has_more": false, "data": data])
        }
        router.add("POST", prefix + "/v1/payment_methods/{id}/detach") { request, parameters in
            await self.idempotent(request) { self.detach(parameters["id"]) }
        }
        router.add("POST", "/sandbox/stripe/payment_methods/{id}/decline", stored.declineHandler(parameter: "id"))
    }

    private func createCustomer(_ fields: [String: String]) -> HTTPServerResponse {
        let id = "cus_" + SecureRandom.alphanumeric(count: 14)
        let object: [String: Any] = [
            "id": id, "object": "customer", "created": Int(Date().timeIntervalSince1970), "livemode": false,
            "description": fields["description"] ?? NSNull(), "email": fields["email"] ?? NSNull(), "metadata": Self.metadata(fields),
        ]
        customers.withLock { $0[id] = StripeObject(value: object) }
        return .json(object: object)
    }

    /// `off_session` names a merchant-initiated payment (`true`, `recurring` or `one_off`).
    static func isOffSession(_ fields: [String: String]) -> Bool {
        ["true", "recurring", "one_off"].contains(fields["off_session"] ?? "")
    }

    /// The `pm_…` a PaymentIntent confirmed with `payment_method_data` for a Customer and
    /// `setup_future_usage` will attach: named from the start, as Stripe shows it on the
    /// PaymentIntent (also one left `processing`, attached only once it succeeds).
    func reservedMethod(_ fields: [String: String]) -> String? {
        guard fields["customer"] != nil, fields["setup_future_usage"] != nil, fields["payment_method_data[card][token]"] != nil else {
            return nil
        }
        return "pm_" + SecureRandom.alphanumeric(count: 24)
    }

    /// A PaymentIntent naming a Customer the sandbox does not have.
    func customerRefusal(_ fields: [String: String]) -> HTTPServerResponse? {
        guard let customer = fields["customer"], customers.withLock({ $0[customer] }) == nil else { return nil }
        return Self.error(404, "invalid_request_error", "resource_missing", "No such customer: '\(customer)'", param: "customer")
    }

    /// Attaches the card of an authorised PaymentIntent confirmed with `setup_future_usage` to its Customer.
    func keepForCustomer(
        _ draft: Draft, _ found: (token: ApplePay.PaymentToken, payment: ApplePay.DecryptedPayment), intent: String
    ) {
        guard let customer = draft.customer else { return }
        if let used = intentMethods.withLock({ $0[intent] }), used.customer == customer { return }  // merchant-initiated, already kept
        guard draft.setupFutureUsage == "off_session" || draft.setupFutureUsage == "on_session" else { return }
        // The pm_… the request named (made from the token), or the one reserved for its card.
        let pm = draft.methodID ?? "pm_" + SecureRandom.alphanumeric(count: 24)
        _ = stored.store(pm, for: customer, token: found.token, payment: found.payment, model: draft.setupFutureUsage)
        let expiry = found.payment.applicationExpirationDate
        let object: [String: Any] = [
            "id": pm, "object": "payment_method", "type": "card", "livemode": false, "customer": customer,
            "created": Int(Date().timeIntervalSince1970),
            "card": [
                "last4": String(found.payment.applicationPrimaryAccountNumber.suffix(4)), "exp_year": 2000 + (Int(expiry.prefix(2)) ?? 0),
                "exp_month": Int(expiry.dropFirst(2).prefix(2)) ?? 0, "wallet": ["type": "apple_pay"],
            ] as [String: Any],
        ]
        objects.withLock { $0[pm] = StripeObject(value: object) }
        intentMethods.withLock { $0[intent] = (customer, pm) }
        announce("payment_method.attached", object, filedUnder: "payment_method.attached \(pm)")
    }

    /// `POST /v1/payment_methods/{id}/detach`.
    private func detach(_ id: String) -> HTTPServerResponse {
        guard var object = objects.withLock({ $0[id]?.value }) else {
            return Self.error(404, "invalid_request_error", "resource_missing", "No such PaymentMethod: '\(id)'", param: "payment_method")
        }
        guard stored.detach(id, from: nil) else {
            return Self.error(
                400, "invalid_request_error", "payment_method_unexpected_state",
                "The payment method you provided is not attached to a customer so detachment is impossible.", param: "payment_method")
        }
        object["customer"] = NSNull()
        objects.withLock { $0[id] = StripeObject(value: object) }
        announce("payment_method.detached", object, filedUnder: "payment_method.detached \(id)")
        return .json(object: object)
    }

    /// A merchant-initiated PaymentIntent: the Customer's attached card charged for `amount`.
    func chargeOffSession(_ fields: [String: String], amount: Money, _ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard fields["confirm"] == "true" else {
            return Self.error(
                400, "invalid_request_error", "parameter_invalid", "off_session can only be used with confirm=true.", param: "off_session")
        }
        guard let customer = fields["customer"] else {
            return Self.error(
                400, "invalid_request_error", "parameter_missing", "An off_session payment needs the customer its card is attached to.",
                param: "customer")
        }
        guard let method = fields["payment_method"] else {
            return Self.error(
                400, "invalid_request_error", "parameter_missing",
                "An off_session payment needs a payment_method attached to the customer: the sandbox stored none to use.",
                param: "payment_method")
        }
        guard let card = stored.charge(method, of: customer, amount: amount) else {
            return Self.error(
                400, "invalid_request_error", "payment_method_unexpected_state",
                "The provided PaymentMethod \(method) is not attached to customer \(customer) (it was detached, or never attached to it).",
                param: "payment_method")
        }
        var draft = Draft(
            id: "pi_" + SecureRandom.alphanumeric(count: 24), amount: amount, capture: fields["capture_method"] != "manual",
            metadata: Self.metadata(fields), paymentMethod: nil, created: Int(Date().timeIntervalSince1970))
        draft.customer = customer
        draft.methodID = method
        intentMethods.withLock { $0[draft.id] = (customer, method) }
        let answer = await authorize(draft, card, tokenID: nil, idempotencyKey: request.headers["Idempotency-Key"])
        if answer.status == 200, let object = intent(draft.id, expandCharge: false) {
            announce("payment_intent.succeeded", object, filedUnder: "payment_intent.succeeded \(draft.id)")
        } else if answer.status == 402, let declined = drafts.withLock({ $0[draft.id] }) {
            var object = draftObject(declined)
            object["customer"] = customer
            announce("payment_intent.payment_failed", object, filedUnder: "payment_intent.payment_failed \(draft.id)")
        }
        return answer
    }
}
