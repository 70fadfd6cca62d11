/// The server's answer to an Apple Pay token.
public struct ApplePayAuthorization: Sendable, Equatable {
    /// `PKPaymentAuthorizationStatus` / `ApplePaySession.STATUS_*` (0 success).
    public let status: Int
    public let orderStatus: ClientOrder.Status

    public init(status: Int, orderStatus: ClientOrder.Status) {
        self.status = status
        self.orderStatus = orderStatus
    }
}
