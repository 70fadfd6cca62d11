import CashierHTTP
import CashierStore

/// Finds who is calling from `Authorization: Bearer …` (``KeyRing``): 401 for no key or a key
/// that is not one of this server's, before anything else is read. With `secretOnly`, the
/// publishable key is refused too (the backend's routes).
struct Authenticate: Middleware {
    let keys: KeyRing
    var secretOnly = false

    static let unauthorized = HTTPServerResponse.error(
        status: 401, code: "unauthorized",
        message: "send Authorization: Bearer sk_… (your backend) or pk_… with the order's client_secret (the app)")

    func handle(
        _ request: HTTPServerRequest, context: APIContext,
        next: @escaping @Sendable (HTTPServerRequest, APIContext) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse {
        guard let identity = await keys.identify(request), !secretOnly || identity.caller == .secret else { return Self.unauthorized }
        var context = context
        context.identity = identity
        return try await next(request, context)
    }
}

/// A merchant's own key (made with `cashier keys create --merchant`) touches its own orders
/// only: 404 for an order of another merchant — or none —, as for an order that does not exist,
/// so the answer does not say which. The platform's keys pass. Behind ``Authenticate``.
struct OwnOrder: Middleware {
    let store: any OrderRecords
    /// The route's segment that names the order.
    var parameter = "id"

    func handle(
        _ request: HTTPServerRequest, context: APIContext,
        next: @escaping @Sendable (HTTPServerRequest, APIContext) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse {
        if let bound = context.caller.merchant {
            let id = context.parameters[parameter]
            guard let order = try? await store.order(id: id), order.merchant == bound else {
                return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
            }
        }
        return try await next(request, context)
    }
}

/// Refuses a merchant's own key on what belongs to the platform as a whole (reconciliation
/// against the accounts' bills, the webhook log): it reads and lists its own orders, payments
/// and refunds only (403). Behind ``Authenticate``.
struct PlatformOnly: Middleware {
    func handle(
        _ request: HTTPServerRequest, context: APIContext,
        next: @escaping @Sendable (HTTPServerRequest, APIContext) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse {
        if let merchant = context.caller.merchant {
            return .error(
                status: 403, code: "forbidden",
                message:
                    "this key acts for merchant \(merchant): it reads and lists that merchant's orders, payments and refunds; reconciliation and webhooks need the platform's key"
            )
        }
        return try await next(request, context)
    }
}
