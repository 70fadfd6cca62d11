import Cashier
import CashierHTTP
import CashierStore

/// `/v1/orders`: creating (the backend, or the app from the catalog), reading (with the query
/// fallback) and listing orders.
struct OrdersController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    /// Where an order's `Idempotency-Key` lives: the platform's keys in the namespace they always
    /// had (`""`), a merchant's own key in its merchant's (one merchant's key never replays another's
    /// order); the app's publishable key sends none (`nil`: refused), since every payer holds it.
    @Sendable static func creationScope(_ context: APIContext) -> String? {
        let caller = context.caller
        guard caller.caller == .secret else { return nil }
        return caller.merchant.map { "merchant:\($0):" } ?? ""
    }

    func boot(_ routes: RouteGroup<APIContext>) {
        routes.add(middleware.payer).add(middleware.authenticate).add(middleware.idempotent(Self.creationScope))
            .post("/v1/orders", name: "create_order") { request, context in
                let input = try request.decode(
                    OrderRequest.self,
                    expected: #"{"items":[{"label":"Latte","amount":"12.75","quantity":2}],"currency":"CNY","description":"…"} "#
                        + #"(or catalog items: [{"sku":"latte","quantity":2}])"#)
                return .json(try await ledger.orders.create(input, body: request.body, by: context.caller), status: 201)
            }
        routes.add(middleware.secretKey).get("/v1/orders", name: "list_orders") { request, context in
            let status = request.queryValue("status")
            guard status == nil || PaymentStatus(rawValue: status ?? "") != nil else {
                throw RequestProblem("status must be one of \(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let listing = OrderService.Listing(
                status: status.flatMap(PaymentStatus.init), limit: try APIMiddleware.limit(request),
                startingAfter: request.queryValue("starting_after"), outTradeNo: request.queryValue("out_trade_no"))
            return .json(try await ledger.orders.list(listing, for: context.caller))
        }
        routes.add(middleware.authenticate).get("/v1/orders/{id}", name: "get_order") { request, context in
            .json(
                try await ledger.orders.read(
                    context.caller, id: context.parameters["id"], clientSecret: request.queryValue("client_secret")))
        }
    }
}
