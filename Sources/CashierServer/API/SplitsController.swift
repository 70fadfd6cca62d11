import CashierHTTP
import CashierWire

/// `/v1/orders/{id}/splits`, `/v1/splits/{id}` and `/v1/receivers`: profit sharing. Secret key only; a merchant's
/// key sees its own orders and receivers. A retried `POST` with its Idempotency-Key answers as the
/// first did and shares nothing more.
struct SplitsController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        let backend = routes.add(middleware.secretKey)
        let splits = ledger.splits
        let order = backend.add(middleware.ownOrder)
        order.add(middleware.idempotent { "split:\($0.parameters["id"]):" }).post("/v1/orders/{id}/splits", name: "create_split") {
            request, context in
            let body = try request.decode(
                SplitBody.self,
                expected: #"{"receivers":[{"receiver":"rcv_…","amount":100,"description":"…"}]} (description and finish optional)"#)
            return .json(
                try await splits.create(
                    orderID: context.parameters["id"], body, caller: context.caller, idempotencyKey: request.headers["Idempotency-Key"]),
                status: 201)
        }
        order.get("/v1/orders/{id}/splits", name: "list_splits") { _, context in
            .json(try await splits.page(orderID: context.parameters["id"]))
        }
        order.add(middleware.idempotent { "split-finish:\($0.parameters["id"]):" }).post(
            "/v1/orders/{id}/splits/finish", name: "finish_splits"
        ) {
            request, context in
            let body = try request.decode(SplitFinishBody.self, expected: #"{} or {"description":"…"}"#)
            return .json(
                try await splits.finish(
                    orderID: context.parameters["id"], body, caller: context.caller, idempotencyKey: request.headers["Idempotency-Key"]),
                status: 201)
        }
        backend.get("/v1/splits/{id}", name: "get_split") { _, context in
            .json(SplitJSON(try await splits.find(context.parameters["id"], caller: context.caller)))
        }
        backend.add(middleware.idempotent { "split-return:\($0.parameters["id"]):" }).post(
            "/v1/splits/{id}/returns", name: "create_split_return"
        ) { request, context in
            let body = try request.decode(SplitReturnBody.self, expected: #"{"receiver":"rcv_…","amount":100,"description":"…"}"#)
            return .json(
                try await splits.createReturn(
                    splitID: context.parameters["id"], body, caller: context.caller, idempotencyKey: request.headers["Idempotency-Key"]),
                status: 201)
        }
        backend.post("/v1/receivers", name: "add_receiver") { request, context in
            let body = try request.decode(
                ReceiverBody.self,
                expected: #"{"provider":"wechat","type":"MERCHANT_ID","account":"1900000109","name":"…","relation_type":"PARTNER"}"#)
            let (receiver, created) = try await splits.addReceiver(body, caller: context.caller)
            return .json(receiver, status: created ? 201 : 200)
        }
        backend.get("/v1/receivers", name: "list_receivers") { request, context in
            let offset = try APIMiddleware.offset(request)
            return .json(try await splits.receivers(caller: context.caller, limit: try APIMiddleware.limit(request), offset: offset))
        }
        backend.get("/v1/receivers/{id}", name: "get_receiver") { _, context in
            .json(ReceiverJSON(try await splits.findReceiver(context.parameters["id"], caller: context.caller)))
        }
        backend.post("/v1/receivers/{id}/remove", name: "remove_receiver") { _, context in
            .json(try await splits.removeReceiver(context.parameters["id"], caller: context.caller))
        }
    }
}
