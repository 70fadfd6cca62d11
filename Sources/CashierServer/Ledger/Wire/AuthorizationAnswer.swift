import ApplePay

/// The answer to an Apple Pay authorisation: the status to complete the sheet with, and the
/// order as it is.
struct AuthorizationAnswer: Encodable, Sendable {
    /// `PKPaymentAuthorizationStatus` / `ApplePaySession.STATUS_*`.
    let status: Int
    let order_status: String
    let message: String
    let payment_id: String?
    /// Apple Pay JS's `ApplePayError`s for the sheet (a contact the processor refused).
    let errors: [ApplePay.SheetError]?
}
