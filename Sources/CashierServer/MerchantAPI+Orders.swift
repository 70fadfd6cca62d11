import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// `/v1/orders`: creating, reading (with the query fallback) and listing orders.
extension MerchantAPI {

    func createOrder(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let identity = await identify(request) else { return Self.unauthorized }
        // The app's keys live apart from the backend's: an app cannot replay the backend's answers.
        return await idempotent(request, scope: identity.caller == .secret ? "" : "pk:") {
            await self.createOrder(request, identity: identity)
        }
    }

    private func createOrder(_ request: HTTPServerRequest, identity: Identity) async -> HTTPServerResponse {
        let caller = identity.caller
        do {
            let input = try RequestProblem.decode(
                OrderRequest.self, from: request,
                expected: #"{"items":[{"label":"Latte","amount":"12.75","quantity":2}],"currency":"CNY","description":"…"} "#
                    + #"(or catalog items: [{"sku":"latte","quantity":2}])"#)
            // The app never sets a price: with the publishable key, only catalog SKUs and quantities.
            guard caller == .secret || (configuration.catalog != nil && input.isCatalogOnly) else {
                return .error(
                    status: 403, code: "forbidden",
                    message: configuration.catalog == nil
                        ? "orders are created by your backend with the secret key; the app never sets a price"
                        : "with the publishable key, items name catalog SKUs and quantities only; the app never sets a price")
            }
            let merchant = try orderMerchant(named: input.merchant, for: identity)
            let returnURL = try input.return_url.map { try configuration.checkout.checkedReturnURL($0) }
            let expiresIn = try input.expiry()
            let goods = try input.lineItems(catalog: configuration.catalog)
            if input.shipping_methods != nil, caller != .secret {
                throw RequestProblem.forbidden("shipping_methods are priced by your backend: send them with the secret key")
            }
            let options =
                input.shipping_methods?.map {
                    MerchantConfiguration.ApplePay.ShippingOption(
                        identifier: $0.identifier, label: $0.label, detail: $0.detail ?? "", amount: $0.amount)
                } ?? configuration.applePay?.shippingMethods ?? []
            var sheet: OrderSheet?
            // A subscription, deferred charge or automatic reload for the Apple Pay sheet: priced, so the backend's.
            var commitment: String?
            if input.applepay != nil,
                let apple = ((try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any])?["applepay"]
            {
                guard caller == .secret else {
                    throw RequestProblem.forbidden("applepay commitments are priced by your backend: send them with the secret key")
                }
                guard let object = apple as? [String: Any], let currency = goods.first?.unitAmount.currency else {
                    throw RequestProblem(#"applepay must be an object such as {"recurringPaymentRequest": {…}}"#)
                }
                let parsed = try ApplePay.Commitment(json: object, currency: currency, now: clock.now())
                commitment = String(
                    decoding: try JSONSerialization.data(withJSONObject: [parsed.field: parsed.jsonObject()], options: [.sortedKeys]),
                    as: UTF8.self)
            }
            if !options.isEmpty || commitment != nil, let currency = goods.first?.unitAmount.currency {
                let methods = try options.enumerated().map { index, option in
                    do {
                        return try option.method(in: currency)
                    } catch {
                        // The document's pattern takes a decimal; its sign and precision are the currency's rule.
                        let message = "shipping_methods[\(index)]: '\(option.amount)' is not an amount of zero or more in \(currency.code)"
                        throw RequestBounds.isDecimal(option.amount) ? RequestProblem.unprocessable(message) : RequestProblem(message)
                    }
                }
                do {
                    try ShippingMethod.validateUnique(methods)
                } catch let error as MoneyError {
                    throw RequestProblem.unprocessable(error.message)  // two methods with one identifier
                }
                sheet = OrderSheet(goods: goods, shippingMethods: methods)
                sheet?.commitment = commitment
            }
            let items = try sheet?.lines() ?? goods
            // What the wallet shows the payer when the backend gave no description: "2 × Latte, Bagel".
            let description =
                try input.checkedDescription()
                ?? RequestBounds.prefix(
                    goods.map { $0.quantity > 1 ? "\($0.quantity) × \($0.label)" : $0.label }.joined(separator: ", "),
                    bytes: RequestBounds.textBytes)
            let summary: PaymentSummary
            do {
                summary = try PaymentSummary(items: items, totalLabel: description)
            } catch let error as MoneyError {
                throw PaymentError(.invalidRequest, error.message)
            }
            guard summary.total.isPositive else { throw PaymentError(.invalidRequest, "the order's total must be more than zero") }
            guard RequestBounds.totalMinorUnits.contains(summary.total.minorUnits) else {
                throw PaymentError(.invalidRequest, "the order's total \(summary.total) is more than 10¹² minor units")
            }
            let id = "ord_" + SecureRandom.alphanumeric(count: 24)
            let itemsJSON = String(decoding: try JSONEncoder().encode(items), as: UTF8.self)
            let now = clock.now()
            let order = try await store.create(
                NewOrder(
                    id: id, outTradeNo: TradeNumber.generate(date: now), total: summary.total, description: description,
                    metadata: input.metadata ?? [:], itemsJSON: itemsJSON,
                    clientSecret: id + "_secret_" + SecureRandom.alphanumeric(count: 24),
                    expiresAt: now.addingTimeInterval(TimeInterval(expiresIn)), sheetJSON: try sheet?.json(), returnURL: returnURL,
                    merchant: merchant),
                now: now)
            audit?.secretFromLogs([order.clientSecret])
            // The app gets its client secret back, as it would from the merchant's backend.
            let created = OrderJSON(order, includeSecret: true, base: publicBase)
            orderCreated?(created)
            return HTTPServerResponse.json(created, status: 201)
        } catch {
            return Self.failure(error)
        }
    }

    func getOrder(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard let identity = await identify(request) else { return Self.unauthorized }
        do {
            guard let (found, caller) = try await authorizedOrder(identity, id: id, clientSecret: request.queryValue("client_secret"))
            else {
                return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
            }
            let order = (try? await queryIfInDoubt(found)) ?? found
            return .json(try await orderJSON(order, includeSecret: caller == .secret))
        } catch {
            return Self.failure(error)
        }
    }

    /// The order with its payments and refunds, as the API shows it.
    func orderJSON(_ order: StoredOrder, includeSecret: Bool, includeCheckoutURL: Bool = true) async throws -> OrderJSON {
        OrderJSON(
            order, payments: try await store.payments(orderID: order.id), refunds: try await store.refunds(orderID: order.id),
            includeSecret: includeSecret, base: publicBase, includeCheckoutURL: includeCheckoutURL)
    }

    /// A payment pending past ``MerchantConfiguration/queryAfter``: ask its provider, and record
    /// a confirmed payment (same checks as a notification) before answering. Requests at once
    /// about one payment share one question (``InFlightQueries``).
    func queryIfInDoubt(_ order: StoredOrder) async throws -> StoredOrder {
        guard order.status == .pending else { return order }
        let now = clock.now()
        var current = order
        for payment in try await store.payments(orderID: order.id)
        where payment.status == .pending && now.timeIntervalSince(payment.createdAt) >= configuration.queryAfter {
            if let answered = try await queries.answer(for: payment.id, { try await self.ask(payment) }) { current = answered }
        }
        return current
    }

    struct Page: Encodable {
        let data: [OrderJSON]
        let has_more: Bool
    }

    /// `GET /v1/orders?status=paid&limit=20&starting_after=ord_…` (or `?out_trade_no=…`): newest
    /// first, secret key only.
    func listOrders(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let identity = await secretCaller(request) else { return Self.unauthorized }
        let status = request.queryValue("status")
        guard status == nil || PaymentStatus(rawValue: status ?? "") != nil else {
            return .error(
                status: 400, code: "invalid_request",
                message: "status must be one of \(PaymentStatus.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let limit = Int(request.queryValue("limit") ?? "20"), RequestBounds.listLimit.contains(limit) else {
            return .error(status: 400, code: "invalid_request", message: "limit must be a whole number, 1 to 100")
        }
        do {
            var orders: [StoredOrder]
            var hasMore = false
            if let number = request.queryValue("out_trade_no") {
                // A search by the merchant's trade number (the order's, or one of its payments'): at most one order.
                var found = try await store.order(outTradeNo: number)
                if found == nil {
                    for wallet in PaymentMethod.Wallet.allCases where found == nil {
                        if let payment = try await store.payment(wallet: wallet, outTradeNo: number) {
                            found = try await store.order(id: payment.orderID)
                        }
                    }
                }
                orders = (found.map { [$0] } ?? []).filter {
                    (status == nil || $0.status.rawValue == status) && (identity.merchant == nil || $0.merchant == identity.merchant)
                }
            } else {
                orders = try await store.orders(
                    status: status.flatMap(PaymentStatus.init), merchant: identity.merchant, before: request.queryValue("starting_after"),
                    limit: limit + 1)
                hasMore = orders.count > limit
                orders = Array(orders.prefix(limit))
            }
            let ids = orders.map(\.id)
            let payments = try await store.payments(orderIDs: ids)
            let refunds = try await store.refunds(orderIDs: ids)
            return .json(
                Page(
                    data: orders.map { OrderJSON($0, payments: payments, refunds: refunds, includeSecret: true, base: publicBase) },
                    has_more: hasMore))
        } catch {
            return Self.failure(error)
        }
    }
}
