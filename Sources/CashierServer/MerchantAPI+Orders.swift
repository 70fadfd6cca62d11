import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation
import WeChatPay

/// `/v1/orders`: creating, reading (with the query fallback) and listing orders.
extension MerchantAPI {

    func createOrder(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let caller = caller(request) else { return Self.unauthorized }
        // The app's keys live apart from the backend's: an app cannot replay the backend's answers.
        return await idempotent(request, scope: caller == .secret ? "" : "pk:") { await self.createOrder(request, caller: caller) }
    }

    /// Honours `Idempotency-Key`: the same key and body (whatever its key order or spacing) replay
    /// the first successful answer; the same key with another body is a 409. `scope` keeps keys of
    /// different endpoints (and of the app) apart. A failed attempt is not remembered: it may be retried.
    func idempotent(_ request: HTTPServerRequest, scope: String, _ body: () async -> HTTPServerResponse) async -> HTTPServerResponse {
        guard let given = request.headers["Idempotency-Key"] else { return await body() }
        let key = scope + given
        let canonical = (try? JSONSerialization.jsonObject(with: Data(request.body))).flatMap {
            try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys])
        }
        let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(canonical.map(Array.init) ?? request.body))
        do {
            switch try await store.idempotency(key: key, requestSHA256: bodyHash) {
            case .replay(let status, let body):
                return HTTPServerResponse(
                    status: status, headers: ["Content-Type": "application/json", "Idempotent-Replayed": "true"], body: body)
            case .conflict:
                return .error(
                    status: 409, code: "idempotency_conflict", message: "Idempotency-Key \(given) was used with another request body")
            case .new: break
            }
            let response = await body()
            if (200..<300).contains(response.status) {
                try await store.saveIdempotentResponse(key: key, requestSHA256: bodyHash, status: response.status, body: response.body)
            }
            return response
        } catch {
            return Self.failure(error)
        }
    }

    private func createOrder(_ request: HTTPServerRequest, caller: Caller) async -> HTTPServerResponse {
        do {
            guard let input = try? request.decodeJSON(OrderRequest.self) else {
                return .error(
                    status: 400, code: "invalid_request",
                    message:
                        #"expected {"items":[{"label":"Latte","amount":"12.75","quantity":2}],"currency":"CNY","description":"…"} "#
                        + #"(or catalog items: [{"sku":"latte","quantity":2}])"#)
            }
            // The app never sets a price: with the publishable key, only catalog SKUs and quantities.
            guard caller == .secret || (configuration.catalog != nil && input.isCatalogOnly) else {
                return .error(
                    status: 403, code: "forbidden",
                    message: configuration.catalog == nil
                        ? "orders are created by your backend with the secret key; the app never sets a price"
                        : "with the publishable key, items name catalog SKUs and quantities only; the app never sets a price")
            }
            let items = try input.lineItems(catalog: configuration.catalog)
            // What the wallet shows the payer when the backend gave no description: "2 × Latte, Bagel".
            let description =
                input.description
                ?? String(items.map { $0.quantity > 1 ? "\($0.quantity) × \($0.label)" : $0.label }.joined(separator: ", ").prefix(120))
            let summary: PaymentSummary
            do {
                summary = try PaymentSummary(items: items, totalLabel: description)
            } catch let error as MoneyError {
                throw PaymentError(.invalidRequest, error.message)
            }
            guard summary.total.isPositive else { throw PaymentError(.invalidRequest, "the order's total must be more than zero") }
            let id = "ord_" + SecureRandom.alphanumeric(count: 24)
            let itemsJSON = String(decoding: try JSONEncoder().encode(items), as: UTF8.self)
            let order = try await store.create(
                NewOrder(
                    id: id, outTradeNo: TradeNumber.generate(), total: summary.total, description: description,
                    metadata: input.metadata ?? [:], itemsJSON: itemsJSON,
                    clientSecret: id + "_secret_" + SecureRandom.alphanumeric(count: 24),
                    expiresAt: Date().addingTimeInterval(TimeInterval(input.expires_in ?? 7200))))
            // The app gets its client secret back, as it would from the merchant's backend.
            return HTTPServerResponse.json(OrderJSON(order, includeSecret: true), status: 201)
        } catch {
            return Self.failure(error)
        }
    }

    func getOrder(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) != nil else { return Self.unauthorized }
        do {
            guard let (found, caller) = try await authorizedOrder(request, id: id, clientSecret: request.queryValue("client_secret")) else {
                return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
            }
            let order = (try? await queryIfInDoubt(found)) ?? found
            return .json(OrderJSON(order, includeSecret: caller == .secret))
        } catch {
            return Self.failure(error)
        }
    }

    /// A payment pending past ``MerchantConfiguration/queryAfter``: ask its provider, and record a
    /// confirmed payment (same amount checks as a notification) before answering.
    func queryIfInDoubt(_ order: StoredOrder, now: Date = Date()) async throws -> StoredOrder {
        guard order.status == .pending, let started = try await startedPayment(of: order),
            now.timeIntervalSince(started.at) >= configuration.queryAfter
        else { return order }
        return try await ask(order, started)
    }

    /// Asks the provider about `order`'s payment and records a confirmed one; the order as it is now.
    private func ask(_ order: StoredOrder, _ started: StartedPayment) async throws -> StoredOrder {
        guard let confirmed = try await confirmedPayment(order, started) else { return order }
        switch try await move(
            .paymentSucceeded, to: order.id, refunded: nil, record: EventRecord(kind: "query", detail: Self.detail(confirmed)), now: Date())
        {
        case .applied(let updated, _), .unchanged(let updated): return updated
        }
    }

    /// The query-fallback job: every pending payment past ``MerchantConfiguration/queryAfter``
    /// whose turn has come is asked about at its provider; one still unpaid waits twice as long
    /// before the next question. - Returns: how many were found paid.
    @discardableResult
    func queryPending(now: Date = Date(), schedule: QueryFallbackSchedule, limit: Int = 100) async throws -> Int {
        let pending = try await store.orders(status: .pending, before: nil, limit: limit)
        schedule.keep(only: Set(pending.map(\.id)))
        var paid = 0
        for order in pending where schedule.isDue(order.id, now: now) {
            guard let started = try await startedPayment(of: order), now.timeIntervalSince(started.at) >= configuration.queryAfter
            else { continue }
            let answered = try? await ask(order, started)
            if let answered, answered.status != .pending {
                paid += 1
            } else {
                schedule.backOff(order.id, now: now, first: configuration.queryAfter)
            }
        }
        return paid
    }

    /// Asks the payment's provider: the fields to record when it confirms the payment for the
    /// order's amount, `nil` when it does not (or the provider has no query: Apple Pay).
    func confirmedPayment(_ order: StoredOrder, _ started: StartedPayment) async throws -> [String: String]? {
        switch started.provider {
        case "wechat": return try await wechatConfirmedPayment(order, started)
        case "alipay":
            let trade = try await alipayClient().query(outTradeNo: order.outTradeNo)
            guard trade.isPaid, trade.totalAmount == order.total else { return nil }
            return ["trade_status": trade.tradeStatus, "trade_no": trade.tradeNo]
        default: return nil
        }
    }

    struct Page: Encodable {
        let data: [OrderJSON]
        let has_more: Bool
    }

    /// `GET /v1/orders?status=paid&limit=20&starting_after=ord_…` (or `?out_trade_no=…`): newest
    /// first, secret key only.
    func listOrders(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard caller(request) == .secret else { return Self.unauthorized }
        let status = request.queryValue("status")
        guard status == nil || PaymentStatus(rawValue: status ?? "") != nil else {
            return .error(
                status: 400, code: "invalid_request",
                message: "status must be one of \(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let limit = Int(request.queryValue("limit") ?? "20"), (1...100).contains(limit) else {
            return .error(status: 400, code: "invalid_request", message: "limit must be 1 to 100")
        }
        do {
            if let number = request.queryValue("out_trade_no") {
                // A search by the merchant's trade number: at most one order.
                let found = try await store.order(outTradeNo: number).map { [$0] } ?? []
                let matching = found.filter { status == nil || $0.status.rawValue == status }
                return .json(Page(data: matching.map { OrderJSON($0, includeSecret: true) }, has_more: false))
            }
            let page = try await store.orders(
                status: status.flatMap(PaymentStatus.init), before: request.queryValue("starting_after"), limit: limit + 1)
            return .json(Page(data: page.prefix(limit).map { OrderJSON($0, includeSecret: true) }, has_more: page.count > limit))
        } catch {
            return Self.failure(error)
        }
    }
}
