/// An error from the Cashier server (its `code` and `message`) or from the client itself.
public struct CashierClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server's code (`not_found`, `invalid_state`, …) or the client's (`confirmation_timeout`).
    public let code: String
    public let message: String
    /// The HTTP status, when the server answered.
    public let httpStatus: Int?

    public init(code: String, message: String, httpStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
    }

    public var description: String { "CashierClientError(\(code)): \(message)" }
}
