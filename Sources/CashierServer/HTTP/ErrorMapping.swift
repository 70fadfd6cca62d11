import Cashier
import CashierHTTP
import CashierStore

/// What the API answers for an error thrown by a handler or the ledger: one table, whoever
/// threw it. A request the document refuses is 400, one a rule refuses 422; a provider that did
/// not answer 503, one that refused 502; a state that refuses the action 409; a store failure
/// 500 with nothing said of its cause.
struct ErrorMapping<Context: RequestContext>: Middleware {
    func handle(
        _ request: HTTPServerRequest, context: Context,
        next: @escaping @Sendable (HTTPServerRequest, Context) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse {
        do {
            return try await next(request, context)
        } catch {
            return Self.response(for: error)
        }
    }

    static func response(for error: any Error) -> HTTPServerResponse {
        let refusal = Self.refusal(for: error)
        var response = HTTPServerResponse.error(status: refusal.status, code: refusal.code, message: refusal.message)
        if let wait = refusal.retryAfter { response.headers.set("Retry-After", String(wait)) }
        return response
    }

    /// What the API answers `error` with: its status, code, message and the seconds to wait.
    static func refusal(for error: any Error) -> APIError {
        switch error {
        case let error as APIError: error
        case let error as RequestProblem:
            APIError(status: error.status, code: error.status == 403 ? "forbidden" : "invalid_request", message: error.message)
        // Found past the request's shape (a price the currency cannot hold, a method not configured,
        // a provider's own refusal of a field): the document allows it, a rule refuses it.
        case let error as PaymentError where error.code == .invalidRequest:
            APIError(status: 422, code: "invalid_request", message: error.message)
        case let error as PaymentError where error.code == .transport:
            // The provider did not answer (or its calls are paused): nothing happened here; retry later.
            APIError(status: 503, code: "provider_unavailable", message: error.message)
        case let error as PaymentError: APIError(status: 502, code: "provider_error", message: error.message)
        case let error as StoreError where error.code == .illegalTransition:
            APIError(status: 409, code: "invalid_state", message: error.message)
        case let error as StoreError where error.code == .inProgress:
            APIError(status: 409, code: "payment_in_progress", message: error.message)
        // More than what is left of the payment: the request is well formed; the payment's state refuses it.
        case let error as StoreError where error.code == .limitExceeded:
            APIError(status: 409, code: "refund_too_large", message: error.message)
        case let error as StoreError where error.code == .notFound: APIError(status: 404, code: "not_found", message: error.message)
        case let error as StoreError where error.code == .conflict: APIError(status: 409, code: "conflict", message: error.message)
        default: APIError(status: 500, code: "internal_error", message: "the request could not be completed; it is safe to retry")
        }
    }
}
