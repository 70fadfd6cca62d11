import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// The merchant dashboard at `/dashboard`: sign in with the secret key, orders (status filters,
/// search by out_trade_no, cursor pages), an order with its items, payments, refunds, webhook
/// deliveries and every event, refund and close forms, reconciliation for a day, and a live view
/// of notifications. Server-rendered, escaped, under ``HTMLPage``'s strict policy; forms carry a
/// CSRF token and the session cookie is `HttpOnly; SameSite=Strict`.
struct Dashboard: Sendable {
    let api: MerchantAPI
    let sessions = DashboardSessions()

    var configuration: MerchantConfiguration { api.configuration }
    var store: any OrderStore { api.store }

    func register(on router: inout Router) {
        router.add("GET", "/dashboard/login") { _, _ in self.loginPage(error: nil) }
        router.add("POST", "/dashboard/login") { request, _ in self.login(request) }
        router.add("POST", "/dashboard/logout") { request, _ in
            await self.signedIn(request, form: true) { id, _ in
                self.sessions.end(id)
                return Self.redirect("/dashboard/login", cookie: DashboardSessions.cookie("", secure: self.secure, maxAge: 0))
            }
        }
        router.add("GET", "/dashboard") { request, _ in
            await self.signedIn(request) { _, session in try await self.orders(request, session) }
        }
        router.add("GET", "/dashboard/orders/{id}") { request, parameters in
            await self.signedIn(request) { _, session in try await self.order(parameters["id"] ?? "", session, request: request) }
        }
        router.add("POST", "/dashboard/orders/{id}/refund") { request, parameters in
            await self.signedIn(request, form: true) { _, _ in try await self.refund(parameters["id"] ?? "", request) }
        }
        router.add("POST", "/dashboard/orders/{id}/close") { request, parameters in
            await self.signedIn(request, form: true) { _, _ in try await self.close(parameters["id"] ?? "") }
        }
        router.add("GET", "/dashboard/reconciliation") { request, _ in
            await self.signedIn(request) { _, session in try await self.reconciliation(request, session) }
        }
        router.add("GET", "/dashboard/live") { request, _ in await self.signedIn(request) { _, session in try await self.live(session) } }
    }

    private var secure: Bool { configuration.publicBaseURL?.hasPrefix("https://") ?? false }

    // MARK: Sessions

    /// Runs `body` for a signed-in browser; a POST must also carry the session's CSRF token.
    private func signedIn(
        _ request: HTTPServerRequest, form: Bool = false,
        _ body: (String, DashboardSessions.Session) async throws -> HTTPServerResponse
    ) async -> HTTPServerResponse {
        guard let (id, session) = sessions.session(cookieHeader: request.headers["Cookie"], now: api.clock.now()) else {
            return form
                ? Self.notice(status: 403, "Signed out", "Your session ended. Sign in again.")
                : Self.redirect("/dashboard/login")
        }
        if form {
            guard let token = request.formFields["csrf"], ConstantTime.equals(token, session.csrf) else {
                return Self.notice(
                    status: 403, "Refused", "This form is stale or did not come from the dashboard (CSRF token missing or wrong).")
            }
        }
        do {
            return try await body(id, session)
        } catch {
            return Self.notice(
                status: 500, "Something went wrong", "\(MerchantAPI.failure(error).status): the action could not be completed.")
        }
    }

    private func loginPage(error: String?) -> HTTPServerResponse {
        HTMLPage(
            title: "Sign in — Cashier",
            body: """
                <main class="cashier"><h1>Cashier dashboard</h1>\
                \(error.map { "<p class=\"error\" id=\"error\">\(HTMLText.escape($0))</p>" } ?? "")\
                <form method="post" action="/dashboard/login"><p><label>Secret key<br>\
                <input type="password" name="secret_key" id="secret_key" autocomplete="off" required size="36"></label></p>\
                <button type="submit" id="sign-in">Sign in</button></form>\
                <p class="muted">The server's sk_… key. It never leaves this server; the browser keeps only a session cookie.</p></main>
                """,
            status: error == nil ? 200 : 401
        ).response()
    }

    private func login(_ request: HTTPServerRequest) -> HTTPServerResponse {
        guard let key = request.formFields["secret_key"], ConstantTime.equals(key, configuration.secretKey) else {
            return loginPage(error: "That is not this server's secret key.")
        }
        let (id, _) = sessions.create(now: api.clock.now())
        return Self.redirect("/dashboard", cookie: DashboardSessions.cookie(id, secure: secure))
    }

    // MARK: Pages

    private func orders(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let status = request.queryValue("status").flatMap(PaymentStatus.init(rawValue:))
        let search = request.queryValue("q")?.trimmingCharacters(in: .whitespaces) ?? ""
        let orders: [StoredOrder]
        var hasMore = false
        if !search.isEmpty {
            let byNumber = try await store.order(outTradeNo: search)
            let found = byNumber == nil ? try await store.order(id: search) : byNumber
            orders = found.map { [$0] } ?? []
        } else {
            let page = try await store.orders(status: status, before: request.queryValue("after"), limit: 26)
            hasMore = page.count > 25
            orders = Array(page.prefix(25))
        }
        let filters = ([("all", nil)] + PaymentStatus.allCases.map { ($0.rawValue, $0) }).map { name, value in
            let current = value == status && search.isEmpty
            return
                "<a href=\"/dashboard\(value.map { "?status=\($0.rawValue)" } ?? "")\"\(current ? " aria-current=\"page\"" : "")>\(name)</a>"
        }.joined()
        let rows = orders.map { order in
            """
            <tr class="\(order.refundRequired ? "flagged" : "")" data-id="\(HTMLText.escape(order.id))"><td>\(time(order.createdAt))</td>\
            <td><a href="/dashboard/orders/\(HTMLText.escape(order.id))"><code>\(HTMLText.escape(order.outTradeNo))</code></a></td>\
            <td>\(HTMLText.escape(order.description))</td><td class="amount">\(Self.format(order.total))</td>\
            <td>\(Self.badge(order.status))\(order.refundRequired ? " <span class=\"badge failed\">refund required</span>" : "")</td></tr>
            """
        }.joined()
        let next =
            hasMore
            ? "<p><a id=\"next\" href=\"/dashboard?\(status.map { "status=\($0.rawValue)&" } ?? "")after=\(HTMLText.escape(orders.last?.id ?? ""))\">Older orders →</a></p>"
            : ""
        return page(
            "Orders", session,
            """
            <h1>Orders</h1><form method="get" action="/dashboard" class="card"><input name="q" id="search" placeholder="out_trade_no or order id" \
            value="\(HTMLText.escape(search))" size="34"> <button type="submit">Find</button></form>\
            <p class="filters">\(filters)</p>\
            <table id="orders"><thead><tr><th>Created (\(HTMLText.escape(configuration.timeZone.identifier)))</th><th>out_trade_no</th>\
            <th>Description</th><th>Amount</th><th>Status</th></tr></thead><tbody>\(rows.isEmpty ? "<tr><td colspan=\"5\" class=\"muted\">No orders.</td></tr>" : rows)</tbody></table>\(next)
            """)
    }

    private func order(_ id: String, _ session: DashboardSessions.Session, request: HTTPServerRequest) async throws -> HTTPServerResponse {
        guard let order = try await store.order(id: id) else {
            return Self.notice(status: 404, "No such order", "There is no order \(id).")
        }
        let events = try await store.events(orderID: id)
        let outbox = try await store.outbox(orderID: id)
        let items = (try? JSONDecoder().decode([LineItem].self, from: Data(order.itemsJSON.utf8))) ?? []
        let itemRows = items.map {
            "<tr><td>\(HTMLText.escape($0.label))</td><td>\($0.quantity)</td><td class=\"amount\">\(Self.format($0.unitAmount))</td><td class=\"amount\">\(Self.format($0.amount))</td></tr>"
        }.joined()
        func detail(_ event: OrderEvent) -> String {
            let fields = (try? JSONSerialization.jsonObject(with: Data(event.detail.utf8))) as? [String: Any] ?? [:]
            return fields.keys.sorted().map { "\(HTMLText.escape($0))=\(HTMLText.escape("\(fields[$0] ?? "")"))" }.joined(separator: " ")
        }
        let payments = try await store.payments(orderID: id)
        let refunds = try await store.refunds(orderID: id)
        let paymentRows = payments.map { payment in
            """
            <tr class="payment \(payment.refundRequired ? "flagged" : "")" data-id="\(HTMLText.escape(payment.id))"><td>\(time(payment.createdAt))</td>\
            <td>\(HTMLText.escape(payment.method.rawValue))</td><td>\(HTMLText.escape(payment.provider.rawValue))</td>\
            <td><code>\(HTMLText.escape(payment.outTradeNo))</code></td><td class="amount">\(Self.format(payment.amount))</td>\
            <td>\(HTMLText.escape(payment.status.rawValue))\(payment.id == order.settledPaymentID ? " (paid the order)" : "")\
            \(payment.refundRequired ? " <span class=\"badge failed\">refund required</span>" : "")</td>\
            <td class="amount">\(Self.format(payment.refunded))</td></tr>
            """
        }.joined()
        let refundRows = refunds.map { refund in
            """
            <tr class="refund \(refund.status == .failed ? "flagged" : "")"><td>\(time(refund.createdAt))</td><td><code>\(HTMLText.escape(refund.outRefundNo))</code></td>\
            <td><code>\(HTMLText.escape(refund.paymentID))</code></td><td class="amount">\(Self.format(refund.amount))</td>\
            <td>\(HTMLText.escape(refund.status.rawValue))</td><td>\(HTMLText.escape(refund.reason ?? ""))\
            \(refund.failureReason.map { " — " + HTMLText.escape($0) } ?? "")</td></tr>
            """
        }.joined()
        func table(_ id: String, _ headings: [String], _ rows: String) -> String {
            rows.isEmpty
                ? "<p class=\"muted\" id=\"\(id)\">None.</p>"
                : "<table id=\"\(id)\"><thead><tr>\(headings.map { "<th>\($0)</th>" }.joined())</tr></thead><tbody>\(rows)</tbody></table>"
        }
        let flagged = payments.filter(\.refundRequired)
        let timeline = events.map { event in
            """
            <tr class="event \(HTMLText.escape(event.kind.rawValue))"><td>\(time(event.createdAt))</td><td>\(HTMLText.escape(event.kind.rawValue))</td>\
            <td>\(event.from.map { Self.badge($0) } ?? "")\(event.to.map { " → " + Self.badge($0) } ?? "")</td><td><code>\(detail(event))</code>\
            \(event.bodySHA256.map { " <span class=\"muted\">body sha256 \(HTMLText.escape(String($0.prefix(12))))…</span>" } ?? "")</td></tr>
            """
        }.joined()
        let webhooks = outbox.map { message in
            """
            <tr><td>\(HTMLText.escape(message.type))</td><td><code>\(HTMLText.escape(message.id))</code></td><td>\(message.attempts)</td>\
            <td>\(message.deliveredAt.map { "delivered " + time($0) } ?? "next attempt " + time(message.nextAttemptAt))</td></tr>
            """
        }.joined()
        let csrf = "<input type=\"hidden\" name=\"csrf\" value=\"\(session.csrf)\">"
        let refundable = payments.first { $0.id == order.settledPaymentID }?.refundable.minorUnits ?? 0
        var actions = ""
        if order.status.hasReceivedMoney, refundable > 0 {
            actions += """
                <form method="post" action="/dashboard/orders/\(HTMLText.escape(id))/refund" class="card" id="refund-form">\(csrf)\
                <strong>Refund</strong> <input name="amount" id="refund-amount" size="8" placeholder="\(Money(minorUnits: refundable, currency: order.total.currency).decimalString)" required> \
                \(order.total.currency.code) <input name="reason" id="refund-reason" placeholder="reason" size="20"> <button type="submit" id="refund">Refund</button></form>
                """
        }
        if [.created, .pending, .failed].contains(order.status) {
            actions += """
                <form method="post" action="/dashboard/orders/\(HTMLText.escape(id))/close" class="card">\(csrf)\
                <button type="submit" class="secondary" id="close">Close this unpaid order</button></form>
                """
        }
        let message = request.queryValue("message").map { "<p class=\"card\" id=\"message\">\(HTMLText.escape($0))</p>" } ?? ""
        return page(
            "Order \(order.outTradeNo)", session,
            """
            <h1>Order <code>\(HTMLText.escape(order.outTradeNo))</code> \(Self.badge(order.status))</h1>\(message)\
            \(flagged.isEmpty ? "" : "<p class=\"card flagged\" id=\"refund-required\"><strong>Refund required:</strong> " + flagged.map { "\(Self.format($0.amount)) by \(HTMLText.escape($0.method.rawValue)) (<code>\(HTMLText.escape($0.id))</code>) " + ($0.id == order.settledPaymentID ? "arrived after the order was closed" : "paid the order a second time") }.joined(separator: "; ") + ". Refund the payer (POST /v1/orders/{id}/refunds with its payment id).</p>")\
            <div class="card"><p id="description">\(HTMLText.escape(order.description))</p><p>Total <span class="amount" id="total">\(Self.format(order.total))</span>, \
            refunded <span class="amount" id="refunded">\(Self.format(order.refunded))</span> · id <code>\(HTMLText.escape(order.id))</code> · created \(time(order.createdAt))</p></div>\
            \(actions)<h2>Items</h2><table><thead><tr><th>Item</th><th>Qty</th><th>Unit</th><th>Amount</th></tr></thead><tbody>\(itemRows)</tbody></table>\
            <h2>Payments</h2>\(table("payments", ["Started", "Method", "Provider", "out_trade_no", "Amount", "Status", "Refunded"], paymentRows))\
            <h2>Refunds</h2>\(table("refunds", ["Requested", "out_refund_no", "Payment", "Amount", "Status", "Reason"], refundRows))\
            <h2>Webhooks</h2><table><thead><tr><th>Event</th><th>Id</th><th>Attempts</th><th>State</th></tr></thead><tbody>\(webhooks)</tbody></table>\
            <h2>Timeline</h2><table id="timeline"><thead><tr><th>Time</th><th>Event</th><th>Status</th><th>Detail</th></tr></thead><tbody>\(timeline)</tbody></table>
            """)
    }

    /// Replays a dashboard form as the merchant API call it stands for (same checks, same answer).
    private func asAPI(_ path: String, _ body: [String: Any]) -> HTTPServerRequest {
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer \(configuration.secretKey)")
        headers.add("Content-Type", "application/json")
        let data = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
        return HTTPServerRequest(method: "POST", path: path, headers: headers, body: Array(data))
    }

    private func afterAction(_ id: String, _ response: HTTPServerResponse, done: String) -> HTTPServerResponse {
        let error =
            ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: [String: Any]])?["error"]?["message"] as? String
        let message = (200..<300).contains(response.status) ? done : "Not done: \(error ?? "HTTP \(response.status)")"
        let query = message.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return Self.redirect("/dashboard/orders/\(id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")?message=\(query)")
    }

    private func refund(_ id: String, _ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let form = request.formFields
        var body: [String: Any] = ["amount": form["amount"] ?? ""]
        if let reason = form["reason"], !reason.isEmpty { body["reason"] = reason }
        let response = await api.refund(asAPI("/v1/orders/\(id)/refunds", body), id: id)
        return afterAction(id, response, done: "Refunded \(form["amount"] ?? "").")
    }

    private func close(_ id: String) async throws -> HTTPServerResponse {
        afterAction(id, await api.close(asAPI("/v1/orders/\(id)/close", [:]), id: id), done: "Closed.")
    }

    private func reconciliation(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let day = BeijingTime.formatter("yyyy-MM-dd")
        let date = request.queryValue("date") ?? day.string(from: api.clock.now())
        var result = ""
        if request.queryValue("date") != nil {
            do {
                let report = try await Reconciler(api: api).run(date: date, progress: { _ in })
                let rows = report.discrepancies.map {
                    """
                    <tr class="flagged"><td>\(HTMLText.escape($0.kind))</td><td>\(HTMLText.escape($0.provider))</td><td><code>\(HTMLText.escape($0.out_trade_no))</code></td>\
                    <td>\(HTMLText.escape($0.provider_says))</td><td>\(HTMLText.escape($0.here))</td></tr>
                    """
                }.joined()
                let owed = report.refund_required.map {
                    """
                    <tr class="flagged"><td>refund required</td><td>\(HTMLText.escape($0.provider))</td><td><code>\(HTMLText.escape($0.out_trade_no))</code></td>\
                    <td>paid \(HTMLText.escape($0.amount))</td><td>refunded \(HTMLText.escape($0.refunded))</td></tr>
                    """
                }.joined()
                let bills = report.bill_rows.sorted { $0.key < $1.key }.map { "\(HTMLText.escape($0.key)) \($0.value) rows" }.joined(
                    separator: ", ")
                result = """
                    <div class="card" id="summary"><strong>\(report.matched) matched, \(report.discrepancies.count) discrepancies</strong> · bills: \(bills.isEmpty ? "none" : bills)</div>\
                    <table><thead><tr><th>Kind</th><th>Provider</th><th>out_trade_no</th><th>Provider says</th><th>Here</th></tr></thead><tbody>\(rows)\(owed)</tbody></table>
                    """
            } catch let error as PaymentError {
                result = "<p class=\"error\">Could not reconcile: \(HTMLText.escape(error.message))</p>"
            }
        }
        return page(
            "Reconciliation", session,
            """
            <h1>Reconciliation</h1><form method="get" action="/dashboard/reconciliation" class="card">Bill day (Beijing time) \
            <input type="date" name="date" value="\(HTMLText.escape(date))"> <button type="submit" id="reconcile">Reconcile</button></form>\(result)
            """)
    }

    static let liveKinds: Set<EventKind> = [
        .notification, .notificationDuplicate, .notificationRefused, .refundNotification, .refundFailed, .applePayAuthorized,
        .applePayRefused, .applePayDeclined, .query, .duplicatePayment,
    ]

    private func live(_ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let events = try await store.recentEvents(kinds: Self.liveKinds, limit: 50)
        let rows = events.map { event in
            """
            <tr class="\([.notificationRefused, .duplicatePayment].contains(event.kind) ? "flagged" : "")"><td>\(time(event.createdAt))</td><td>\(HTMLText.escape(event.kind.rawValue))</td>\
            <td><a href="/dashboard/orders/\(HTMLText.escape(event.orderID))"><code>\(HTMLText.escape(event.orderID))</code></a></td>\
            <td>\(event.to.map { Self.badge($0) } ?? "")</td></tr>
            """
        }.joined()
        return page(
            "Live", session,
            """
            <h1>Notifications as they arrive</h1><p class="muted">Refreshes every two seconds.</p>\
            <table id="live"><thead><tr><th>Time</th><th>What</th><th>Order</th><th>Moved to</th></tr></thead><tbody>\(rows)</tbody></table>
            """, script: "setTimeout(function(){location.reload()},2000);")
    }

    // MARK: Rendering

    private func page(_ title: String, _ session: DashboardSessions.Session, _ content: String, script: String? = nil) -> HTTPServerResponse
    {
        HTMLPage(
            title: "\(title) — Cashier",
            body: """
                <header><strong>Cashier</strong><a href="/dashboard">Orders</a><a href="/dashboard/live">Live</a>\
                <a href="/dashboard/reconciliation">Reconciliation</a><form method="post" action="/dashboard/logout" class="inline">\
                <input type="hidden" name="csrf" value="\(session.csrf)"><button type="submit" class="secondary" id="sign-out">Sign out</button></form></header>\
                <main>\(content)</main>
                """,
            script: script
        ).response()
    }

    /// `yyyy-MM-dd HH:mm:ss` in the merchant's zone (a Sendable style, not a formatter per value).
    private func time(_ date: Date) -> String {
        date.formatted(
            Date.ISO8601FormatStyle(
                dateSeparator: .dash, dateTimeSeparator: .space, timeSeparator: .colon, timeZone: configuration.timeZone
            )
            .year().month().day().time(includingFractionalSeconds: false))
    }

    /// An amount as the merchant reads it: `¥12.75`, `$3.00`, `€1.50`, else `12.75 XXX`.
    static func format(_ money: Money) -> String {
        let symbols = ["CNY": "¥", "JPY": "¥", "USD": "$", "EUR": "€", "GBP": "£", "HKD": "HK$"]
        guard let symbol = symbols[money.currency.code] else { return "\(money.decimalString) \(money.currency.code)" }
        return money.isNegative ? "-\(symbol)\(money.decimalString.dropFirst())" : "\(symbol)\(money.decimalString)"
    }

    static func badge(_ status: PaymentStatus) -> String {
        "<span class=\"badge \(status.rawValue)\">\(status.rawValue.replacingOccurrences(of: "_", with: " "))</span>"
    }

    static func redirect(_ location: String, cookie: String? = nil) -> HTTPServerResponse {
        var headers: HTTPHeaders = ["Location": location, "Cache-Control": "no-store"]
        if let cookie { headers.add("Set-Cookie", cookie) }
        return HTTPServerResponse(status: 303, headers: headers, body: [])
    }

    static func notice(status: Int, _ title: String, _ message: String) -> HTTPServerResponse {
        HTMLPage(
            title: "\(title) — Cashier",
            body:
                "<main class=\"cashier\"><h1>\(HTMLText.escape(title))</h1><p>\(HTMLText.escape(message))</p><p><a href=\"/dashboard\">Dashboard</a></p></main>",
            status: status
        ).response()
    }
}
