public import Foundation

/// The authorised payment as the server takes it — a `PKPayment` as JSON (`token.paymentData`,
/// `paymentMethod`, `transactionIdentifier`, and the contacts) — built from what PassKit hands
/// the app, so the glue stays a field-for-field copy.
public enum ApplePayPayment {
    /// - Parameters:
    ///   - paymentData: `PKPaymentToken.paymentData`, Apple's encrypted JSON, passed on untouched.
    ///   - network: `PKPaymentNetwork`'s raw value (`Visa`, `MasterCard`, …).
    ///   - type: `debit`, `credit`, `prepaid`, `store`, `eMoney` or `unknown`.
    ///   - displayName: the card's name as PassKit shows it (`Visa 1234`).
    ///   - transactionIdentifier: `PKPaymentToken.transactionIdentifier`.
    ///   - billingContact: the billing contact, when the sheet asked for one.
    ///   - shippingContact: the shipping contact, when the sheet asked for one.
    /// - Throws: ``CashierClientError`` `invalid_token` when `paymentData` is not JSON (the simulator's empty token).
    public static func json(
        paymentData: Data, displayName: String?, network: String?, type: String, transactionIdentifier: String,
        billingContact: ApplePayContact? = nil, shippingContact: ApplePayContact? = nil
    ) throws -> Data {
        guard let data = try? JSONSerialization.jsonObject(with: paymentData) else {
            throw CashierClientError(
                code: "invalid_token",
                message: "the payment has no token data (the simulator's sheet gives none: test on a device, or with the sandbox)")
        }
        var method: [String: Any] = ["type": type]
        if let displayName { method["displayName"] = displayName }
        if let network { method["network"] = network }
        var payment: [String: Any] = [
            "token": ["paymentData": data, "paymentMethod": method, "transactionIdentifier": transactionIdentifier]
        ]
        if let billingContact { payment["billingContact"] = billingContact.jsonObject }
        if let shippingContact { payment["shippingContact"] = shippingContact.jsonObject }
        return try JSONSerialization.data(withJSONObject: payment, options: [.sortedKeys])
    }
}
