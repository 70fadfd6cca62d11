import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import Foundation
import Synchronization

/// The cards a processor sandbox keeps for shoppers after a first payment asked it to (Stripe's
/// `setup_future_usage`, Adyen's `storePaymentMethod`), charged later merchant-initiated. A stored
/// card is the Apple Pay token's decrypted card; each later charge uses it for its own amount, so
/// ``ApplePay/SandboxProcessor``'s magic values decide it as any payment (an amount ending in 51
/// declines `insufficient_funds`, a stored `4000000000009995` always does).
///
/// A stored card can be told to decline its next merchant-initiated charge, once:
/// `POST /sandbox/stripe/payment_methods/{pm_…}/decline` or
/// `POST /sandbox/adyen/stored_payment_methods/{id}/decline` with
/// `{"code": "insufficient_funds" | "card_declined" | "expired_card" | "authentication_required"}`.
final class StoredPaymentMethods: Sendable {
    /// One stored card.
    struct Card: Sendable {
        let id: String
        /// Whom it is kept for (Stripe's `cus_…`, Adyen's shopper reference); `nil` once detached.
        var owner: String?
        let token: ApplePay.PaymentToken
        let payment: ApplePay.DecryptedPayment
        /// The decline the next merchant-initiated charge meets, once.
        var nextDecline: String?
        let created: Int
        /// What it was stored for (Adyen's `recurringProcessingModel`).
        let model: String?
    }

    /// The sandbox's magic cards that decline each way (``ApplePay/SandboxProcessor``'s table).
    static let declineCards = [
        "insufficient_funds": "4000000000009995", "card_declined": "4000000000000002", "expired_card": "4000000000000069",
        "authentication_required": ApplePay.SandboxProcessor.authenticationRequiredCard,
    ]

    private let cards = Mutex<[String: Card]>([:])
    /// Stored ids in the order they were made.
    private let order = Mutex<[String]>([])

    /// Keeps `payment` for `owner` under `id`.
    func store(_ id: String, for owner: String, token: ApplePay.PaymentToken, payment: ApplePay.DecryptedPayment, model: String? = nil)
        -> Card
    {
        let card = Card(
            id: id, owner: owner, token: token, payment: payment, nextDecline: nil, created: Int(Date().timeIntervalSince1970),
            model: model)
        cards.withLock { $0[id] = card }
        order.withLock { $0.append(id) }
        return card
    }

    func card(_ id: String) -> Card? { cards.withLock { $0[id] } }

    /// `owner`'s cards, oldest first.
    func cards(of owner: String) -> [Card] {
        let ids = order.withLock { $0 }
        return cards.withLock { cards in ids.compactMap { cards[$0] }.filter { $0.owner == owner } }
    }

    /// Detaches card `id` from `owner` (any owner when `nil`). - Returns: whether it was held for them.
    func detach(_ id: String, from owner: String?) -> Bool {
        cards.withLock { cards in
            guard let held = cards[id]?.owner, owner == nil || held == owner else { return false }
            cards[id]?.owner = nil
            return true
        }
    }

    /// The card `id` held for `owner`, as a charge of `amount` uses it: the same card, for that
    /// amount, and one of the declining cards when a decline was set (which is then used up).
    /// - Returns: `nil` when `owner` holds no such card.
    func charge(_ id: String, of owner: String, amount: Money) -> (token: ApplePay.PaymentToken, payment: ApplePay.DecryptedPayment)? {
        cards.withLock { cards in
            guard var card = cards[id], card.owner == owner else { return nil }
            var payment = card.payment
            payment.transactionAmount = amount.minorUnits
            payment.currencyCode = amount.currency.numericCodeString
            if let decline = card.nextDecline, let number = Self.declineCards[decline] {
                payment.applicationPrimaryAccountNumber = number
                card.nextDecline = nil
                cards[id] = card
            }
            return (card.token, payment)
        }
    }

    /// The handler of `POST …/{id}/decline {"code": …}`: card `id`'s next charge declines so.
    func declineHandler(parameter: String) -> Router.Handler {
        { request, parameters in
            let id = parameters[parameter]
            guard let code = SandboxControl.object(request)?["code"] as? String, Self.declineCards[code] != nil else {
                return SandboxControl.invalid(
                    #"expected {"code":"insufficient_funds"|"card_declined"|"expired_card"|"authentication_required"}"#)
            }
            let found = self.cards.withLock { cards in
                guard cards[id]?.owner != nil else { return false }
                cards[id]?.nextDecline = code
                return true
            }
            guard found else { return .error(status: 404, code: "not_found", message: "no stored payment method \(id)") }
            return .json(["id": id, "code": code])
        }
    }
}
