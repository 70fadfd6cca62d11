import CashierHTTP

/// `/v1/transfers`: money out of the merchant's WeChat Pay account to a person (商家转账), who
/// confirms it in WeChat with the transfer's `package_info`. Secret key only; made with the
/// platform's (the money is its own WeChat Pay account's), read by any. A retried
/// `POST` with its Idempotency-Key answers as the first did and makes no second bill.
struct TransfersController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        let backend = routes.add(middleware.secretKey)
        let transfers = ledger.transfers
        backend.add(middleware.platformOnly).add(middleware.idempotent { _ in "transfer:" }).post("/v1/transfers", name: "create_transfer")
        { request, context in
            let body = try request.decode(
                TransferBody.self,
                expected: #"{"provider":"wechat","amount":100,"currency":"CNY","openid":"o…","remark":"…"} (user_name, scene, "#
                    + #"report_infos and perception optional)"#)
            return .json(
                try await transfers.create(body, caller: context.caller, idempotencyKey: request.headers["Idempotency-Key"]), status: 201)
        }
        backend.get("/v1/transfers", name: "list_transfers") { request, context in
            let offset = try APIMiddleware.offset(request)
            return .json(try await transfers.list(caller: context.caller, limit: try APIMiddleware.limit(request), offset: offset))
        }
        backend.get("/v1/transfers/{id}", name: "get_transfer") { _, context in
            .json(try await transfers.view(context.parameters["id"], caller: context.caller))
        }
        backend.post("/v1/transfers/{id}/cancel", name: "cancel_transfer") { _, context in
            .json(try await transfers.cancel(context.parameters["id"], caller: context.caller))
        }
    }
}
