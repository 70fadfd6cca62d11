import Cashier
import CashierHTTP
import CashierStore

/// `/v1/payments`, `/v1/refunds` and `/v1/exports/{kind}.csv`: the records across orders, for
/// the merchant's backend and its books (secret key; a merchant's own key: its own records).
struct RecordsController: RouteCollection {
    let ledger: Ledger
    let middleware: APIMiddleware

    func boot(_ routes: RouteGroup<APIContext>) {
        let backend = routes.add(middleware.secretKey)
        // Payment attempts newest first, with filters; `refund_required=true` lists those that took money to give back.
        backend.get("/v1/payments", name: "list_payments") { request, context in
            var query = try recordQuery(request, statuses: PaymentAttemptStatus.allCases.map(\.rawValue))
            query.merchant = context.caller.merchant
            switch request.queryValue("refund_required") {
            case nil, "false": break
            case "true": query.refundRequired = true
            default: throw RequestProblem("refund_required must be true or false")
            }
            let page = try await ledger.store.payments(matching: query)
            return .json(RecordPage(data: page.prefix(query.limit - 1).map(PaymentJSON.init), has_more: page.count >= query.limit))
        }
        // Refunds newest first, with filters (provider and method are their payment's).
        backend.get("/v1/refunds", name: "list_refunds") { request, context in
            var query = try recordQuery(request, statuses: RefundStatus.allCases.map(\.rawValue))
            query.merchant = context.caller.merchant
            let page = try await ledger.store.refunds(matching: query)
            return .json(RecordPage(data: page.prefix(query.limit - 1).map(RefundJSON.init), has_more: page.count >= query.limit))
        }
        // What was created on those days (merchant's time zone, both included), as CSV.
        backend.get("/v1/exports/{file}", name: "export") { request, context in
            guard let kind = LedgerExport(fileName: context.parameters["file"]) else {
                throw APIError(status: 404, code: "not_found", message: "exports are \(LedgerExport.fileNames)")
            }
            let timeZone = ledger.configuration.timeZone
            let range = try ReportRange(from: request.queryValue("from"), to: request.queryValue("to"), timeZone: timeZone)
            return try await kind.export(range, merchant: context.caller.merchant, store: ledger.store, timeZone: timeZone).response
        }
    }

    /// A ``RecordQuery`` from `provider`, `method`, `status`, `from`/`to` (days), `q`, `limit`
    /// and `starting_after`. - Throws: ``RequestProblem`` naming the parameter.
    func recordQuery(_ request: HTTPServerRequest, statuses: [String]) throws -> RecordQuery {
        let limit = try APIMiddleware.limit(request)
        var query = RecordQuery(search: request.queryValue("q"), after: request.queryValue("starting_after"), limit: limit + 1)
        if let provider = request.queryValue("provider") {
            guard let parsed = PaymentProvider(rawValue: provider) else {
                throw RequestProblem("provider must be one of \(PaymentProvider.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.provider = parsed
        }
        if let method = request.queryValue("method") {
            guard let parsed = PaymentMethod(rawValue: method) else { throw RequestProblem("method must be one of \(PaymentMethod.names)") }
            query.method = parsed
        }
        if let status = request.queryValue("status") {
            guard statuses.contains(status) else { throw RequestProblem("status must be one of \(statuses.joined(separator: ", "))") }
            query.status = status
        }
        if let range = try ReportRange.given(
            from: request.queryValue("from"), to: request.queryValue("to"), timeZone: ledger.configuration.timeZone)
        {
            (query.from, query.until) = (range.start, range.end)
        }
        return query
    }
}
