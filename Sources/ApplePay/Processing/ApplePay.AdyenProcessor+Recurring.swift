public import Cashier
import CashierCrypto
import Foundation

extension ApplePay.AdyenProcessor: ApplePay.RecurringProcessor {
    /// The first payment's `/payments` body: ``paymentBody(_:)`` with `storePaymentMethod: true`,
    /// the `shopperReference`, `shopperInteraction` `Ecommerce` and the `recurringProcessingModel`.
    /// - Parameters:
    ///   - authorization: the payment.
    ///   - terms: whom the method is stored for, and for what.
    /// - Returns: the JSON object sent.
    public func storingBody(_ authorization: ApplePay.ProcessorAuthorization, terms: ApplePay.RecurringTerms) throws -> [String: Any] {
        var body = try paymentBody(authorization)
        body["storePaymentMethod"] = true
        body["shopperReference"] = terms.shopperReference
        body["shopperInteraction"] = "Ecommerce"
        body["recurringProcessingModel"] = terms.model.rawValue
        return body
    }

    /// A merchant-initiated `/payments` body: `paymentMethod` `{"type": "applepay",
    /// "storedPaymentMethodId": …}`, the `shopperReference`, `shopperInteraction` `ContAuth` and the
    /// `recurringProcessingModel`.
    /// - Parameters:
    ///   - method: the stored method.
    ///   - amount: what to charge.
    ///   - reference: the merchant's reference for the payment.
    ///   - model: the kind of charge.
    /// - Returns: the JSON object sent.
    public func chargeBody(_ method: ApplePay.StoredPaymentMethod, amount: Money, reference: String, model: ApplePay.RecurringTerms.Model)
        -> [String: Any]
    {
        [
            "amount": Self.amount(amount), "reference": reference, "merchantAccount": merchantAccount,
            "paymentMethod": ["type": "applepay", "storedPaymentMethodId": method.method], "shopperReference": method.shopper,
            "shopperInteraction": "ContAuth", "recurringProcessingModel": model.rawValue,
        ]
    }

    /// `/payments` with ``storingBody(_:terms:)``. The stored method's id is the answer's
    /// `additionalData["tokenization.storedPaymentMethodId"]` (or the older
    /// `additionalData["recurring.recurringDetailReference"]`); an account that returns neither
    /// (the Customer Area's additional data for recurring details is off) is asked
    /// `GET /storedPaymentMethods` for the shopper's newest.
    public func authorize(_ authorization: ApplePay.ProcessorAuthorization, storing terms: ApplePay.RecurringTerms) async throws
        -> ApplePay.StoringDecision
    {
        let answer = try await post("/payments", try storingBody(authorization, terms: terms), idempotencyKey: authorization.idempotencyKey)
        let decision = try decision(answer)
        guard case .authorized = decision else { return ApplePay.StoringDecision(decision: decision, stored: nil) }
        let additional = answer.json["additionalData"] as? [String: Any]
        let named =
            additional?["tokenization.storedPaymentMethodId"] as? String ?? additional?["recurring.recurringDetailReference"] as? String
        var id = named
        if id == nil { id = try await storedMethods(shopper: terms.shopperReference).last }
        guard let id else {
            throw malformed("an Authorised payment asked to store its method, without the stored method")
        }
        return ApplePay.StoringDecision(
            decision: decision, stored: ApplePay.StoredPaymentMethod(shopper: terms.shopperReference, method: id))
    }

    /// `/payments` with ``chargeBody(_:amount:reference:model:)``. `Refused` is a decline with
    /// Adyen's `refusalReason` (`Not enough balance` is retryable, `Expired Card` not); a token
    /// Adyen does not hold for the shopper (HTTP 422, `errorCode` 800, "Contract not found") is
    /// ``ApplePay/DeclineReason/paymentMethodUnavailable``.
    public func charge(
        _ method: ApplePay.StoredPaymentMethod, amount: Money, reference: String, idempotencyKey: String,
        model: ApplePay.RecurringTerms.Model
    ) async throws -> ApplePay.ProcessorDecision {
        let answer = try await post(
            "/payments", chargeBody(method, amount: amount, reference: reference, model: model), idempotencyKey: idempotencyKey)
        if answer.status == 422, answer.json["errorCode"] as? String == "800" {
            return .declined(.paymentMethodUnavailable, message: answer.json["message"] as? String ?? "Contract not found")
        }
        return try decision(answer)
    }

    /// `GET /storedPaymentMethods?merchantAccount=…&shopperReference=…`: the ids of the shopper's
    /// stored methods, oldest first.
    func storedMethods(shopper: String) async throws -> [String] {
        let query = FormEncoding.encode([("merchantAccount", merchantAccount), ("shopperReference", shopper)])
        let answer = try await send("GET", "/storedPaymentMethods?" + query, nil, idempotencyKey: nil)
        guard answer.status == 200 else { throw rejected(answer) }
        return (answer.json["storedPaymentMethods"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
    }

    /// Whether `GET /storedPaymentMethods` lists the method for its shopper.
    public func holds(_ method: ApplePay.StoredPaymentMethod) async throws -> Bool {
        try await storedMethods(shopper: method.shopper).contains(method.method)
    }

    /// `DELETE /storedPaymentMethods/{id}?merchantAccount=…&shopperReference=…`; a token Adyen
    /// does not hold (any more) answers `false`.
    public func remove(_ method: ApplePay.StoredPaymentMethod, idempotencyKey: String) async throws -> Bool {
        let query = FormEncoding.encode([("merchantAccount", merchantAccount), ("shopperReference", method.shopper)])
        let answer = try await send(
            "DELETE", "/storedPaymentMethods/" + FormEncoding.escape(method.method) + "?" + query, nil, idempotencyKey: idempotencyKey)
        switch answer.status {
        case 200, 204: return true
        case 404, 422: return false
        default: throw rejected(answer)
        }
    }
}
