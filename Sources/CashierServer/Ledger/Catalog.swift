public import Cashier
public import Foundation

/// Prices the server owns: the app may create an order from SKUs and quantities with the
/// publishable key, and every amount comes from here, never from the device.
///
/// ```json
/// {"currency": "CNY", "items": {"latte": {"label": "Latte", "amount": "12.75"}, "bagel": {"label": "Bagel", "amount_minor": 800}}}
/// ```
public struct Catalog: Sendable {
    public let currency: Currency
    /// SKU → label and unit price.
    public let entries: [String: (label: String, price: Money)]

    /// Parses and checks a catalog. - Throws: `PaymentError.invalidConfiguration` naming the SKU.
    public init(json data: Data) throws {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw PaymentError(.invalidConfiguration, "the catalog is not a JSON object")
        }
        guard let code = root["currency"] as? String, let currency = try? Currency(code: code) else {
            throw PaymentError(.invalidConfiguration, "catalog.currency must be an ISO 4217 code such as \"CNY\"")
        }
        guard let items = root["items"] as? [String: [String: Any]], !items.isEmpty else {
            throw PaymentError(.invalidConfiguration, "catalog.items must map each SKU to {\"label\", \"amount\"}")
        }
        var entries: [String: (label: String, price: Money)] = [:]
        for (sku, item) in items {
            guard let label = item["label"] as? String, !label.isEmpty else {
                throw PaymentError(.invalidConfiguration, "catalog.items.\(sku).label is missing")
            }
            let price: Money
            // A whole number of minor units: Foundation would read 8.5 as 8 and `true` as 1.
            var minor: Int64?
            if let given = item["amount_minor"] {
                guard let whole = JSONNumber.integer(given) else {
                    throw PaymentError(.invalidConfiguration, "catalog.items.\(sku).amount_minor must be a whole number of minor units")
                }
                minor = Int64(whole)
            }
            switch (item["amount"] as? String, minor) {
            case (let text?, nil):
                guard let parsed = try? Money(decimal: text, currency: currency) else {
                    throw PaymentError(.invalidConfiguration, "catalog.items.\(sku).amount '\(text)' is not an amount in \(currency.code)")
                }
                price = parsed
            case (nil, let minor?): price = Money(minorUnits: minor, currency: currency)
            default: throw PaymentError(.invalidConfiguration, "catalog.items.\(sku) needs exactly one of amount or amount_minor")
            }
            guard price.isPositive else { throw PaymentError(.invalidConfiguration, "catalog.items.\(sku) must cost more than zero") }
            entries[sku] = (label, price)
        }
        self.currency = currency
        self.entries = entries
    }

    /// The priced line item for `quantity` of `sku`. - Throws: `PaymentError.invalidRequest` for an unknown SKU.
    func lineItem(sku: String, quantity: Int) throws -> LineItem {
        guard let entry = entries[sku] else { throw PaymentError(.invalidRequest, "unknown sku '\(sku)'") }
        do {
            return try LineItem(label: entry.label, unitAmount: entry.price, quantity: quantity, sku: sku)
        } catch let error as MoneyError {
            throw PaymentError(.invalidRequest, "sku \(sku): \(error.message)")
        }
    }
}
