import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// `Idempotency-Key` with Stripe's semantics: the key is reserved in the store before the work
/// starts, so concurrent requests with one key never both do it (the second gets 409
/// `idempotency_key_in_use`); a finished one's answer is replayed; a key used with another body
/// is refused. Only successful answers are kept: a failed request releases its key to be retried.
/// A request without the header runs as it is.
struct Idempotent: Middleware {
    let store: any IdempotencyKeys
    let clock: any WallClock
    /// This instance, in the reservation's holder.
    let instanceID: String
    /// How long a reservation holds before another request may take the key over (renewed while
    /// the work goes on).
    let lease: TimeInterval
    /// What keeps keys of different endpoints and merchants apart: prefixed to the key; `nil`
    /// when the caller may not send one (the app's publishable key: see ``OrdersController``).
    let scope: @Sendable (APIContext) -> String?

    func handle(
        _ request: HTTPServerRequest, context: APIContext,
        next: @escaping @Sendable (HTTPServerRequest, APIContext) async throws -> HTTPServerResponse
    ) async throws -> HTTPServerResponse {
        guard let given = request.headers["Idempotency-Key"] else { return try await next(request, context) }
        // What the OpenAPI document says: 1 to 255 printable ASCII characters (a UUID, say).
        guard RequestBounds.idempotencyKeyLength.contains(given.utf8.count), given.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            return .error(
                status: 400, code: "invalid_request", message: "Idempotency-Key must be 1 to 255 printable ASCII characters (a UUID, say)")
        }
        guard let prefix = scope(context) else {
            // 422: the document allows the header on the route; the key this caller holds refuses it.
            return .error(
                status: 422, code: "invalid_request",
                message:
                    "Idempotency-Key is for your backend's secret key: with the publishable key, which ships in every copy of the app, "
                    + "one payer's retry could be answered with another payer's order; send the request again without it")
        }
        let key = prefix + given
        // The same JSON whatever its key order or spacing.
        let canonical = (try? JSONSerialization.jsonObject(with: Data(request.body))).flatMap {
            try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys])
        }
        let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(canonical.map(Array.init) ?? request.body))
        let holder = "\(instanceID)/\(RandomText.hex(byteCount: 16))"
        switch try await store.reserveIdempotencyKey(key, requestSHA256: bodyHash, holder: holder, now: clock.now(), lease: lease) {
        case .replay(let status, let body):
            return HTTPServerResponse(
                status: status, headers: ["Content-Type": "application/json", "Idempotent-Replayed": "true"], body: body)
        case .conflict:
            return .error(status: 409, code: "idempotency_conflict", message: "Idempotency-Key \(given) was used with another request body")
        case .inProgress:
            var response = HTTPServerResponse.error(
                status: 409, code: "idempotency_key_in_use",
                message: "a request with Idempotency-Key \(given) is still in progress; retry shortly")
            response.headers.set("Retry-After", "1")
            return response
        case .reserved: break
        }
        // A slow request keeps its key: the lease is renewed until it answers.
        let (store, clock, lease) = (self.store, self.clock, self.lease)
        let renewal = Task {
            while !Task.isCancelled {
                try? await clock.sleep(for: .seconds(max(lease / 3, 0.05)))
                guard !Task.isCancelled else { return }
                try? await store.renewIdempotencyKey(key, holder: holder, until: clock.now().addingTimeInterval(lease))
            }
        }
        let response: HTTPServerResponse
        do {
            response = try await next(request, context)
        } catch {
            response = ErrorMapping<APIContext>.response(for: error)
        }
        renewal.cancel()
        do {
            if (200..<300).contains(response.status) {
                try await store.completeIdempotencyKey(key, holder: holder, status: response.status, body: response.body, now: clock.now())
            } else {
                try await store.releaseIdempotencyKey(key, holder: holder)
            }
        } catch {
            // The work is done and its answer stands; the key is released when its lease ends.
        }
        return response
    }
}
