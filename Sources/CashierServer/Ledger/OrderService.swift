import ApplePay
import Cashier
import CashierCrypto
import CashierStore
import Foundation

/// Orders: created from items priced by the merchant's backend (or the catalog, for the app),
/// read with the query fallback, listed.
struct OrderService: Sendable {
    let ledger: Ledger
    var configuration: MerchantConfiguration { ledger.configuration }
    var store: any OrderStore { ledger.store }

    /// Creates an order from `input` (`body`: the request's raw JSON, where an Apple Pay
    /// commitment is read whole). - Returns: the order as the API shows it, with its client secret.
    /// - Throws: ``RequestProblem``, ``APIError`` (403 when the caller may not set a price) or
    ///   `PaymentError.invalidRequest` (422) saying what to fix.
    func create(_ input: OrderRequest, body: [UInt8], by identity: Identity) async throws -> OrderJSON {
        let caller = identity.caller
        // The app never sets a price: with the publishable key, only catalog SKUs and quantities.
        guard caller == .secret || (configuration.catalog != nil && input.isCatalogOnly) else {
            throw APIError(
                status: 403, code: "forbidden",
                message: configuration.catalog == nil
                    ? "orders are created by your backend with the secret key; the app never sets a price"
                    : "with the publishable key, items name catalog SKUs and quantities only; the app never sets a price")
        }
        let merchant = try orderMerchant(named: input.merchant, for: identity)
        let returnURL = try input.return_url.map { try configuration.checkout.checkedReturnURL($0) }
        let expiresIn = try input.expiry()
        let goods = try input.lineItems(catalog: configuration.catalog)
        if input.profit_sharing != nil, caller != .secret {
            throw RequestProblem.forbidden("profit_sharing is decided by your backend: send it with the secret key")
        }
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
        if input.applepay != nil, let apple = ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["applepay"] {
            guard caller == .secret else {
                throw RequestProblem.forbidden("applepay commitments are priced by your backend: send them with the secret key")
            }
            guard let object = apple as? [String: Any], let currency = goods.first?.unitAmount.currency else {
                throw RequestProblem(#"applepay must be an object such as {"recurringPaymentRequest": {…}}"#)
            }
            let parsed = try ApplePay.Commitment(json: object, currency: currency, now: ledger.clock.now())
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
        let now = ledger.clock.now()
        var new = NewOrder(
            id: id, outTradeNo: TradeNumber.generate(date: now), total: summary.total, description: description,
            metadata: input.metadata ?? [:], itemsJSON: itemsJSON, clientSecret: id + "_secret_" + SecureRandom.alphanumeric(count: 24),
            expiresAt: now.addingTimeInterval(TimeInterval(expiresIn)), sheetJSON: try sheet?.json(), returnURL: returnURL,
            merchant: merchant)
        new.profitSharing = input.profit_sharing == true
        let order = try await store.create(new, now: now)
        ledger.audit?.secretFromLogs([order.clientSecret])
        // The app gets its client secret back, as it would from the merchant's backend.
        let created = OrderJSON(order, includeSecret: true, base: ledger.publicBase)
        ledger.orderCreated?(created)
        return created
    }

    /// The merchant a new order is for: the one named (a configured sub-merchant), or the key's.
    /// - Throws: when the name is unknown (422) or the key acts for another merchant (403).
    func orderMerchant(named: String?, for identity: Identity) throws -> String? {
        let bound = identity.merchant
        if let named {
            guard configuration.subMerchants.contains(where: { $0.id == named }) else {
                throw PaymentError(
                    .invalidRequest,
                    "merchant '\(named)' is not configured (merchants: \(configuration.subMerchants.map(\.id).joined(separator: ", ")))")
            }
            if let bound, bound != named { throw RequestProblem.forbidden("this key acts for merchant \(bound), not \(named)") }
            return named
        }
        return bound
    }

    /// The order, if the caller may see it: the secret key (a merchant's key: its own orders), or
    /// the publishable key with the order's client secret. `nil` otherwise, and for no such order.
    func authorized(_ identity: Identity, id: String, clientSecret: String?) async throws -> StoredOrder? {
        guard let order = try await store.order(id: id) else { return nil }
        if identity.caller == .publishable {
            guard let clientSecret, ConstantTime.equals(clientSecret, order.clientSecret) else { return nil }
        } else if let bound = identity.merchant, bound != order.merchant {
            return nil  // a merchant's key sees its own orders only
        }
        return order
    }

    /// ``authorized(_:id:clientSecret:)``, or 404 saying no such order for these credentials.
    func require(_ identity: Identity, id: String, clientSecret: String?) async throws -> StoredOrder {
        guard let order = try await authorized(identity, id: id, clientSecret: clientSecret) else { throw APIError.noOrder(id) }
        return order
    }

    /// `GET /v1/orders/{id}`: the order as the caller may see it, its payment asked about first
    /// when it is in doubt (``queryIfInDoubt(_:)``).
    func read(_ identity: Identity, id: String, clientSecret: String?) async throws -> OrderJSON {
        let found = try await require(identity, id: id, clientSecret: clientSecret)
        let order = (try? await queryIfInDoubt(found)) ?? found
        return try await view(order, includeSecret: identity.caller == .secret)
    }

    /// The order with its payments and refunds, as the API shows it.
    func view(_ order: StoredOrder, includeSecret: Bool, includeCheckoutURL: Bool = true) async throws -> OrderJSON {
        OrderJSON(
            order, payments: try await store.payments(orderID: order.id), refunds: try await store.refunds(orderID: order.id),
            includeSecret: includeSecret, base: ledger.publicBase, includeCheckoutURL: includeCheckoutURL)
    }

    /// The order `id` as it is now, as the API shows it to the secret key.
    func view(_ id: String) async throws -> OrderJSON {
        guard let order = try await store.order(id: id) else { throw StoreError(.notFound, "no order \(id)") }
        return try await view(order, includeSecret: true)
    }

    /// A payment pending past ``MerchantConfiguration/queryAfter``: ask its provider, and record
    /// a confirmed payment (same checks as a notification) before answering. Requests at once
    /// about one payment share one question (``InFlightQueries``).
    func queryIfInDoubt(_ order: StoredOrder) async throws -> StoredOrder {
        guard order.status == .pending else { return order }
        let now = ledger.clock.now()
        var current = order
        for payment in try await store.payments(orderID: order.id)
        where payment.status == .pending && now.timeIntervalSince(payment.createdAt) >= configuration.queryAfter {
            if let answered = try await ledger.queries.answer(for: payment.id, { try await ledger.payments.ask(payment) }) {
                current = answered
            }
        }
        return current
    }

    /// What `GET /v1/orders` asks for.
    struct Listing: Sendable {
        var status: PaymentStatus?
        var limit: Int
        var startingAfter: String?
        /// A search by the merchant's trade number (the order's, or one of its payments'): at most one order.
        var outTradeNo: String?
    }

    /// One page of orders, newest first, as the API shows them (a merchant's key: its own).
    func list(_ listing: Listing, for identity: Identity) async throws -> OrderPage {
        var orders: [StoredOrder]
        var hasMore = false
        if let number = listing.outTradeNo {
            var found = try await store.order(outTradeNo: number)
            if found == nil {
                for wallet in PaymentMethod.Wallet.allCases where found == nil {
                    if let payment = try await store.payment(wallet: wallet, outTradeNo: number) {
                        found = try await store.order(id: payment.orderID)
                    }
                }
            }
            orders = (found.map { [$0] } ?? []).filter {
                (listing.status == nil || $0.status == listing.status) && (identity.merchant == nil || $0.merchant == identity.merchant)
            }
        } else {
            orders = try await store.orders(
                status: listing.status, merchant: identity.merchant, before: listing.startingAfter, limit: listing.limit + 1)
            hasMore = orders.count > listing.limit
            orders = Array(orders.prefix(listing.limit))
        }
        let ids = orders.map(\.id)
        let payments = try await store.payments(orderIDs: ids)
        let refunds = try await store.refunds(orderIDs: ids)
        return OrderPage(
            data: orders.map { OrderJSON($0, payments: payments, refunds: refunds, includeSecret: true, base: ledger.publicBase) },
            has_more: hasMore)
    }
}
