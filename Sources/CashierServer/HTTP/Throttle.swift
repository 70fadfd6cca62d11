import Cashier
import CashierCrypto
import CashierHTTP

/// The payer's requests that make the server act, counted per payer address
/// (``PublishableKeyThrottle``): 429 with `Retry-After` past the limit, before anything else is
/// read. `counts` says which requests count (the API's: those with the publishable key; the
/// backend's secret key is not limited).
struct Throttle<Context: RequestContext>: Middleware {
    let throttle: PublishableKeyThrottle
    let proxies: TrustedProxies
    let clock: any WallClock
    let metrics: ServerMetrics
    let counts: @Sendable (HTTPServerRequest) -> Bool

    func handle(
        _ request: HTTPServerRequest, context: Context,
        next: @escaping @Sendable (HTTPServerRequest, Context) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse {
        if counts(request), let refused = refusal(request) { return refused }
        return try await next(request, context)
    }

    /// 429 when `request`'s address has used up its requests; `nil` to go on.
    func refusal(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        let address = proxies.clientAddress(of: request) ?? "unknown"
        guard let wait = throttle.admit(address, now: clock.now()) else { return nil }
        metrics.increment("cashier_rate_limited_total")
        var refused = HTTPServerResponse.error(
            status: 429, code: "rate_limited",
            message:
                "too many requests with the publishable key from this address (at most \(throttle.perMinute) a minute): "
                + "try again in \(wait) s")
        refused.headers.set("Retry-After", String(wait))
        return refused
    }

    /// Counts the requests that carry the publishable key.
    static func publishableKey(_ key: String) -> @Sendable (HTTPServerRequest) -> Bool {
        { request in KeyRing.bearerKey(request).map { ConstantTime.equals($0, key) } ?? false }
    }
}
