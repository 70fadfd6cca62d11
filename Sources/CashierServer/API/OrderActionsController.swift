import Cashier
import CashierHTTP
import CashierStore

/// What the backend does to an order — secret key only: capture or void a held card payment
/// (with `Idempotency-Key`), close an unpaid order.
struct OrderActionsController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        let order = routes.add(middleware.secretKey).add(middleware.ownOrder)
        order.add(middleware.idempotent { "capture:\($0.parameters["id"]):" })
            .post("/v1/orders/{id}/capture", name: "capture") { request, context in
                let body = try request.decode(
                    CaptureBody.self, expected: #"{} to capture all, or {"amount":"8.00"} / {"amount_minor":800}"#, emptyIsObject: true)
                return .json(try await ledger.captures.capture(context.parameters["id"], body, by: context.actor))
            }
        order.add(middleware.idempotent { "void:\($0.parameters["id"]):" })
            .post("/v1/orders/{id}/void", name: "void") { request, context in
                let body = try request.decode(CaptureBody.self, expected: #"{} or {"payment":"pay_…"}"#, emptyIsObject: true)
                return .json(try await ledger.captures.void(context.parameters["id"], payment: body.payment, by: context.actor))
            }
        order.post("/v1/orders/{id}/close", name: "close") { _, context in
            .json(try await ledger.closing.close(context.parameters["id"], by: context.actor))
        }
    }
}
