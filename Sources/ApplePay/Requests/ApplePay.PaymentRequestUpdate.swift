public import Cashier
import Foundation

extension ApplePay {
    /// The answer to a shipping-method or shipping-contact change
    /// (`ApplePayShippingMethodUpdate` / `ApplePayShippingContactUpdate`).
    public struct PaymentRequestUpdate: Sendable {
        public let summary: PaymentSummary
        /// Present when the methods on offer changed (a new address).
        public let shippingMethods: [ShippingMethod]?
        public let errors: [SheetError]

        public init(summary: PaymentSummary, shippingMethods: [ShippingMethod]? = nil, errors: [SheetError] = []) {
            self.summary = summary
            self.shippingMethods = shippingMethods
            self.errors = errors
        }

        public func jsonObject() -> [String: Any] {
            var object: [String: Any] = [
                "newTotal": ["label": summary.totalLabel, "amount": summary.total.decimalString, "type": summary.totalKind.rawValue],
                "newLineItems": summary.items.map { ["label": $0.label, "amount": $0.amount.decimalString, "type": $0.kind.rawValue] },
            ]
            if let shippingMethods { object["newShippingMethods"] = shippingMethods.map(PaymentRequest.method) }
            if !errors.isEmpty { object["errors"] = errors.map(\.jsonObject) }
            return object
        }
    }
}

extension ApplePay.PaymentRequest {
    /// The payer picked another shipping method: the summary is recomputed with its cost.
    /// - Throws: `PaymentError.invalidRequest` for an identifier that was not offered.
    public mutating func selectShippingMethod(_ identifier: String) throws -> ApplePay.PaymentRequestUpdate {
        guard shippingMethods.contains(where: { $0.identifier == identifier }) else {
            throw Self.invalid("shipping method '\(identifier)' was not offered")
        }
        selectedShippingMethod = identifier
        return ApplePay.PaymentRequestUpdate(summary: try summary(), shippingMethods: nil, errors: [])
    }

    /// The payer chose a shipping address; `methods` are those that reach it (the merchant
    /// decides). None: the sheet says the address is unserviceable and the summary stays.
    /// The previously selected method stays selected when it is still offered.
    public mutating func updateShippingContact(availableMethods methods: [ShippingMethod], errors: [ApplePay.SheetError] = [])
        throws -> ApplePay.PaymentRequestUpdate
    {
        guard !methods.isEmpty else {
            let unserviceable = ApplePay.SheetError(code: .addressUnserviceable, message: "We cannot ship to this address.")
            return ApplePay.PaymentRequestUpdate(summary: try summary(), shippingMethods: [], errors: [unserviceable] + errors)
        }
        let previous = (self.shippingMethods, self.selectedShippingMethod)
        shippingMethods = methods
        if !methods.contains(where: { $0.identifier == selectedShippingMethod }) { selectedShippingMethod = methods.first?.identifier }
        do {
            try validate()
        } catch {
            (shippingMethods, selectedShippingMethod) = previous
            throw error
        }
        let ordered = methods.sorted { first, _ in first.identifier == selectedShippingMethod }
        return ApplePay.PaymentRequestUpdate(summary: try summary(), shippingMethods: ordered, errors: errors)
    }
}
