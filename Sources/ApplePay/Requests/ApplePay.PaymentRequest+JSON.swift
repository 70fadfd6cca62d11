import Cashier
import CashierCrypto
public import Foundation

extension ApplePay.PaymentRequest {
    /// The request as Apple Pay JS takes it (`new ApplePaySession(version, request)`).
    public func jsonObject() throws -> [String: Any] {
        let summary = try summary()
        func line(_ item: LineItem) -> [String: Any] {
            ["label": item.label, "amount": item.amount.decimalString, "type": item.kind.rawValue]
        }
        let selectedFirst = shippingMethods.sorted { first, _ in first.identifier == selectedShippingMethod }
        var object: [String: Any] = [
            "merchantIdentifier": merchantIdentifier, "countryCode": countryCode.alpha2, "currencyCode": summary.currency.code,
            "supportedNetworks": supportedNetworks.map(\.rawValue), "merchantCapabilities": merchantCapabilities.map(\.rawValue),
            "lineItems": summary.items.map(line),
            "total": ["label": summary.totalLabel, "amount": summary.total.decimalString, "type": summary.totalKind.rawValue],
        ]
        if !shippingMethods.isEmpty { object["shippingMethods"] = selectedFirst.map(Self.method) }
        if !requiredBillingContactFields.isEmpty { object["requiredBillingContactFields"] = requiredBillingContactFields.map(\.rawValue) }
        if !requiredShippingContactFields.isEmpty {
            object["requiredShippingContactFields"] = requiredShippingContactFields.map(\.rawValue)
        }
        if let applicationData { object["applicationData"] = Base64.encode(applicationData) }
        if let commitment { object[commitment.field] = commitment.jsonObject() }
        return object
    }

    /// ``jsonObject()`` as JSON bytes with sorted keys.
    public func jsonData() throws -> Data {
        try JSONSerialization.data(withJSONObject: try jsonObject(), options: [.sortedKeys, .withoutEscapingSlashes])
    }

    static func method(_ method: ShippingMethod) -> [String: Any] {
        ["identifier": method.identifier, "label": method.label, "detail": method.detail, "amount": method.amount.decimalString]
    }

    /// Reads and checks a request in Apple Pay JS form. Its `lineItems` are taken as given
    /// (they already hold the shipping cost when there is one) and `total` must be their sum.
    /// - Throws: `PaymentError.invalidRequest` naming the field and the rule.
    public init(json: Data) throws {
        guard let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] else {
            throw Self.invalid("the request is not a JSON object")
        }
        func string(_ key: String) throws -> String {
            guard let value = object[key] as? String else { throw Self.invalid("\(key) is missing or not a string") }
            return value
        }
        func strings(_ key: String) throws -> [String] {
            guard let value = object[key] else { return [] }
            guard let list = value as? [String] else { throw Self.invalid("\(key) must be a list of strings") }
            return list
        }
        func parse<T: RawRepresentable & CaseIterable>(_ key: String, as _: T.Type) throws -> [T] where T.RawValue == String {
            try strings(key).map { name in
                guard let value = T(rawValue: name) else {
                    throw Self.invalid("\(key): unknown value '\(name)' (known: \(T.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                return value
            }
        }
        let country: CountryCode
        let currency: Currency
        do {
            country = try CountryCode(alpha2: try string("countryCode"))
            currency = try Currency(code: try string("currencyCode"))
        } catch let error as PaymentError {
            throw error
        } catch {
            throw Self.invalid("countryCode or currencyCode is not an ISO code: \(error)")
        }
        func money(_ text: Any?, _ field: String) throws -> Money {
            guard let text = text as? String, let amount = try? Money(decimal: text, currency: currency) else {
                throw Self.invalid(
                    "\(field) is not an amount in \(currency.code) (a decimal string with at most \(currency.minorUnits) decimals)")
            }
            return amount
        }
        let lines = (object["lineItems"] as? [[String: Any]]) ?? []
        var items: [LineItem] = []
        for (index, line) in lines.enumerated() {
            let kind = LineItem.Kind(rawValue: line["type"] as? String ?? "final") ?? .final
            do {
                items.append(
                    try LineItem(
                        label: line["label"] as? String ?? "", unitAmount: try money(line["amount"], "lineItems[\(index)].amount"),
                        kind: kind))
            } catch let error as MoneyError {
                throw Self.invalid("lineItems[\(index)]: \(error.message)")
            }
        }
        guard let total = object["total"] as? [String: Any], let totalLabel = total["label"] as? String else {
            throw Self.invalid("total (label and amount) is missing")
        }
        let totalAmount = try money(total["amount"], "total.amount")
        if items.isEmpty {
            items = [try LineItem(label: totalLabel, unitAmount: totalAmount)]
        }
        var methods: [ShippingMethod] = []
        for (index, method) in ((object["shippingMethods"] as? [[String: Any]]) ?? []).enumerated() {
            do {
                methods.append(
                    try ShippingMethod(
                        identifier: method["identifier"] as? String ?? "", label: method["label"] as? String ?? "",
                        detail: method["detail"] as? String ?? "", amount: try money(method["amount"], "shippingMethods[\(index)].amount")))
            } catch let error as MoneyError {
                throw Self.invalid("shippingMethods[\(index)]: \(error.message)")
            }
        }
        var request = try Self(
            merchantIdentifier: object["merchantIdentifier"] as? String ?? "merchant.unknown", countryCode: country, items: items,
            totalLabel: totalLabel, supportedNetworks: try parse("supportedNetworks", as: Network.self),
            merchantCapabilities: try parse("merchantCapabilities", as: Capability.self), shippingMethods: methods,
            requiredBillingContactFields: try parse("requiredBillingContactFields", as: ContactField.self),
            requiredShippingContactFields: try parse("requiredShippingContactFields", as: ContactField.self),
            applicationData: try (object["applicationData"] as? String).map { text in
                guard let bytes = try? Base64.decode(text) else { throw Self.invalid("applicationData is not base64") }
                return Array(bytes)
            })
        // The line items already carry the chosen shipping cost: none is added on top.
        request.selectedShippingMethod = nil
        self = request
        let sum = try summary().total
        guard sum == totalAmount else {
            throw Self.invalid("total.amount \(totalAmount.decimalString) is not the sum of the line items (\(sum.decimalString))")
        }
    }
}
