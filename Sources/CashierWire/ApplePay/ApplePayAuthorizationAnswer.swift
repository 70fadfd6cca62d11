/// The server's answer to an Apple Pay token: the status to complete the sheet with, and the
/// order as it is.
public struct ApplePayAuthorizationAnswer: Codable, Sendable, Equatable {
    /// `PKPaymentAuthorizationStatus` / `ApplePaySession.STATUS_*` (0 success, 1 failure).
    public let status: Int
    public let order_status: String
    public let message: String
    public let payment_id: String?
    /// Apple Pay JS's `ApplePayError`s for the sheet (a contact the processor refused).
    public let errors: [ApplePaySheetError]?

    public init(status: Int, order_status: String, message: String, payment_id: String?, errors: [ApplePaySheetError]?) {
        self.status = status
        self.order_status = order_status
        self.message = message
        self.payment_id = payment_id
        self.errors = errors
    }
}
