import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// The middleware the `/v1` controllers put in front of their routes, made once per server.
struct APIMiddleware: Sendable {
    let keys: KeyRing
    let store: any OrderStore
    let clock: any WallClock
    let instanceID: String
    let idempotencyLease: TimeInterval
    /// The payer's routes' throttle (publishable-key requests per address); `nil` when not limited.
    let throttle: Throttle<APIContext>?

    /// Any of this server's keys (401 otherwise).
    var authenticate: Authenticate { Authenticate(keys: keys) }
    /// The secret key only (401 otherwise): the backend's routes.
    var secretKey: Authenticate { Authenticate(keys: keys, secretOnly: true) }
    /// A merchant's own key touches its own orders only (404).
    var ownOrder: OwnOrder { OwnOrder(store: store) }
    /// The platform's keys only (403 for a merchant's own).
    var platformOnly: PlatformOnly { PlatformOnly() }

    /// A route the app may call with the publishable key to make the server act: throttled per
    /// address, before any key is read.
    var payer: MiddlewareClosure<APIContext> {
        let throttle = throttle
        return MiddlewareClosure { request, context, next in
            if let throttle, throttle.counts(request), let refused = throttle.refusal(request) { return refused }
            return try await next(request, context)
        }
    }

    /// `Idempotency-Key` under `scope` (``Idempotent``).
    func idempotent(_ scope: @escaping @Sendable (APIContext) -> String?) -> Idempotent {
        Idempotent(store: store, clock: clock, instanceID: instanceID, lease: idempotencyLease, scope: scope)
    }

    /// `offset` from the query: 0 to 100000, default 0.
    static func offset(_ request: HTTPServerRequest) throws -> Int {
        guard let offset = Int(request.queryValue("offset") ?? "0"), (0...100_000).contains(offset) else {
            throw RequestProblem("offset must be a whole number, 0 to 100000")
        }
        return offset
    }

    /// `limit` from the query: 1 to 100, default 20.
    static func limit(_ request: HTTPServerRequest) throws -> Int {
        guard let limit = Int(request.queryValue("limit") ?? "20"), RequestBounds.listLimit.contains(limit) else {
            throw RequestProblem("limit must be a whole number, 1 to 100")
        }
        return limit
    }
}
