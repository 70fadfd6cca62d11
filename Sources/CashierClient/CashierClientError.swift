/// An error from the Cashier server (its `code` and `message`) or from the client itself.
public struct CashierClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server's code (`not_found`, `invalid_state`, …) or the client's (`confirmation_timeout`).
    public let code: String
    public let message: String
    /// The HTTP status, when the server answered.
    public let httpStatus: Int?
    /// How long the server asked to wait before trying again (its `Retry-After`, in seconds): a
    /// 429 `rate_limited` when many payers share one address, a 409 `idempotency_key_in_use`.
    public let retryAfter: Duration?

    public init(code: String, message: String, httpStatus: Int? = nil, retryAfter: Duration? = nil) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    public var description: String { "CashierClientError(\(code)): \(message)" }
}
