import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// `/v1/payments`, `/v1/refunds` and `/v1/exports/{kind}.csv`: the records across orders, for
/// the merchant's backend and its books (secret key).
extension MerchantAPI {
    struct RecordPage<Item: Encodable>: Encodable {
        let data: [Item]
        let has_more: Bool
    }

    /// A ``RecordQuery`` from `provider`, `method`, `status`, `from`/`to` (days), `q`, `limit`
    /// and `starting_after`. - Throws: ``RequestProblem`` naming the parameter.
    func recordQuery(_ request: HTTPServerRequest, statuses: [String]) throws -> RecordQuery {
        guard let limit = Int(request.queryValue("limit") ?? "20"), RequestBounds.listLimit.contains(limit) else {
            throw RequestProblem("limit must be a whole number, 1 to 100")
        }
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
            from: request.queryValue("from"), to: request.queryValue("to"), timeZone: configuration.timeZone)
        {
            (query.from, query.until) = (range.start, range.end)
        }
        return query
    }

    /// `GET /v1/payments`: payment attempts newest first, with filters; `refund_required=true`
    /// lists those that took money to give back.
    func listPayments(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        do {
            var query = try recordQuery(request, statuses: PaymentAttemptStatus.allCases.map(\.rawValue))
            query.merchant = identity.merchant
            switch request.queryValue("refund_required") {
            case nil, "false": break
            case "true": query.refundRequired = true
            default: throw RequestProblem("refund_required must be true or false")
            }
            let page = try await store.payments(matching: query)
            return .json(RecordPage(data: page.prefix(query.limit - 1).map(PaymentJSON.init), has_more: page.count >= query.limit))
        } catch {
            return Self.failure(error)
        }
    }

    /// `GET /v1/refunds`: refunds newest first, with filters (provider and method are their payment's).
    func listRefunds(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        do {
            var query = try recordQuery(request, statuses: RefundStatus.allCases.map(\.rawValue))
            query.merchant = identity.merchant
            let page = try await store.refunds(matching: query)
            return .json(RecordPage(data: page.prefix(query.limit - 1).map(RefundJSON.init), has_more: page.count >= query.limit))
        } catch {
            return Self.failure(error)
        }
    }

    /// `GET /v1/exports/{orders|payments|refunds}.csv?from=YYYY-MM-DD&to=YYYY-MM-DD`: what was
    /// created on those days (merchant's time zone, both included), as CSV.
    func export(_ request: HTTPServerRequest, file: String) async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        guard let kind = LedgerExport(fileName: file) else {
            return .error(status: 404, code: "not_found", message: "exports are orders.csv, payments.csv and refunds.csv")
        }
        do {
            let range = try ReportRange(from: request.queryValue("from"), to: request.queryValue("to"), timeZone: configuration.timeZone)
            return try await kind.response(range, merchant: identity.merchant, store: store, timeZone: configuration.timeZone)
        } catch {
            return Self.failure(error)
        }
    }
}
