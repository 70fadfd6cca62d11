import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import CashierWeb
import Foundation
import WeChatPay

/// The hosted checkout page (收银台): `GET /pay/{order_id}?client_secret=…` shows the order's
/// items and total in the payer's language and the methods that work where the payer is (see
/// ``PayerDevice``), limited to what this server has configured (and `checkout.methods`).
/// Choosing one posts back here; the server starts the payment as the app would (with the
/// order's client secret) and shows the QR code, or hands the browser to the wallet, which
/// sends it back here. The page follows the order's stream (`/v1/orders/{id}/stream`): it turns
/// "paid" the moment the notification lands and goes to the order's `return_url` — only ever an
/// origin listed in `checkout.return_origins`.
///
/// Every page is server-rendered with every value escaped, under ``HTMLPage``'s policy (one
/// hashed script, `connect-src 'self'`, nothing from elsewhere); it holds no key, only the
/// client secret its URL carries.
struct CheckoutPage: Sendable {
    let ledger: Ledger
    /// Identifies payers in WeChat's browser (JSAPI), when configured.
    let officialAccount: WeChatPay.OfficialAccount?

    init(ledger: Ledger, breaker: ProviderBreaker, providerTransport: any HTTPTransport) {
        self.ledger = ledger
        officialAccount = ledger.configuration.officialAccount.map { account in
            WeChatPay.OfficialAccount(
                appID: account.appID, secret: account.secret,
                transport: BreakingTransport(provider: "official_account", breaker: breaker, base: providerTransport),
                baseURL: account.baseURL, authorizeURL: account.authorizeURL)
        }
    }

    var configuration: MerchantConfiguration { ledger.configuration }

    /// - Parameter throttle: the payer's bucket the API's payer routes use too (every request that
    ///   makes the server act or ask a provider takes one); `nil` when not limited.
    func register(_ builder: RouterBuilder, throttle: Throttle<CheckoutContext>?) {
        let routes = RouteGroup<CheckoutContext>(builder, errors: ErrorMapping<CheckoutContext>.response(for:))
        // Back from a wallet, the page asks the provider: that counts, as starting a payment does.
        let throttled = throttle.map { routes.add($0) } ?? routes
        let asking =
            throttle.map { throttle in
                routes.add(
                    Throttle<CheckoutContext>(
                        throttle: throttle.throttle, proxies: throttle.proxies, clock: throttle.clock, metrics: throttle.metrics,
                        counts: { $0.queryValue("returned") != nil }))
            } ?? routes
        asking.get("/pay/{id}", name: "checkout") { request, context in
            await page(request, id: context.parameters["id"], fields: request.queryFields)
        }
        throttled.post("/pay/{id}", name: "checkout_choose") { request, context in
            await choose(request, id: context.parameters["id"], fields: request.formFields)
        }
        routes.get("/c/{secret}", name: "checkout_link") { request, context in
            await shortLink(request, secret: context.parameters["secret"])
        }
        throttled.get("/pay/{id}/wechat", name: "checkout_wechat") { request, context in
            await wechatAuthorized(request, id: context.parameters["id"], fields: request.queryFields)
        }
        throttled.post("/pay/{id}/applepay/{step}", name: "checkout_applepay") { request, context in
            await applePay(request, id: context.parameters["id"], step: context.parameters["step"])
        }
    }

    // MARK: Who is asking

    /// The order and what the page needs to know about this visit.
    struct Visit {
        var order: StoredOrder
        let text: CheckoutText
        let device: PayerDevice
        /// Where to send the payer once paid: the order's, or one given in the link (checked).
        let returnURL: String?
        /// The link's own `return_url`, passed along (nil when the order has its own).
        let linkReturnURL: String?
        /// The payer's own request: the API requests the page makes for the payer come from it, so
        /// the API finds the payer's address as it does for an app (WeChat Pay's H5 checks it).
        let request: HTTPServerRequest
    }

    enum Refusal: Error {
        case notFound
        case badReturnURL(String)
    }

    /// The order the client secret opens, with the payer's language and device.
    func visit(_ request: HTTPServerRequest, id: String, fields: [String: String]) async throws -> Visit {
        guard let secret = fields["client_secret"], let order = try await ledger.store.order(id: id),
            ConstantTime.equals(secret, order.clientSecret)
        else { throw Refusal.notFound }
        var linkReturn: String?
        if order.returnURL == nil, let given = fields["return_url"], !given.isEmpty {
            do {
                linkReturn = try configuration.checkout.checkedReturnURL(given)
            } catch let problem as RequestProblem {
                throw Refusal.badReturnURL(problem.message)
            }
        }
        return Visit(
            order: order, text: CheckoutText(acceptLanguage: request.headers["Accept-Language"]),
            device: PayerDevice(userAgent: request.headers["User-Agent"]), returnURL: order.returnURL ?? linkReturn,
            linkReturnURL: linkReturn, request: request)
    }

    /// The page for a refused visit: the same "no such order" for a wrong id and a wrong secret.
    func refused(_ refusal: any Error, request: HTTPServerRequest) -> HTTPServerResponse {
        let text = CheckoutText(acceptLanguage: request.headers["Accept-Language"])
        switch refusal {
        case Refusal.badReturnURL(let reason): return notice(text, status: 400, text.badReturn, reason)
        case Refusal.notFound: return notice(text, status: 404, text.notFound, text.notFoundDetail)
        default: return notice(text, status: 500, text.failed, "\(ErrorMapping<CheckoutContext>.response(for: refusal).status)")
        }
    }

    func notice(_ text: CheckoutText, status: Int, _ title: String, _ detail: String) -> HTTPServerResponse {
        HTMLPage(
            title: title,
            body: """
                <main class="cashier checkout"><h1 id="notice">\(HTMLText.escape(title))</h1>\
                <p class="muted">\(HTMLText.escape(detail))</p></main>
                """, status: status, language: text.language.rawValue
        ).response()
    }

    /// This page's link again, with the return address it came with (and `extra`).
    func link(_ visit: Visit, absolute: Bool = false, _ extra: [(String, String)] = []) -> String {
        CheckoutLink.path(
            order: visit.order, extra: (visit.linkReturnURL.map { [("return_url", $0)] } ?? []) + extra,
            base: absolute ? ledger.publicBase : "")
    }

    /// `GET /c/{client_secret}`: the order's page, by its short link (a `return_url` is passed on).
    func shortLink(_ request: HTTPServerRequest, secret: String) async -> HTTPServerResponse {
        do {
            let fields = ["client_secret": secret].merging(request.queryValue("return_url").map { ["return_url": $0] } ?? [:]) { $1 }
            let visit = try await visit(request, id: CheckoutLink.orderID(inSecret: secret) ?? "", fields: fields)
            return HTTPServerResponse(
                status: 303, headers: ["Location": link(visit), "Cache-Control": "no-store", "Referrer-Policy": "no-referrer"])
        } catch {
            return refused(error, request: request)
        }
    }

    // MARK: The page

    /// The methods offered to this visit: what works on the device, is configured here, takes
    /// the order's currency and the merchant allows.
    func methods(_ visit: Visit) -> [PaymentMethod] {
        visit.device.methods.filter { method in
            if let allowed = configuration.checkout.methods, !allowed.contains(method) { return false }
            switch method {
            case .wechatJSAPI: guard configuration.officialAccount != nil else { return false }
            case .applePay: guard configuration.applePay?.webSession != nil else { return false }
            case .unionpayApplePay: guard configuration.unionpay?.checkoutPayURL != nil else { return false }
            default: break
            }
            guard let adapter = try? ledger.adapters.adapter(for: method, api: nil) else { return false }
            return adapter.currencies?.contains(visit.order.total.currency) ?? true
        }
    }

    /// `GET /pay/{id}`: the order, its state, and the choice when it can still be paid.
    func page(_ request: HTTPServerRequest, id: String, fields: [String: String]) async -> HTTPServerResponse {
        do {
            var visit = try await visit(request, id: id, fields: fields)
            var note: String?
            if fields["returned"] != nil, visit.order.status == .pending {
                // Back from a wallet: ask before offering the choice again (the notification may lag).
                visit.order = await latest(visit.order)
                if visit.order.status == .pending || visit.order.status == .failed { note = visit.text.notCompleted }
            }
            return render(visit, note: note)
        } catch {
            return refused(error, request: request)
        }
    }

    /// The order after asking the provider about its newest open attempt (best effort): one
    /// question at a time per payment, and not again within the read-query interval however often
    /// the page is loaded (``InFlightQueries``).
    func latest(_ order: StoredOrder) async -> StoredOrder {
        guard let payments = try? await ledger.store.payments(orderID: order.id),
            let newest = payments.filter({ $0.status == .pending }).max(by: { $0.createdAt < $1.createdAt })
        else { return order }
        let ledger = ledger
        if let answered = try? await ledger.queries.answer(for: newest.id, { try await ledger.payments.ask(newest) }) { return answered }
        return (try? await ledger.store.order(id: order.id)) ?? order
    }

    /// The page: items and total, the order's state, and `content` (default: the methods).
    func render(_ visit: Visit, note: String? = nil, content: String? = nil, data: [String: String] = [:], status: Int = 200)
        -> HTTPServerResponse
    {
        let order = visit.order
        let text = visit.text
        let expired = order.expiresAt.map { $0 <= ledger.clock.now() } ?? false
        let payable = isPayable(order)
        var state: (text: String, badge: String)
        switch order.status {
        case .paid, .partiallyRefunded: state = (text.paid, "paid")
        case .refunded: state = (text.refunded, "refunded")
        case .closed: state = (text.closed, "closed")
        default: state = expired ? (text.expired, "closed") : (text.waiting, "pending")
        }
        var body = ""
        if payable {
            if let note { body += "<p class=\"error\" id=\"note\">\(HTMLText.escape(note))</p>" }
            body += content ?? choice(visit)
        } else if order.status.hasReceivedMoney, let back = visit.returnURL {
            body += "<p><a id=\"return\" href=\"\(HTMLText.escape(back))\">\(HTMLText.escape(text.back))</a></p>"
        }
        var attributes = data
        attributes["status"] = order.status.rawValue
        attributes["payable"] = payable ? "yes" : "no"
        attributes["stream"] = "/v1/orders/\(order.id)/stream?client_secret=\(FormEncoding.escape(order.clientSecret))"
        attributes["secret"] = order.clientSecret
        attributes["api"] = "/pay/\(order.id)/applepay/"
        attributes["choice"] = link(visit)
        if let back = visit.returnURL { attributes["return-url"] = back }
        for (key, value) in [
            ("paid", text.paid), ("returning", text.paidReturning), ("closed", text.closed), ("confirming", text.confirming),
            ("refunded", text.refunded), ("not-completed", text.notCompleted),
        ] {
            attributes["text-" + key] = value
        }
        let dataAttributes = attributes.sorted { $0.key < $1.key }.map { " data-\($0.key)=\"\(HTMLText.escape($0.value))\"" }.joined()
        return HTMLPage(
            title: "\(text.title) · \(order.description)",
            body: """
                <main class="cashier checkout" id="checkout"\(dataAttributes)><h1>\(HTMLText.escape(text.title))</h1>\
                \(items(order))<p class="amount big" id="total"><span class="muted">\(HTMLText.escape(text.total))</span> \
                \(HTMLText.escape(Dashboard.format(order.total)))</p>\
                <p role="status" aria-live="polite"><span id="status" class="badge \(state.badge)">\(HTMLText.escape(state.text))</span></p>\
                \(body)</main>
                """,
            script: Self.script, status: status, connectsToSelf: true, language: text.language.rawValue
        ).response()
    }

    /// The order's lines: `2 × Latte   ¥25.50`.
    func items(_ order: StoredOrder) -> String {
        let lines = order.lineItems
        guard !lines.isEmpty else { return "<p id=\"description\">\(HTMLText.escape(order.description))</p>" }
        let rows = lines.map { line in
            let label = line.quantity > 1 ? "\(line.quantity) × \(line.label)" : line.label
            return "<tr><td>\(HTMLText.escape(label))</td><td class=\"amount\">\(HTMLText.escape(Dashboard.format(line.amount)))</td></tr>"
        }
        return "<table id=\"items\"><tbody>\(rows.joined())</tbody></table>"
    }

    /// One button per method that works here (Apple Pay's stays hidden until the script finds
    /// `ApplePaySession.canMakePayments()`).
    func choice(_ visit: Visit) -> String {
        let offered = methods(visit)
        guard !offered.isEmpty else { return "<p id=\"no-methods\" class=\"muted\">\(HTMLText.escape(visit.text.noMethods))</p>" }
        let buttons = offered.map { method -> String in
            let name = HTMLText.escape(visit.text.name(method))
            if method == .applePay {
                return "<button type=\"button\" id=\"pay-applepay\" class=\"applepay\" hidden>\(name)</button>"
            }
            return """
                <form method="post" action="/pay/\(HTMLText.escape(visit.order.id))">\
                <input type="hidden" name="client_secret" value="\(HTMLText.escape(visit.order.clientSecret))">\
                \(visit.linkReturnURL.map { "<input type=\"hidden\" name=\"return_url\" value=\"\(HTMLText.escape($0))\">" } ?? "")\
                <input type="hidden" name="method" value="\(method.rawValue)">\
                <button type="submit" id="pay-\(method.rawValue)" class="method \(method.wallet.rawValue)">\(name)</button></form>
                """
        }
        return "<div id=\"methods\"><h2>\(HTMLText.escape(visit.text.choose))</h2>\(buttons.joined())</div>"
    }
}
