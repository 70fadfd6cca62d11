import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import Foundation

/// Adyen's tokenization, for Apple Pay recurring payments:
///
/// - `/payments` with `storePaymentMethod: true`, a `shopperReference` (three characters or more)
///   and a `recurringProcessingModel` (`Subscription`, `CardOnFile`, `UnscheduledCardOnFile`)
///   stores the card once authorised: the answer's `additionalData` carries
///   `tokenization.storedPaymentMethodId` and `recurring.recurringDetailReference` (the same id),
///   with the shopper reference.
/// - `/payments` with `paymentMethod.storedPaymentMethodId`, the same `shopperReference`,
///   `shopperInteraction` `ContAuth` and a `recurringProcessingModel` charges that card for the
///   amount. A token the merchant account does not hold for that shopper (another shopper's, a
///   deleted one) is refused as Adyen does: HTTP 422, `errorCode` `800`, "Contract not found".
/// - `GET /{version}/storedPaymentMethods?merchantAccount=…&shopperReference=…` lists the
///   shopper's tokens; `DELETE /{version}/storedPaymentMethods/{id}?merchantAccount=…&shopperReference=…`
///   deletes one (204; 422 `800` when there is no such token).
/// - Declines: the sandbox's magic cards and amounts (an amount ending in 51 is refused
///   `Not enough balance`), and `POST /sandbox/adyen/stored_payment_methods/{id}/decline
///   {"code":"insufficient_funds"|"card_declined"|"expired_card"|"authentication_required"}`,
///   which refuses that token's next charge (once) with Adyen's `refusalReason`.
extension AdyenSandbox {
    /// Where a `/payments` with a stored method takes its card from.
    enum StoredSource {
        case card(ApplePay.PaymentToken, ApplePay.DecryptedPayment)
        case refused(HTTPServerResponse)
    }

    static let recurringModels: Set<String> = ["Subscription", "CardOnFile", "UnscheduledCardOnFile"]

    func registerRecurring(on router: inout Router, prefix: String) {
        router.add("GET", prefix + "/{version}/storedPaymentMethods") { request, _ in
            let (account, shopper, refusal) = Self.shopper(request)
            if let refusal { return refusal }
            let methods = self.stored.cards(of: Self.owner(account, shopper)).map { card -> [String: Any] in
                let expiry = card.payment.applicationExpirationDate
                return [
                    "id": card.id, "type": "applepay", "brand": "visa", "name": "Apple Pay",
                    "lastFour": String(card.payment.applicationPrimaryAccountNumber.suffix(4)),
                    "expiryMonth": String(expiry.dropFirst(2).prefix(2)), "expiryYear": "20" + expiry.prefix(2),
                    "supportedShopperInteractions": ["ContAuth"],
                    "supportedRecurringProcessingModels": [card.model ?? "Subscription"],
                ]
            }
            return .json(object: ["merchantAccount": account, "shopperReference": shopper, "storedPaymentMethods": methods])
        }
        router.add("DELETE", prefix + "/{version}/storedPaymentMethods/{id}") { request, parameters in
            let (account, shopper, refusal) = Self.shopper(request)
            if let refusal { return refusal }
            guard self.stored.detach(parameters["id"], from: Self.owner(account, shopper)) else {
                return Self.error(422, "800", "Contract not found")
            }
            return HTTPServerResponse(status: 204)
        }
        router.add("POST", "/sandbox/adyen/stored_payment_methods/{id}/decline", stored.declineHandler(parameter: "id"))
    }

    /// A token request's merchant account and shopper (its query), or why it is refused: no
    /// `X-API-Key` (401), or either missing (422).
    static func shopper(_ request: HTTPServerRequest) -> (account: String, shopper: String, refusal: HTTPServerResponse?) {
        guard !(request.headers["X-API-Key"] ?? "").isEmpty else {
            return ("", "", error(401, "000", "HTTP Status Response - Unauthorized", type: "security"))
        }
        guard let account = request.queryValue("merchantAccount"), let shopper = request.queryValue("shopperReference") else {
            return ("", "", error(422, "130", "Required query parameters merchantAccount and shopperReference are not provided."))
        }
        return (account, shopper, nil)
    }

    /// Tokens belong to a shopper of one merchant account.
    static func owner(_ account: String, _ shopper: String) -> String { account + "/" + shopper }

    /// A `/payments` asking to store the method without what storing needs.
    func storingRefusal(_ body: [String: Any]) -> HTTPServerResponse? {
        guard body["storePaymentMethod"] as? Bool == true else { return nil }
        guard let shopper = body["shopperReference"] as? String, shopper.count >= 3 else {
            return Self.error(422, "130", "Required field 'shopperReference' is not provided (three characters or more).")
        }
        guard Self.recurringModels.contains(body["recurringProcessingModel"] as? String ?? "") else {
            return Self.error(422, "130", "Required field 'recurringProcessingModel' is not provided or not valid.")
        }
        return nil
    }

    /// The stored card a `/payments` names, for its amount (its decline set, if any, used up).
    func storedCard(_ id: String, _ body: [String: Any], amount: Money) -> StoredSource {
        guard let shopper = body["shopperReference"] as? String, !shopper.isEmpty else {
            return .refused(Self.error(422, "130", "Required field 'shopperReference' is not provided."))
        }
        guard body["shopperInteraction"] as? String == "ContAuth" else {
            return .refused(
                Self.error(422, "130", "A payment with a stored payment method and without the shopper needs shopperInteraction ContAuth."))
        }
        guard Self.recurringModels.contains(body["recurringProcessingModel"] as? String ?? "") else {
            return .refused(Self.error(422, "130", "Required field 'recurringProcessingModel' is not provided or not valid."))
        }
        let account = body["merchantAccount"] as? String ?? ""
        guard let card = stored.charge(id, of: Self.owner(account, shopper), amount: amount) else {
            return .refused(Self.error(422, "800", "Contract not found"))
        }
        return .card(card.token, card.payment)
    }

    /// What an authorised `/payments` with `storePaymentMethod` adds to `additionalData`: the token kept.
    func storeIfAsked(_ body: [String: Any], token: ApplePay.PaymentToken, payment: ApplePay.DecryptedPayment) -> [String: String] {
        guard body["storePaymentMethod"] as? Bool == true, let shopper = body["shopperReference"] as? String,
            let account = body["merchantAccount"] as? String
        else { return [:] }
        let model = body["recurringProcessingModel"] as? String
        let card = stored.store(
            SecureRandom.alphanumeric(count: 16).uppercased(), for: Self.owner(account, shopper), token: token, payment: payment,
            model: model)
        return [
            "tokenization.storedPaymentMethodId": card.id, "tokenization.shopperReference": shopper,
            "tokenization.store.operationType": "created", "recurring.recurringDetailReference": card.id,
            "recurring.shopperReference": shopper, "recurringProcessingModel": model ?? "Subscription",
        ]
    }
}
