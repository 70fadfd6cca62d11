import Alipay
import ApplePay
import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation
import WeChatPay

/// The routes of ``MerchantServer``.
struct MerchantAPI: Sendable {
    let configuration: MerchantConfiguration
    let store: any OrderStore
    let listening: ListeningPort
    let metrics: ServerMetrics

    /// Where providers send notifications.
    var notifyBase: String {
        configuration.publicBaseURL ?? "http://127.0.0.1:\(listening.port.load(ordering: .acquiring))"
    }

    enum Caller { case secret, publishable }

    func register(on router: inout Router) {
        router.add("GET", "/healthz") { _, _ in .json(["status": "ok"]) }
        router.add("GET", "/openapi.json") { _, _ in
            let data =
                (try? JSONSerialization.data(withJSONObject: OpenAPIDocument.json(version: CashierVersion.current), options: [.sortedKeys]))
                ?? Data()
            return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(data))
        }
        router.add("GET", "/metrics") { _, _ in .text(self.metrics.render(), contentType: "text/plain; version=0.0.4") }
        router.add("POST", "/v1/orders") { request, _ in await self.createOrder(request) }
        router.add("GET", "/v1/orders") { request, _ in await self.listOrders(request) }
        router.add("GET", "/v1/orders/{id}") { request, parameters in await self.getOrder(request, id: parameters["id"] ?? "") }
        router.add("POST", "/v1/orders/{id}/payments") { request, parameters in await self.startPayment(request, id: parameters["id"] ?? "")
        }
        router.add("POST", "/v1/orders/{id}/payments/applepay/authorize") { request, parameters in
            await self.authorizeApplePay(request, id: parameters["id"] ?? "")
        }
        router.add("POST", "/v1/orders/{id}/refunds") { request, parameters in await self.refund(request, id: parameters["id"] ?? "") }
        router.add("POST", "/v1/orders/{id}/close") { request, parameters in await self.close(request, id: parameters["id"] ?? "") }
        router.add("GET", "/v1/orders/{id}/events") { request, parameters in await self.events(request, id: parameters["id"] ?? "") }
        router.add("POST", "/notify/wechat/v2") { request, _ in await self.wechatNotification(request) }
        router.add("POST", "/notify/wechat/v2/refund") { request, _ in await self.wechatRefundNotification(request) }
        router.add("POST", "/notify/alipay") { request, _ in await self.alipayNotification(request) }
    }

    /// ``OrderStore/apply(_:to:refunded:record:now:)``, counted for `/metrics`.
    func move(_ event: PaymentEvent, to orderID: String, refunded: Money?, record: EventRecord, now: Date) async throws -> TransitionOutcome
    {
        let outcome = try await store.apply(event, to: orderID, refunded: refunded, record: record, now: now)
        if case .applied(let order, _) = outcome { metrics.increment("cashier_transitions_total", ["to": order.status.rawValue]) }
        return outcome
    }

    // MARK: Provider clients

    func wechatClient() throws -> WeChatPay.V2.Client {
        guard let wechat = configuration.wechat else { throw PaymentError(.invalidRequest, "WeChat Pay is not configured on this server") }
        return WeChatPay.V2.Client(merchant: wechat.merchant, mutualTLSTransport: wechat.mutualTLSTransport, baseURL: wechat.baseURL)
    }

    func alipayClient() throws -> Alipay.Client {
        guard let alipay = configuration.alipay else { throw PaymentError(.invalidRequest, "Alipay is not configured on this server") }
        return Alipay.Client(
            appID: alipay.appID, signer: Alipay.Signer(privateKey: alipay.privateKey), alipayPublicKey: alipay.alipayPublicKey,
            gateway: alipay.gateway)
    }

    // MARK: Authentication

    func caller(_ request: HTTPServerRequest) -> Caller? {
        guard let header = request.headers["Authorization"], header.hasPrefix("Bearer ") else { return nil }
        let key = String(header.dropFirst(7))
        if ConstantTime.equals(key, configuration.secretKey) { return .secret }
        if ConstantTime.equals(key, configuration.publishableKey) { return .publishable }
        return nil
    }

    static let unauthorized = HTTPServerResponse.error(
        status: 401, code: "unauthorized",
        message: "send Authorization: Bearer sk_… (your backend) or pk_… with the order's client_secret (the app)")

    /// The order, if the caller may see it: the secret key, or the publishable key with its client secret.
    func authorizedOrder(_ request: HTTPServerRequest, id: String, clientSecret: String?) async throws -> (StoredOrder, Caller)? {
        guard let caller = caller(request) else { return nil }
        guard let order = try await store.order(id: id) else { return nil }
        if caller == .publishable {
            guard let clientSecret, ConstantTime.equals(clientSecret, order.clientSecret) else { return nil }
        }
        return (order, caller)
    }

    static func failure(_ error: any Error) -> HTTPServerResponse {
        switch error {
        case let error as PaymentError where error.code == .invalidRequest:
            .error(status: 400, code: "invalid_request", message: error.message)
        case let error as PaymentError: .error(status: 502, code: "provider_error", message: error.message)
        case let error as StoreError where error.code == .illegalTransition:
            .error(status: 409, code: "invalid_state", message: error.message)
        case let error as StoreError where error.code == .conflict: .error(status: 409, code: "conflict", message: error.message)
        default: .error(status: 500, code: "internal_error", message: "the request could not be completed; it is safe to retry")
        }
    }

    // MARK: Orders

    func createOrder(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let caller = caller(request) else { return Self.unauthorized }
        guard caller == .secret else {
            return .error(
                status: 403, code: "forbidden",
                message: "orders are created by your backend with the secret key; the app never sets a price")
        }
        do {
            // The same request is the same JSON, whatever its key order or spacing.
            let canonical = (try? JSONSerialization.jsonObject(with: Data(request.body))).flatMap {
                try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys])
            }
            let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(canonical.map(Array.init) ?? request.body))
            let key = request.headers["Idempotency-Key"]
            if let key {
                switch try await store.idempotency(key: key, requestSHA256: bodyHash) {
                case .replay(let status, let body):
                    return HTTPServerResponse(
                        status: status, headers: ["Content-Type": "application/json", "Idempotent-Replayed": "true"], body: body)
                case .conflict:
                    return .error(
                        status: 409, code: "idempotency_conflict", message: "Idempotency-Key \(key) was used with another request body")
                case .new: break
                }
            }
            guard let input = try? request.decodeJSON(OrderRequest.self) else {
                return .error(
                    status: 400, code: "invalid_request",
                    message: #"expected {"items":[{"label":"Latte","amount":"12.75","quantity":2}],"currency":"CNY","description":"…"}"#)
            }
            let items = try input.lineItems()
            let summary: PaymentSummary
            do {
                summary = try PaymentSummary(items: items, totalLabel: input.description ?? "Order")
            } catch let error as MoneyError {
                throw PaymentError(.invalidRequest, error.message)
            }
            guard summary.total.isPositive else { throw PaymentError(.invalidRequest, "the order's total must be more than zero") }
            let id = "ord_" + SecureRandom.alphanumeric(count: 24)
            let itemsJSON = String(decoding: try JSONEncoder().encode(items), as: UTF8.self)
            let order = try await store.create(
                NewOrder(
                    id: id, outTradeNo: TradeNumber.generate(), total: summary.total, description: input.description ?? "Order",
                    metadata: input.metadata ?? [:], itemsJSON: itemsJSON,
                    clientSecret: id + "_secret_" + SecureRandom.alphanumeric(count: 24),
                    expiresAt: Date().addingTimeInterval(TimeInterval(input.expires_in ?? 7200))))
            let response = HTTPServerResponse.json(OrderJSON(order, includeSecret: true), status: 201)
            if let key { try await store.saveIdempotentResponse(key: key, requestSHA256: bodyHash, status: 201, body: response.body) }
            return response
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
    func queryIfInDoubt(_ order: StoredOrder) async throws -> StoredOrder {
        guard order.status == .pending,
            let started = try await store.events(orderID: order.id).last(where: { $0.kind == "payment_started" }),
            Date().timeIntervalSince(started.createdAt) >= configuration.queryAfter
        else { return order }
        var confirmed: [String: String]?
        switch try await provider(of: order) {
        case "wechat":
            let status = try await wechatClient().orderQuery(outTradeNo: order.outTradeNo)
            if status.tradeState == "SUCCESS", status.amount == order.total {
                confirmed = ["trade_state": status.tradeState, "transaction_id": status.transactionID ?? ""]
            }
        case "alipay":
            let trade = try await alipayClient().query(outTradeNo: order.outTradeNo)
            if trade.isPaid, trade.totalAmount == order.total {
                confirmed = ["trade_status": trade.tradeStatus, "trade_no": trade.tradeNo]
            }
        default: break
        }
        guard let confirmed else { return order }
        switch try await move(
            .paymentSucceeded, to: order.id, refunded: nil, record: EventRecord(kind: "query", detail: Self.detail(confirmed)), now: Date())
        {
        case .applied(let updated, _), .unchanged(let updated): return updated
        }
    }

    /// `GET /v1/orders?status=paid&limit=20&starting_after=ord_…`: newest first, secret key only.
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
            let page = try await store.orders(
                status: status.flatMap(PaymentStatus.init), before: request.queryValue("starting_after"), limit: limit + 1)
            struct Page: Encodable {
                let data: [OrderJSON]
                let has_more: Bool
            }
            return .json(Page(data: page.prefix(limit).map { OrderJSON($0, includeSecret: true) }, has_more: page.count > limit))
        } catch {
            return Self.failure(error)
        }
    }

    // MARK: Payments

    struct PaymentRequestBody: Decodable {
        let method: String
        let client_secret: String?
        let client_ip: String?
        /// wechat.jsapi: the payer's openid for this appid.
        let openid: String?
        /// alipay.wap / alipay.page: where Alipay sends the browser back.
        let return_url: String?
    }

    func startPayment(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) != nil else { return Self.unauthorized }
        guard let body = try? request.decodeJSON(PaymentRequestBody.self) else {
            return .error(
                status: 400, code: "invalid_request",
                message:
                    #"expected {"method":"wechat.app"|"wechat.jsapi"|"wechat.native"|"wechat.h5"|"alipay.app"|"alipay.wap"|"alipay.page"|"alipay.qr"|"applepay"}"#
            )
        }
        do {
            guard let (order, _) = try await authorizedOrder(request, id: id, clientSecret: body.client_secret) else {
                return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
            }
            guard !order.status.hasReceivedMoney, order.status != .closed else {
                return .error(
                    status: 409, code: "invalid_state", message: "order \(id) is \(order.status.rawValue); it takes no new payment")
            }
            let parameters = try await walletParameters(body, order: order)
            _ = try await move(
                .paymentStarted, to: order.id, refunded: nil,
                record: EventRecord(kind: "payment_started", detail: #"{"method":"\#(body.method)"}"#),
                now: Date())
            return HTTPServerResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(parameters))
        } catch {
            return Self.failure(error)
        }
    }

    /// What the app hands to the wallet, as JSON bytes.
    func walletParameters(_ body: PaymentRequestBody, order: StoredOrder) async throws -> Data {
        let method = body.method
        let clientIP = body.client_ip ?? "127.0.0.1"
        func json(_ object: [String: Any]) throws -> Data {
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        }
        switch method {
        case "wechat.app", "wechat.native", "wechat.h5", "wechat.jsapi":
            let tradeType: WeChatPay.V2.UnifiedOrder.TradeType =
                switch method {
                case "wechat.app": .app
                case "wechat.native": .native
                case "wechat.h5": .mweb
                default: .jsapi
                }
            if tradeType == .jsapi, body.openid?.isEmpty ?? true {
                throw PaymentError(
                    .invalidRequest, "wechat.jsapi needs the payer's openid (from OAuth, or jscode2session in a mini program)")
            }
            let client = try wechatClient()
            let result = try await client.unifiedOrder(
                .init(
                    tradeType: tradeType, body: order.description, outTradeNo: order.outTradeNo, total: order.total,
                    notifyURL: notifyBase + "/notify/wechat/v2", clientIP: clientIP, openID: tradeType == .jsapi ? body.openid : nil,
                    productID: tradeType == .native ? order.id : nil))
            switch tradeType {
            case .native: return try json(["method": method, "code_url": result.codeURL ?? ""])
            case .mweb: return try json(["method": method, "mweb_url": result.mwebURL ?? ""])
            case .jsapi:
                let parameters = WeChatPay.V2.JSAPIParameters(prepayID: result.prepayID, merchant: client.merchant)
                return try json(["method": method, "wechat": try JSONSerialization.jsonObject(with: JSONEncoder().encode(parameters))])
            case .app:
                let parameters = WeChatPay.V2.AppPayParameters(prepayID: result.prepayID, merchant: client.merchant)
                return try json(["method": method, "wechat": try JSONSerialization.jsonObject(with: JSONEncoder().encode(parameters))])
            }
        case "alipay.wap", "alipay.page":
            guard let returnURL = body.return_url, URL(string: returnURL)?.scheme?.hasPrefix("http") == true else {
                throw PaymentError(.invalidRequest, "\(method) needs return_url, the page Alipay sends the browser back to")
            }
            let client = try alipayClient()
            let apiMethod = method == "alipay.wap" ? "alipay.trade.wap.pay" : "alipay.trade.page.pay"
            let url = try client.paymentPageURL(
                method: apiMethod, outTradeNo: order.outTradeNo, total: order.total, subject: order.description,
                notifyURL: notifyBase + "/notify/alipay", returnURL: returnURL)
            let form = try client.paymentPageForm(
                method: apiMethod, outTradeNo: order.outTradeNo, total: order.total, subject: order.description,
                notifyURL: notifyBase + "/notify/alipay", returnURL: returnURL)
            return try json(["method": method, "url": url.absoluteString, "form": form])
        case "alipay.app", "alipay.qr":
            guard let alipay = configuration.alipay else { throw PaymentError(.invalidRequest, "Alipay is not configured on this server") }
            let signer = Alipay.Signer(privateKey: alipay.privateKey)
            if method == "alipay.app" {
                let biz = try JSONSerialization.data(
                    withJSONObject: [
                        "out_trade_no": order.outTradeNo, "total_amount": order.total.decimalString, "subject": order.description,
                    ],
                    options: [.sortedKeys])
                let orderString = try Alipay.OrderString.make(
                    appID: alipay.appID, signer: signer, notifyURL: notifyBase + "/notify/alipay",
                    bizContent: String(decoding: biz, as: UTF8.self))
                return try json(["method": method, "order_string": orderString])
            }
            let qr = try await alipayClient().precreate(
                outTradeNo: order.outTradeNo, total: order.total, subject: order.description, notifyURL: notifyBase + "/notify/alipay")
            return try json(["method": method, "qr_code": qr])
        case "applepay":
            guard let applePay = configuration.applePay else {
                throw PaymentError(.invalidRequest, "Apple Pay is not configured on this server")
            }
            let request = try ApplePay.PaymentRequest(
                merchantIdentifier: applePay.merchantIdentifier, countryCode: applePay.countryCode,
                items: [try LineItem(label: order.description, unitAmount: order.total)], totalLabel: applePay.displayName,
                supportedNetworks: applePay.supportedNetworks,
                merchantCapabilities: applePay.countryCode.alpha2 == "CN" || applePay.supportedNetworks.contains(.chinaUnionPay)
                    ? [.supports3DS, .supportsEMV] : [.supports3DS],
                applicationData: Array(order.id.utf8))
            return try json(["method": method, "payment_request": try request.jsonObject()])
        default:
            throw PaymentError(
                .invalidRequest,
                "method '\(method)' is not one of wechat.app, wechat.jsapi, wechat.native, wechat.h5, alipay.app, alipay.wap, alipay.page, "
                    + "alipay.qr, applepay")
        }
    }

    struct AuthorizeBody: Decodable {
        let token: JSONValue
        let client_secret: String?
    }

    /// `POST /v1/orders/{id}/payments/applepay/authorize`: verify, decrypt, check, authorise, record.
    func authorizeApplePay(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) != nil else { return Self.unauthorized }
        guard let applePay = configuration.applePay else {
            return .error(status: 400, code: "invalid_request", message: "Apple Pay is not configured on this server")
        }
        guard let body = try? request.decodeJSON(AuthorizeBody.self), let tokenJSON = try? JSONEncoder().encode(body.token) else {
            return .error(status: 400, code: "invalid_request", message: #"expected {"token": <the PKPayment or its token as JSON>}"#)
        }
        do {
            guard let (order, _) = try await authorizedOrder(request, id: id, clientSecret: body.client_secret) else {
                return .error(status: 404, code: "not_found", message: "no order \(id) for these credentials")
            }
            let payment: ApplePay.DecryptedPayment
            do {
                payment = try applePay.decrypter.decrypt(try ApplePay.PaymentToken(json: tokenJSON), applicationData: Array(order.id.utf8))
                try payment.check(total: order.total)
            } catch let error as PaymentError {
                try await store.append(
                    EventRecord(kind: "applepay_refused", detail: Self.detail(["reason": error.message])), to: order.id, now: Date())
                return .json(
                    AuthorizationAnswer(
                        status: ApplePay.AuthorizationStatus.failure.rawValue, order_status: order.status.rawValue, message: error.message))
            }
            let decision = try await applePay.processor.authorize(payment, amount: order.total, reference: order.id)
            guard case .authorized(let reference) = decision else {
                try await store.append(
                    EventRecord(
                        kind: "applepay_declined",
                        detail: Self.detail(["card": payment.maskedAccountNumber, "status": "\(decision.status.rawValue)"])),
                    to: order.id, now: Date())
                return .json(
                    AuthorizationAnswer(status: decision.status.rawValue, order_status: order.status.rawValue, message: "declined"))
            }
            let outcome = try await move(
                .paymentSucceeded, to: order.id, refunded: nil,
                record: EventRecord(
                    kind: "applepay_authorized",
                    detail: Self.detail(["card": payment.maskedAccountNumber, "processor_reference": reference])),
                now: Date())
            let updated: StoredOrder
            switch outcome {
            case .applied(let order, _), .unchanged(let order): updated = order
            }
            return .json(AuthorizationAnswer(status: 0, order_status: updated.status.rawValue, message: "authorized"))
        } catch {
            return Self.failure(error)
        }
    }

    struct AuthorizationAnswer: Encodable {
        /// `PKPaymentAuthorizationStatus` / `ApplePaySession.STATUS_*`.
        let status: Int
        let order_status: String
        let message: String
    }

    static func detail(_ fields: [String: String]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8), as: UTF8.self)
    }

    // MARK: Refunds, closing, events (secret key)

    /// The provider family of the order's last started payment (`wechat`, `alipay`, `applepay`).
    func provider(of order: StoredOrder) async throws -> String? {
        let started = try await store.events(orderID: order.id).last { $0.kind == "payment_started" }
        guard let data = started?.detail.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: String],
            let method = object["method"]
        else { return nil }
        return String(method.prefix { $0 != "." })
    }

    struct RefundBody: Decodable {
        let amount: String?
        let amount_minor: Int64?
        let reason: String?
    }

    /// `POST /v1/orders/{id}/refunds`: refunds at the provider, then records it; never more than was paid.
    func refund(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) == .secret else { return Self.unauthorized }
        guard let body = try? request.decodeJSON(RefundBody.self) else {
            return .error(
                status: 400, code: "invalid_request",
                message: #"expected {"amount":"1.00"} or {"amount_minor":100}, and an optional reason"#)
        }
        do {
            guard let order = try await store.order(id: id) else {
                return .error(status: 404, code: "not_found", message: "no order \(id)")
            }
            let amount: Money
            switch (body.amount, body.amount_minor) {
            case (let text?, nil):
                guard let parsed = try? Money(decimal: text, currency: order.total.currency) else {
                    return .error(
                        status: 400, code: "invalid_request",
                        message: "amount '\(text)' is not a decimal amount in \(order.total.currency.code)")
                }
                amount = parsed
            case (nil, let minor?): amount = Money(minorUnits: minor, currency: order.total.currency)
            case (nil, nil): amount = Money(minorUnits: order.total.minorUnits - order.refunded.minorUnits, currency: order.total.currency)
            default: return .error(status: 400, code: "invalid_request", message: "give amount or amount_minor, not both")
            }
            guard order.status.hasReceivedMoney else {
                return .error(
                    status: 409, code: "invalid_state", message: "order \(id) is \(order.status.rawValue): nothing was paid to refund")
            }
            let refunded = Money(minorUnits: order.refunded.minorUnits + amount.minorUnits, currency: order.total.currency)
            guard amount.isPositive, refunded.minorUnits <= order.total.minorUnits else {
                return .error(
                    status: 400, code: "refund_too_large",
                    message: "a refund of \(amount) would bring refunds to \(refunded), more than the \(order.total) paid")
            }
            let requestNo = "R\(order.outTradeNo.suffix(20))\(refunded.minorUnits)"
            switch try await provider(of: order) {
            case "wechat":
                _ = try await wechatClient().refund(
                    outTradeNo: order.outTradeNo, outRefundNo: requestNo, total: order.total, refund: amount, reason: body.reason,
                    notifyURL: notifyBase + "/notify/wechat/v2/refund")
            case "alipay":
                _ = try await alipayClient().refund(
                    outTradeNo: order.outTradeNo, amount: amount, outRequestNo: requestNo, reason: body.reason)
            default:
                return .error(status: 409, code: "unsupported", message: "refund Apple Pay payments through your payment processor")
            }
            let event: PaymentEvent = refunded.minorUnits == order.total.minorUnits ? .refunded : .partiallyRefunded
            let outcome = try await move(
                event, to: id, refunded: refunded,
                record: EventRecord(kind: "refund", detail: Self.detail(["amount": amount.decimalString, "request_no": requestNo])),
                now: Date())
            switch outcome {
            case .applied(let updated, _), .unchanged(let updated): return .json(OrderJSON(updated, includeSecret: true))
            }
        } catch {
            return Self.failure(error)
        }
    }

    /// `POST /v1/orders/{id}/close`: closes an unpaid order at its provider, then here.
    func close(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) == .secret else { return Self.unauthorized }
        do {
            guard let order = try await store.order(id: id) else {
                return .error(status: 404, code: "not_found", message: "no order \(id)")
            }
            guard order.status == .created || order.status == .pending || order.status == .failed else {
                return .error(status: 409, code: "invalid_state", message: "order \(id) is \(order.status.rawValue) and cannot be closed")
            }
            return .json(OrderJSON(try await closeOrder(order, kind: "close"), includeSecret: true))
        } catch {
            return Self.failure(error)
        }
    }

    /// Closes an unpaid order at its provider (so it can no longer be paid there), then here.
    /// Used by `POST …/close` and by the expiry job.
    func closeOrder(_ order: StoredOrder, kind: String) async throws -> StoredOrder {
        switch try await provider(of: order) {
        case "wechat":
            try await wechatClient().closeOrder(outTradeNo: order.outTradeNo)
        case "alipay":
            do {
                try await alipayClient().close(outTradeNo: order.outTradeNo)
            } catch let error as PaymentError where error.providerCode == "ACQ.TRADE_NOT_EXIST" {
                // An app-pay order the payer never opened does not exist at Alipay: nothing to close there.
            }
        default: break
        }
        switch try await move(.closed, to: order.id, refunded: nil, record: EventRecord(kind: kind), now: Date()) {
        case .applied(let updated, _), .unchanged(let updated): return updated
        }
    }

    /// The expiry job: closes orders past their expiry that were never paid. - Returns: how many.
    @discardableResult
    func closeExpired(now: Date = Date(), limit: Int = 50) async throws -> Int {
        var closed = 0
        for order in try await store.unpaidOrders(expiringBefore: now, limit: limit) {
            // A payment may land meanwhile: the compare-and-set then refuses the close, and that is right.
            if (try? await closeOrder(order, kind: "expired")) != nil { closed += 1 }
        }
        return closed
    }

    struct EventJSON: Encodable {
        let sequence: Int64
        let kind: String
        let from: String?
        let to: String?
        let detail: String
        let body_sha256: String?
        let created: Int64
    }

    func events(_ request: HTTPServerRequest, id: String) async -> HTTPServerResponse {
        guard caller(request) == .secret else { return Self.unauthorized }
        do {
            guard try await store.order(id: id) != nil else { return .error(status: 404, code: "not_found", message: "no order \(id)") }
            let events = try await store.events(orderID: id).map {
                EventJSON(
                    sequence: $0.sequence, kind: $0.kind, from: $0.from?.rawValue, to: $0.to?.rawValue, detail: $0.detail,
                    body_sha256: $0.bodySHA256,
                    created: Int64($0.createdAt.timeIntervalSince1970))
            }
            return .json(["data": events])
        } catch {
            return Self.failure(error)
        }
    }

    // MARK: Notifications

    enum NotificationOutcome {
        /// Recorded (a change, a duplicate or a non-payment status): tell the provider it arrived.
        case acknowledged
        /// Refused and logged (another amount, an unknown order): the provider should not count it.
        case refused
        /// Not recorded (storage failed): the provider must retry.
        case retry
    }

    /// What every provider's notification shares once its signature is verified: find the order,
    /// run the provider's checks against it, move it once (or log the duplicate), log every
    /// refusal with the body's hash — all before the provider hears back.
    func record(
        outTradeNo: String, paid: Bool, fields: [String: String], body: [UInt8], check: (StoredOrder) throws -> Void
    ) async -> NotificationOutcome {
        let bodyHash = Hex.encode(DigestAlgorithm.sha256.hash(body))
        let detail = Self.detail(fields)
        do {
            guard let order = try await store.order(outTradeNo: outTradeNo) else { return .refused }
            do {
                try check(order)
            } catch let error as PaymentError {
                try await store.append(
                    EventRecord(kind: "notification_refused", detail: Self.detail(["reason": error.message]), bodySHA256: bodyHash),
                    to: order.id, now: Date())
                return .refused
            }
            guard paid else {
                try await store.append(EventRecord(kind: "notification", detail: detail, bodySHA256: bodyHash), to: order.id, now: Date())
                return .acknowledged
            }
            let outcome = try await move(
                .paymentSucceeded, to: order.id, refunded: nil,
                record: EventRecord(kind: "notification", detail: detail, bodySHA256: bodyHash),
                now: Date())
            if case .unchanged = outcome {
                try await store.append(
                    EventRecord(kind: "notification_duplicate", detail: detail, bodySHA256: bodyHash), to: order.id, now: Date())
            }
            return .acknowledged  // only now: the change (or the duplicate) is on disk
        } catch {
            return .retry
        }
    }

    func wechatNotification(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        func reply(_ answer: WeChatPay.V2.NotificationReply) -> HTTPServerResponse {
            .text(answer.xmlString, contentType: "application/xml; charset=utf-8")
        }
        guard let wechat = configuration.wechat,
            let notification = try? WeChatPay.V2.PaymentNotification.verify(request.body, merchant: wechat.merchant)
        else {
            metrics.increment("cashier_notifications_total", ["provider": "wechat", "outcome": "unverified"])
            return reply(.failure("signature or merchant check failed"))  // nothing is touched
        }
        let fields = [
            "transaction_id": notification.transactionID, "total_fee": String(notification.amount.minorUnits),
            "currency": notification.amount.currency.code,
        ]
        let outcome = await record(
            outTradeNo: notification.outTradeNo, paid: notification.isSuccess, fields: fields, body: request.body,
            check: { try notification.check(amount: $0.total) })
        metrics.increment("cashier_notifications_total", ["provider": "wechat", "outcome": "\(outcome)"])
        switch outcome {
        case .acknowledged: return reply(.success)
        case .refused: return reply(.failure("refused: unknown order or another amount"))
        case .retry: return reply(.failure("temporarily unavailable"))
        }
    }

    /// WeChat's refund result (`req_info` decrypted with the API key): logged against the order;
    /// a refund WeChat could not complete (`CHANGE`, `REFUNDCLOSE`) is logged as such for follow-up.
    func wechatRefundNotification(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        func reply(_ answer: WeChatPay.V2.NotificationReply) -> HTTPServerResponse {
            .text(answer.xmlString, contentType: "application/xml; charset=utf-8")
        }
        guard let wechat = configuration.wechat,
            let notification = try? WeChatPay.V2.RefundNotification.verify(request.body, merchant: wechat.merchant)
        else {
            metrics.increment("cashier_notifications_total", ["provider": "wechat_refund", "outcome": "unverified"])
            return reply(.failure("req_info does not decrypt with this merchant's key"))
        }
        do {
            guard let order = try await store.order(outTradeNo: notification.outTradeNo) else {
                return reply(.failure("unknown out_trade_no"))
            }
            let kind = notification.refundStatus == "SUCCESS" ? "refund_notification" : "refund_failed"
            try await store.append(
                EventRecord(
                    kind: kind,
                    detail: Self.detail([
                        "out_refund_no": notification.outRefundNo, "refund_id": notification.refundID,
                        "refund_status": notification.refundStatus,
                        "refund_fee": notification.refundAmount.decimalString,
                    ]), bodySHA256: Hex.encode(DigestAlgorithm.sha256.hash(request.body))), to: order.id, now: Date())
            metrics.increment("cashier_notifications_total", ["provider": "wechat_refund", "outcome": "acknowledged"])
            return reply(.success)
        } catch {
            return reply(.failure("temporarily unavailable"))
        }
    }

    func alipayNotification(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        guard let alipay = configuration.alipay,
            let notification = try? Alipay.Notification.verify(
                request.body, publicKey: alipay.alipayPublicKey, appID: alipay.appID, sellerID: alipay.sellerID)
        else {
            metrics.increment("cashier_notifications_total", ["provider": "alipay", "outcome": "unverified"])
            return .text("failure")
        }
        let fields = [
            "trade_no": notification.tradeNo, "trade_status": notification.tradeStatus,
            "total_amount": notification.totalAmount.decimalString,
        ]
        let outcome = await record(
            outTradeNo: notification.outTradeNo, paid: notification.isPaid, fields: fields, body: request.body,
            check: { try notification.check(outTradeNo: $0.outTradeNo, amount: $0.total) })
        metrics.increment("cashier_notifications_total", ["provider": "alipay", "outcome": "\(outcome)"])
        return .text(outcome == .acknowledged ? Alipay.Notification.successReply : "failure")
    }
}
