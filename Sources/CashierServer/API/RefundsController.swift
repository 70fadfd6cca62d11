import CashierHTTP

/// `POST /v1/orders/{id}/refunds` — secret key only. A retried refund with its Idempotency-Key
/// answers as the first did and refunds nothing more.
struct RefundsController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        routes.add(middleware.secretKey).add(middleware.ownOrder).add(middleware.idempotent { "refund:\($0.parameters["id"]):" })
            .post("/v1/orders/{id}/refunds", name: "refund") { request, context in
                let body = try request.decode(
                    RefundBody.self, expected: #"{"amount":"1.00"} or {"amount_minor":100}, an optional reason and payment (pay_…)"#)
                return .json(
                    try await ledger.refunds.refund(
                        orderID: context.parameters["id"], body, idempotencyKey: request.headers["Idempotency-Key"], actor: context.actor))
            }
    }
}
