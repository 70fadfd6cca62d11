import CashierHTTP
import CashierStore
import CashierWire

/// `/v1/agreements` and `/v1/subscriptions`: recurring payments. Secret key only (the merchant's
/// backend makes agreements and charges; the app opens an agreement's `launch` and asks the
/// backend how it stands). A retried `POST /v1/agreements` with its Idempotency-Key answers as
/// the first did and reserves no second agreement.
struct RecurringController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        let backend = routes.add(middleware.secretKey)
        let recurring = ledger.recurring
        backend.add(middleware.idempotent { _ in "agreement:" }).post("/v1/agreements", name: "create_agreement") { request, context in
            let body = try request.decode(
                AgreementBody.self,
                expected: #"{"method":"wechat.app","description":"…","period":{"unit":"month","count":1},"single_limit":3000} "#
                    + #"(currency, plan_id, first_charge_date and return_url optional)"#)
            return .json(
                try await recurring.create(body, caller: context.caller, idempotencyKey: request.headers["Idempotency-Key"]), status: 201)
        }
        backend.get("/v1/agreements", name: "list_agreements") { request, context in
            .json(
                try await recurring.list(
                    caller: context.caller, limit: try APIMiddleware.limit(request), offset: try APIMiddleware.offset(request)))
        }
        backend.get("/v1/agreements/{id}", name: "get_agreement") { _, context in
            .json(try await recurring.view(context.parameters["id"], caller: context.caller))
        }
        backend.post("/v1/agreements/{id}/terminate", name: "terminate_agreement") { request, context in
            let body = try request.decode(EndBody.self, expected: #"{} or {"reason":"…"}"#, emptyIsObject: true)
            return .json(try await recurring.terminate(context.parameters["id"], reason: body.reason, caller: context.caller))
        }
        backend.post("/v1/agreements/{id}/authorize", name: "authorize_agreement") { request, context in
            let body = try request.decode(AgreementAuthorizeBody.self, expected: #"{"token":{…the PKPaymentToken's paymentData…}}"#)
            return .json(try await recurring.authorize(context.parameters["id"], body, caller: context.caller))
        }
        backend.post("/v1/subscriptions", name: "create_subscription") { request, context in
            let body = try request.decode(
                SubscriptionBody.self,
                expected: #"{"agreement":"agr_…","amount":3000} (currency, description, interval, anchor and max_attempts optional)"#)
            return .json(try await recurring.createSubscription(body, caller: context.caller), status: 201)
        }
        backend.get("/v1/subscriptions", name: "list_subscriptions") { request, context in
            .json(
                try await recurring.listSubscriptions(
                    agreement: request.queryValue("agreement"), caller: context.caller, limit: try APIMiddleware.limit(request),
                    offset: try APIMiddleware.offset(request)))
        }
        backend.get("/v1/subscriptions/{id}", name: "get_subscription") { _, context in
            .json(try await recurring.viewSubscription(context.parameters["id"], caller: context.caller))
        }
        for (action, status) in [("pause", StoredSubscription.Status.paused), ("resume", .active), ("cancel", .canceled)] {
            backend.post("/v1/subscriptions/{id}/\(action)", name: "\(action)_subscription") { request, context in
                let body = try request.decode(EndBody.self, expected: #"{} or {"reason":"…"}"#, emptyIsObject: true)
                return .json(
                    try await recurring.changeSubscription(
                        context.parameters["id"], to: status, reason: body.reason, caller: context.caller))
            }
        }
        backend.post("/v1/subscriptions/{id}/retry", name: "retry_subscription") { _, context in
            .json(try await recurring.retry(context.parameters["id"], caller: context.caller))
        }
    }
}
