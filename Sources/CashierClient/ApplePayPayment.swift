import CashierWire
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
        guard let data = try? JSONDecoder().decode(JSONValue.self, from: paymentData) else {
            throw CashierClientError(
                code: "invalid_token",
                message: "the payment has no token data (the simulator's sheet gives none: test on a device, or with the sandbox)")
        }
        let payment = Payment(
            token: .init(
                paymentData: data, paymentMethod: .init(type: type, displayName: displayName, network: network),
                transactionIdentifier: transactionIdentifier),
            billingContact: billingContact, shippingContact: shippingContact)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(payment)
    }

    /// A `PKPayment` as Apple Pay JS writes it.
    struct Payment: Encodable {
        struct Token: Encodable {
            struct Method: Encodable {
                let type: String
                let displayName: String?
                let network: String?
            }
            let paymentData: JSONValue
            let paymentMethod: Method
            let transactionIdentifier: String
        }
        let token: Token
        let billingContact: ApplePayContact?
        let shippingContact: ApplePayContact?
    }
}
