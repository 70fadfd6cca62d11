import Cashier
import Foundation

/// `POST /v1/orders`: items priced by the merchant's backend (never by the app).
struct OrderRequest: Decodable {
    struct Item: Decodable {
        let label: String
        let amount: String?
        let amount_minor: Int64?
        let quantity: Int?
        let type: String?
    }

    let items: [Item]
    let currency: String
    let description: String?
    let metadata: [String: String]?
    /// Seconds until the order expires (default 2 hours).
    let expires_in: Int?

    /// The line items, priced exactly. - Throws: `PaymentError.invalidRequest` naming the item.
    func lineItems() throws -> [LineItem] {
        guard let currency = try? Currency(code: currency) else {
            throw PaymentError(.invalidRequest, "currency '\(self.currency)' is not an ISO 4217 code (e.g. CNY)")
        }
        guard !items.isEmpty else { throw PaymentError(.invalidRequest, "items is empty: an order needs at least one item") }
        return try items.enumerated().map { index, item in
            let unit: Money
            switch (item.amount, item.amount_minor) {
            case (let text?, nil):
                guard let parsed = try? Money(decimal: text, currency: currency) else {
                    throw PaymentError(
                        .invalidRequest, "items[\(index)].amount '\(text)' is not a decimal amount in \(currency.code) (e.g. \"12.75\")")
                }
                unit = parsed
            case (nil, let minor?): unit = Money(minorUnits: minor, currency: currency)
            default: throw PaymentError(.invalidRequest, "items[\(index)] needs exactly one of amount (\"12.75\") or amount_minor (1275)")
            }
            do {
                return try LineItem(
                    label: item.label, unitAmount: unit, quantity: item.quantity ?? 1, kind: item.type == "pending" ? .pending : .final)
            } catch let error as MoneyError {
                throw PaymentError(.invalidRequest, "items[\(index)]: \(error.message)")
            }
        }
    }
}
