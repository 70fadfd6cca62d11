import Cashier
import CashierHTTP
import CashierStore

/// `/v1/webhooks`: the deliveries to the merchant's endpoint, and sending them again after it
/// was down (the same event id, signed anew when sent) — the platform's secret key only.
struct WebhooksController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        let platform = routes.add(middleware.secretKey).add(middleware.platformOnly)
        // `?state=failed&from=…&to=…&order_id=…&limit=…&starting_after=…`
        platform.get("/v1/webhooks", name: "list_webhooks") { request, _ in
            let limit = try APIMiddleware.limit(request)
            var query = WebhookQuery(orderID: request.queryValue("order_id"), after: request.queryValue("starting_after"), limit: limit + 1)
            if let state = request.queryValue("state") {
                guard let parsed = WebhookQuery.State(rawValue: state) else {
                    throw RequestProblem("state must be delivered, failed or pending")
                }
                query.state = parsed
            }
            if let range = try ReportRange.given(
                from: request.queryValue("from"), to: request.queryValue("to"), timeZone: ledger.configuration.timeZone)
            {
                (query.from, query.until) = (range.start, range.end)
            }
            let page = try await ledger.store.webhooks(matching: query)
            return .json(RecordPage(data: page.prefix(limit).map(WebhookJSON.init), has_more: page.count > limit))
        }
        // `{"from": "YYYY-MM-DD", "to": "YYYY-MM-DD"}`: every delivery queued on those days that was tried and not delivered.
        platform.post("/v1/webhooks/resend", name: "resend_webhooks") { request, context in
            try ledger.webhooks.requireEndpoint()
            let body = try request.decode(WebhookRangeBody.self, expected: #"{"from":"2026-12-01","to":"2026-12-01"}"#)
            let range = try ReportRange(from: body.from, to: body.to, timeZone: ledger.configuration.timeZone)
            let messages = try await ledger.webhooks.resendFailed(in: range, by: context.actor)
            return .json(WebhookResendAnswer(resent: messages.count, data: messages.map(WebhookJSON.init)))
        }
        // Sent again at the webhook job's next run.
        platform.post("/v1/webhooks/{id}/resend", name: "resend_webhook") { _, context in
            .json(WebhookJSON(try await ledger.webhooks.resend(context.parameters["id"], by: context.actor)))
        }
    }
}
