/// A refusal the API answers with a status and code of its own, thrown by the ledger where the
/// kinds of error ``ErrorMapping`` knows do not say it: an order these credentials may not see
/// (404), a method not configured (422), a payment already made elsewhere (409 `invalid_state`),
/// a token used before (409 `token_reused`), a counter payment refused (402 `payment_failed`)…
/// Plain data, so the ledger throws it without knowing HTTP.
struct APIError: Error, Sendable {
    let status: Int
    let code: String
    let message: String
    /// Seconds for `Retry-After`, when the caller should try again later.
    var retryAfter: Int? = nil

    /// 404: no such order for these credentials (whether it exists is not said).
    static func noOrder(_ id: String, forTheseCredentials: Bool = true) -> APIError {
        APIError(status: 404, code: "not_found", message: forTheseCredentials ? "no order \(id) for these credentials" : "no order \(id)")
    }

    /// 409 `invalid_state`.
    static func invalidState(_ message: String) -> APIError {
        APIError(status: 409, code: "invalid_state", message: message)
    }
}
