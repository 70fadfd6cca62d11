public import Cashier
import CashierCrypto
import Foundation

extension ApplePay.StripeProcessor: ApplePay.RecurringProcessor {
    /// The first payment: a Customer (`POST /v1/customers`, `metadata[cashier_shopper]` the
    /// shopper reference, under the authorisation's key plus `-customer`), the token
    /// (`POST /v1/tokens`), then a PaymentIntent confirmed with it for the Customer with
    /// `setup_future_usage=off_session` (and the mandate's
    /// `payment_method_options[card][mandate_options]…` when the terms carry one). Stripe attaches
    /// the PaymentMethod it made from the token to the Customer once the payment succeeds: the
    /// stored method is the Customer and that PaymentMethod.
    public func authorize(_ authorization: ApplePay.ProcessorAuthorization, storing terms: ApplePay.RecurringTerms) async throws
        -> ApplePay.StoringDecision
    {
        let customer = try await post(
            "/v1/customers", [("metadata[cashier_shopper]", terms.shopperReference), ("description", terms.shopperReference)],
            idempotencyKey: authorization.idempotencyKey + "-customer")
        guard customer.status == 200 else { throw try rejected(customer) }
        guard let customerID = customer.json["id"] as? String else { throw malformed("a Customer without an id") }
        let tokenID: String
        switch try await token(for: authorization) {
        case .declined(let decline): return ApplePay.StoringDecision(decision: decline, stored: nil)
        case .created(let id): tokenID = id
        }
        var fields = [
            ("amount", String(authorization.amount.minorUnits)), ("currency", authorization.amount.currency.code.lowercased()),
            ("customer", customerID), ("payment_method_data[type]", "card"), ("payment_method_data[card][token]", tokenID),
            ("setup_future_usage", "off_session"), ("confirm", "true"), ("capture_method", authorization.capture ? "automatic" : "manual"),
            ("metadata[cashier_payment]", authorization.reference),
        ]
        if let mandate = terms.mandate { fields += Self.mandateFields(mandate) }
        let intent = try await post("/v1/payment_intents", fields, idempotencyKey: authorization.idempotencyKey)
        let decision = try decision(intent)
        let method = intent.json["payment_method"] as? String ?? (intent.json["payment_method"] as? [String: Any])?["id"] as? String
        switch decision {
        case .declined: return ApplePay.StoringDecision(decision: decision, stored: nil)
        case .pending:
            // Attached once Stripe decides it succeeded: named now, held (``holds(_:)``) then.
            return ApplePay.StoringDecision(
                decision: decision, stored: method.map { ApplePay.StoredPaymentMethod(shopper: customerID, method: $0) })
        case .authorized:
            guard let method else { throw malformed("a PaymentIntent stored for later use without its payment_method") }
            return ApplePay.StoringDecision(decision: decision, stored: ApplePay.StoredPaymentMethod(shopper: customerID, method: method))
        }
    }

    /// `payment_method_options[card][mandate_options]…` for `mandate`.
    static func mandateFields(_ mandate: ApplePay.RecurringTerms.Mandate) -> [(String, String)] {
        let prefix = "payment_method_options[card][mandate_options]"
        var fields = [
            (prefix + "[amount]", String(mandate.amount.minorUnits)),
            (prefix + "[amount_type]", mandate.amountIsMaximum ? "maximum" : "fixed"),
            (prefix + "[interval]", mandate.interval), (prefix + "[reference]", mandate.reference),
            (prefix + "[start_date]", String(Int(mandate.startDate.timeIntervalSince1970))),
        ]
        if let count = mandate.intervalCount { fields.append((prefix + "[interval_count]", String(count))) }
        return fields
    }

    /// `POST /v1/payment_intents` with the Customer, its PaymentMethod, `off_session=true` and
    /// `confirm=true`. A card error is a decline with Stripe's `decline_code` (or `code`):
    /// `insufficient_funds`, `authentication_required`, `card_declined`, `expired_card`; a
    /// PaymentMethod Stripe no longer holds for the Customer (a 400 about `payment_method` or
    /// `customer`) is ``ApplePay/DeclineReason/paymentMethodUnavailable``.
    public func charge(
        _ method: ApplePay.StoredPaymentMethod, amount: Money, reference: String, idempotencyKey: String,
        model: ApplePay.RecurringTerms.Model
    ) async throws -> ApplePay.ProcessorDecision {
        let intent = try await post(
            "/v1/payment_intents",
            [
                ("amount", String(amount.minorUnits)), ("currency", amount.currency.code.lowercased()), ("customer", method.shopper),
                ("payment_method", method.method), ("off_session", "true"), ("confirm", "true"),
                ("metadata[cashier_payment]", reference),
            ], idempotencyKey: idempotencyKey)
        let error = intent.json["error"] as? [String: Any]
        if intent.status == 400 || intent.status == 404, error?["type"] as? String == "invalid_request_error",
            ["payment_method", "customer"].contains(error?["param"] as? String ?? "")
        {
            return .declined(
                .paymentMethodUnavailable, message: error?["message"] as? String ?? "Stripe no longer holds the payment method")
        }
        return try decision(intent)
    }

    /// `GET /v1/payment_methods/{id}`: held while it is attached to the Customer.
    public func holds(_ method: ApplePay.StoredPaymentMethod) async throws -> Bool {
        let found = try await send("GET", "/v1/payment_methods/" + FormEncoding.escape(method.method), body: nil, idempotencyKey: nil)
        switch found.status {
        case 200: return found.json["customer"] as? String == method.shopper
        case 404: return false
        default: throw try rejected(found)
        }
    }

    /// `POST /v1/payment_methods/{id}/detach`; one not attached (any more) answers `false`.
    public func remove(_ method: ApplePay.StoredPaymentMethod, idempotencyKey: String) async throws -> Bool {
        guard try await holds(method) else { return false }
        let detached = try await post(
            "/v1/payment_methods/\(FormEncoding.escape(method.method))/detach", [], idempotencyKey: idempotencyKey)
        switch detached.status {
        case 200: return true
        case 400, 404: return false
        default: throw try rejected(detached)
        }
    }
}
