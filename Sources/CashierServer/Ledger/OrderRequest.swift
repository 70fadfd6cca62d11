import Cashier
import Foundation

/// `POST /v1/orders`: items priced by the merchant's backend (never by the app).
struct OrderRequest: Decodable {
    struct Item: Decodable {
        let label: String?
        /// Priced from the server's catalog instead of `amount`.
        let sku: String?
        let amount: String?
        let amount_minor: WholeNumber?
        let quantity: WholeNumber?
        let type: String?
    }

    let items: [Item]
    /// Required unless every item is a catalog SKU.
    let currency: String?
    let description: String?
    let metadata: [String: String]?
    /// Seconds until the order expires (default 2 hours).
    let expires_in: WholeNumber?
    /// Ways to ship it, offered on the payment sheet (the first is chosen until the payer picks
    /// another); default: the configuration's `applepay.shipping_methods`.
    let shipping_methods: [ShippingOptionBody]?
    /// Where the hosted checkout page sends the payer once paid; its origin must be one of
    /// `checkout.return_origins`.
    let return_url: String?
    /// A recurring, deferred or automatic-reload commitment (read from the raw body, only when present).
    let applepay: Present?
    /// The sub-merchant the order is for (one of the configuration's `merchants`); absent: the
    /// direct merchant — or, with a merchant's own key, that merchant.
    let merchant: String?
    /// Placed to be shared with receivers afterwards (`POST /v1/orders/{id}/splits`): the provider
    /// keeps the money frozen until it is split or the sharing is finished. Secret key only.
    let profit_sharing: Bool?

    /// Decodes anything: marks that a field is there.
    struct Present: Decodable {
        init() {}
        init(from decoder: any Decoder) throws {}
    }

    struct ShippingOptionBody: Decodable {
        let identifier: String
        let label: String
        let detail: String?
        let amount: String
    }

    /// `true` when every item names a SKU and none a price: what the app may send.
    var isCatalogOnly: Bool { !items.isEmpty && items.allSatisfy { $0.sku != nil && $0.amount == nil && $0.amount_minor == nil } }

    /// Seconds until the order expires, checked against ``RequestBounds/expiresIn``.
    func expiry() throws -> Int {
        let seconds = expires_in?.value ?? 7200
        try RequestProblem.check(seconds, in: RequestBounds.expiresIn, "expires_in", unit: " seconds")
        return Int(seconds)
    }

    /// The description, when given: at most ``RequestBounds/textBytes`` UTF-8 bytes.
    func checkedDescription() throws -> String? {
        try RequestProblem.check(description, bytes: RequestBounds.textBytes, "description", why: "WeChat Pay's limit for body")
        return description
    }

    /// The line items, priced exactly (SKUs from `catalog`). - Throws: `PaymentError.invalidRequest` naming the item.
    func lineItems(catalog: Catalog?) throws -> [LineItem] {
        // What the OpenAPI document says of the request's shape is refused as a RequestProblem (400);
        // the rest (totals, precision, the catalog) as a PaymentError, which the API answers 422.
        guard !items.isEmpty else { throw RequestProblem("items is empty: an order needs at least one item") }
        guard items.count <= RequestBounds.items else {
            throw RequestProblem("an order takes at most \(RequestBounds.items) items, not \(items.count)")
        }
        for (index, item) in items.enumerated() {
            if let quantity = item.quantity {
                try RequestProblem.check(quantity.value, in: RequestBounds.quantity, "items[\(index)].quantity")
            }
            try RequestProblem.check(item.label, bytes: RequestBounds.textBytes, "items[\(index)].label", why: "the API's limit for a line")
            if let minor = item.amount_minor {
                try RequestProblem.check(minor.value, in: RequestBounds.itemMinorUnits, "items[\(index)].amount_minor")
            }
        }
        let currency: Currency
        switch (self.currency, catalog) {
        case (let code?, _):
            guard let parsed = try? Currency(code: code) else {
                throw RequestProblem("currency '\(code)' is not an ISO 4217 code (e.g. CNY)")
            }
            currency = parsed
        case (nil, let catalog?) where isCatalogOnly: currency = catalog.currency
        case (nil, _): throw PaymentError(.invalidRequest, "currency is missing (e.g. \"CNY\")")
        }
        return try items.enumerated().map { index, item in
            if let sku = item.sku {
                guard item.amount == nil, item.amount_minor == nil else {
                    throw RequestProblem("items[\(index)] names sku \(sku) and a price: the catalog prices SKUs")
                }
                guard let catalog else { throw PaymentError(.invalidRequest, "items[\(index)].sku: this server has no catalog") }
                guard catalog.currency == currency else {
                    throw PaymentError(.invalidRequest, "the catalog is priced in \(catalog.currency.code), not \(currency.code)")
                }
                return try catalog.lineItem(sku: sku, quantity: Int(item.quantity?.value ?? 1))
            }
            guard let label = item.label else { throw RequestProblem("items[\(index)] needs a label (or a catalog sku)") }
            let unit: Money
            switch (item.amount, item.amount_minor) {
            case (let text?, nil):
                guard RequestBounds.isDecimal(text) else {
                    throw RequestProblem("items[\(index)].amount '\(text)' is not a decimal amount (e.g. \"12.75\")")
                }
                guard let parsed = try? Money(decimal: text, currency: currency), RequestBounds.itemMinorUnits.contains(parsed.minorUnits)
                else {
                    throw PaymentError(
                        .invalidRequest,
                        "items[\(index)].amount '\(text)' is not a decimal amount in \(currency.code) within ±10¹² minor units (e.g. \"12.75\")"
                    )
                }
                unit = parsed
            case (nil, let minor?): unit = Money(minorUnits: minor.value, currency: currency)
            default: throw RequestProblem("items[\(index)] needs exactly one of amount (\"12.75\") or amount_minor (1275)")
            }
            do {
                return try LineItem(
                    label: label, unitAmount: unit, quantity: Int(item.quantity?.value ?? 1),
                    kind: item.type == "pending" ? .pending : .final)
            } catch let error as MoneyError {
                throw PaymentError(.invalidRequest, "items[\(index)]: \(error.message)")
            }
        }
    }
}
