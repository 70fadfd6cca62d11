import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// An order's history and its changes as they happen: `GET /v1/orders/{id}/events` (the
/// append-only log, secret key) and `GET /v1/orders/{id}/stream` (Server-Sent Events).
///
/// The stream sends one `order` event at once, then one at every change (its status, a payment
/// started, failed or refunded), with the order's version as the event id. A browser's
/// `EventSource` cannot send headers, so the client secret alone (in the query) is enough; the
/// secret key works too.
///
/// ```
/// retry: 2000
/// id: 3
/// event: order
/// data: {"id":"ord_…","status":"paid",…}
/// ```
///
/// A comment line every 15 s keeps proxies from closing the connection (and finds a client that
/// left); the stream ends after ``streamLifetime`` (the client reconnects) or when the order can
/// change no more (closed, or refunded in full) — and a reconnect that has seen that last version
/// gets 204, which stops an `EventSource` from reconnecting. Streams learn of changes from
/// ``OrderWatch``: one read per change for all of them, not one per stream.
struct EventsController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware
    let watch: OrderWatch

    /// How long one stream stays open before the client is asked to reconnect.
    static let streamLifetime: Duration = .seconds(300)
    /// How often the watched orders are read even when this instance changed nothing: another
    /// instance sharing the database may have.
    static let streamReread: Duration = .seconds(1)
    static let streamHeartbeat: Duration = .seconds(15)

    func boot(_ routes: RouteGroup<APIContext>) {
        routes.add(middleware.secretKey).add(middleware.ownOrder).get("/v1/orders/{id}/events", name: "events") { _, context in
            let id = context.parameters["id"]
            guard try await ledger.store.order(id: id) != nil else { throw APIError.noOrder(id, forTheseCredentials: false) }
            return .json(OrderEventPage(data: try await ledger.store.events(orderID: id).map(OrderEventJSON.init)))
        }
        routes.get("/v1/orders/{id}/stream", name: "stream") { request, context in
            try await stream(request, id: context.parameters["id"])
        }
    }

    private func stream(_ request: HTTPServerRequest, id: String) async throws -> HTTPServerResponse {
        let identity = await middleware.keys.identify(request)
        let bySecretKey = identity?.caller == .secret
        // Without the secret key, a wrong client secret and an unknown order get the same 401:
        // neither says whether the order exists.
        let found = try await ledger.store.order(id: id)
        let bySecret = found.flatMap { found in request.queryValue("client_secret").map { ConstantTime.equals($0, found.clientSecret) } }
        guard bySecretKey || bySecret == true else { return Self.unauthorized }
        guard let order = found else { throw APIError.noOrder(id, forTheseCredentials: false) }
        if bySecretKey, bySecret != true, let bound = identity?.merchant, order.merchant != bound {
            throw APIError.noOrder(id)
        }
        // A reconnect (EventSource sends the last id it saw) to an order that can change no
        // more and that the client has seen: 204 tells an EventSource to stop reconnecting.
        if Self.isFinal(order.status), request.headers["Last-Event-ID"] == String(order.version) {
            return HTTPServerResponse(status: 204, headers: ["Cache-Control": "no-store"])
        }
        let headers: HTTPHeaders = [
            "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no",
            "X-Content-Type-Options": "nosniff",
        ]
        return .stream(headers: headers) { writer in
            await follow(order, writer: writer)
        }
    }

    private static let unauthorized = HTTPServerResponse.error(
        status: 401, code: "unauthorized",
        message: "send the order's client_secret in the query (or the secret key as Authorization: Bearer)")

    /// Writes the order, then every change, until the client leaves, the order is final or the
    /// stream's lifetime ends.
    private func follow(_ first: StoredOrder, writer: HTTPStreamWriter) async {
        let bell = watch.watch(orderID: first.id, version: first.version)
        defer { watch.stopWatching(bell) }
        let clock = ContinuousClock()
        let ends = clock.now.advanced(by: Self.streamLifetime)
        var order = first
        guard writer.write("retry: 2000\n\n"), await announce(order, on: writer) else { return }
        while !Task.isCancelled, clock.now < ends, !Self.isFinal(order.status) {
            switch await bell.wait(upTo: min(Self.streamHeartbeat, ends - clock.now)) {
            case .rung:
                // The order moved: read it once and say so.
                guard let now = try? await ledger.store.order(id: order.id), now.version != order.version else { continue }
                order = now
                guard await announce(order, on: writer) else { return }
            case .timedOut:
                guard writer.write(": heartbeat\n\n") else { return }
            case .cancelled:
                return
            }
        }
    }

    /// One `order` event. - Returns: false when the client is gone.
    private func announce(_ order: StoredOrder, on writer: HTTPStreamWriter) async -> Bool {
        // The order as GET shows it to the app, without the checkout link (it carries the secret).
        guard let shown = try? await ledger.orders.view(order, includeSecret: false, includeCheckoutURL: false) else {
            return writer.isOpen
        }
        let data = HTTPServerResponse.json(shown).body
        // JSON without pretty-printing holds no line break: one `data:` line.
        return writer.write("id: \(order.version)\nevent: order\ndata: \(String(decoding: data, as: UTF8.self))\n\n")
    }

    /// Nothing more can happen to an order in these states.
    static func isFinal(_ status: PaymentStatus) -> Bool {
        status == .closed || status == .refunded
    }
}
