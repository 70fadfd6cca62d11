/// The server's answer to an Apple Pay token.
public struct ApplePayAuthorization: Sendable, Equatable {
    /// `PKPaymentAuthorizationStatus` / `ApplePaySession.STATUS_*` (0 success).
    public let status: Int
    public let orderStatus: ClientOrder.Status
    /// What the sheet should show next to a field the processor refused (a billing postal code).
    public let errors: [ApplePaySheetError]

    public init(status: Int, orderStatus: ClientOrder.Status, errors: [ApplePaySheetError] = []) {
        self.status = status
        self.orderStatus = orderStatus
        self.errors = errors
    }
}
