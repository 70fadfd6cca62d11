import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// The merchant dashboard at `/dashboard`: sign in with the secret key; an overview of the day,
/// the week and the month (volume, refunds, success rate, a chart, methods); orders, payments and
/// refunds with filters and search; an order with its items, payments, refunds, webhook
/// deliveries and every event; refunds (of the order, or of one payment), closing, webhook
/// re-sends; CSV exports; reconciliation for a day, and a live view of notifications.
/// Server-rendered, escaped, under ``HTMLPage``'s strict policy; forms carry a CSRF token, the
/// session cookie is `HttpOnly; SameSite=Strict`, and every action is logged with the session
/// that took it (``DashboardSessions/actor(_:)``). Each page lives in its own extension file.
struct Dashboard: Sendable {
    let api: MerchantAPI
    var sessions: DashboardSessions { DashboardSessions(store: api.store) }

    var configuration: MerchantConfiguration { api.configuration }
    var store: any OrderStore { api.store }

    func register(on router: inout Router) {
        router.add("GET", "/dashboard/login") { _, _ in self.loginPage(error: nil) }
        router.add("POST", "/dashboard/login") { request, _ in await self.login(request) }
        router.add("POST", "/dashboard/logout") { request, _ in
            await self.signedIn(request, form: true) { id, _ in
                await self.sessions.end(id)
                return Self.redirect("/dashboard/login", cookie: DashboardSessions.cookie("", secure: self.secure, maxAge: 0))
            }
        }
        // Pages: (path, what renders it).
        let pages:
            [(String, @Sendable (HTTPServerRequest, RouteParameters, DashboardSessions.Session) async throws -> HTTPServerResponse)] = [
                ("/dashboard", { request, _, session in try await self.overview(request, session) }),
                ("/dashboard/orders", { request, _, session in try await self.orders(request, session) }),
                (
                    "/dashboard/orders/{id}",
                    { request, parameters, session in try await self.order(parameters["id"] ?? "", session, request: request) }
                ),
                ("/dashboard/payments", { request, _, session in try await self.payments(request, session) }),
                ("/dashboard/refunds", { request, _, session in try await self.refunds(request, session) }),
                ("/dashboard/webhooks", { request, _, session in try await self.webhooks(request, session) }),
                ("/dashboard/export", { request, _, session in try await self.exportPage(request, session) }),
                ("/dashboard/export/{file}", { request, parameters, _ in try await self.download(parameters["file"] ?? "", request) }),
                ("/dashboard/reconciliation", { request, _, session in try await self.reconciliation(request, session) }),
                ("/dashboard/live", { _, _, session in try await self.live(session) }),
            ]
        for (path, render) in pages {
            router.add("GET", path) { request, parameters in
                await self.signedIn(request) { _, session in try await render(request, parameters, session) }
            }
        }
        // Forms: (path, what they do, as whom).
        let forms: [(String, @Sendable (HTTPServerRequest, RouteParameters, String) async throws -> HTTPServerResponse)] = [
            (
                "/dashboard/orders/{id}/refund",
                { request, parameters, actor in try await self.refund(parameters["id"] ?? "", request, actor: actor) }
            ),
            ("/dashboard/orders/{id}/close", { _, parameters, actor in try await self.close(parameters["id"] ?? "", actor: actor) }),
            (
                "/dashboard/orders/{id}/capture",
                { request, parameters, actor in try await self.capture(parameters["id"] ?? "", request, actor: actor) }
            ),
            ("/dashboard/orders/{id}/void", { _, parameters, actor in try await self.void(parameters["id"] ?? "", actor: actor) }),
            (
                "/dashboard/payments/{id}/refund",
                { request, parameters, actor in
                    try await self.refundPayment(parameters["id"] ?? "", request, actor: actor)
                }
            ),
            (
                "/dashboard/webhooks/{id}/resend",
                { request, parameters, actor in
                    try await self.resend(parameters["id"] ?? "", request, actor: actor)
                }
            ),
            ("/dashboard/webhooks/resend", { request, _, actor in try await self.resendFailed(request, actor: actor) }),
        ]
        for (path, act) in forms {
            router.add("POST", path) { request, parameters in
                await self.signedIn(request, form: true) { id, _ in try await act(request, parameters, DashboardSessions.actor(id)) }
            }
        }
    }

    private var secure: Bool { configuration.publicBaseURL?.hasPrefix("https://") ?? false }

    // MARK: Sessions

    /// Runs `body` for a signed-in browser; a POST must also carry the session's CSRF token.
    private func signedIn(
        _ request: HTTPServerRequest, form: Bool = false,
        _ body: (String, DashboardSessions.Session) async throws -> HTTPServerResponse
    ) async -> HTTPServerResponse {
        guard let (id, session) = await sessions.session(cookieHeader: request.headers["Cookie"], now: api.clock.now()) else {
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
        } catch let error as StoreError where error.code == .notFound {
            // A page link or form naming a record that is not there (an edited `after`, an old bookmark).
            return Self.notice(status: 404, "Not found", error.message)
        } catch {
            return Self.notice(
                status: 500, "Something went wrong", "\(MerchantAPI.failure(error).status): the action could not be completed.")
        }
    }

    private func loginPage(error: String?, status: Int? = nil) -> HTTPServerResponse {
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
            status: status ?? (error == nil ? 200 : 401)
        ).response()
    }

    private func login(_ request: HTTPServerRequest) async -> HTTPServerResponse {
        let now = api.clock.now()
        // The browser's address, through the trusted proxies as the payer's is found.
        let source = api.configuration.trustedProxies.clientAddress(of: request) ?? "unknown"
        guard await sessions.signInAllowed(source: source, now: now) else {
            var refused = loginPage(
                error: "Too many wrong keys from your address: try again in \(Int(DashboardSessions.failureWindow / 60)) minutes.",
                status: 429)
            refused.headers.set("Retry-After", String(Int(DashboardSessions.failureWindow)))
            return refused
        }
        guard let key = request.formFields["secret_key"], await api.isPlatformSecretKey(key) else {
            await sessions.recordFailure(source: source, now: now)
            return loginPage(error: "That is not this server's secret key (a key made for one merchant does not sign in here).")
        }
        do {
            let (id, _) = try await sessions.create(now: now)
            return Self.redirect("/dashboard", cookie: DashboardSessions.cookie(id, secure: secure))
        } catch {
            return Self.notice(status: 503, "Not signed in", "The session could not be stored; try again.")
        }
    }

    // MARK: Pages

    /// Replays a dashboard form as the merchant API call it stands for (same checks, same answer).
    func asAPI(_ path: String, _ body: [String: Any]) -> HTTPServerRequest {
        api.request(path, body, key: configuration.secretKey)
    }

    func afterAction(_ id: String, _ response: HTTPServerResponse, done: String) -> HTTPServerResponse {
        afterAction(
            response, back: "/dashboard/orders/\(id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")", done: done)
    }

    /// Back to `back`, saying what happened: `done`, or the API's error message.
    func afterAction(_ response: HTTPServerResponse, back: String, done: String) -> HTTPServerResponse {
        let error =
            ((try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: [String: Any]])?["error"]?["message"] as? String
        let message = (200..<300).contains(response.status) ? done : "Not done: \(error ?? "HTTP \(response.status)")"
        return Self.redirect(back + "?message=" + (message.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
    }

    // MARK: Rendering

    func page(_ title: String, _ session: DashboardSessions.Session, _ content: String, script: String? = nil) -> HTTPServerResponse {
        HTMLPage(
            title: "\(title) — Cashier",
            body: """
                <header><strong>Cashier</strong><a href="/dashboard">Overview</a><a href="/dashboard/orders">Orders</a>\
                <a href="/dashboard/payments">Payments</a><a href="/dashboard/refunds">Refunds</a><a href="/dashboard/webhooks">Webhooks</a>\
                <a href="/dashboard/export">Export</a><a href="/dashboard/live">Live</a><a href="/dashboard/reconciliation">Reconciliation</a>\
                <form method="post" action="/dashboard/logout" class="inline">\
                <input type="hidden" name="csrf" value="\(session.csrf)"><button type="submit" class="secondary" id="sign-out">Sign out</button></form></header>\
                <main>\(content)</main>
                """,
            script: script
        ).response()
    }

    /// `yyyy-MM-dd HH:mm:ss` in the merchant's zone (a Sendable style, not a formatter per value).
    /// A time for a list row: `13:33:30` today, `11-30 13:33` earlier this year, the full day
    /// otherwise — the full time in the element's title, as `<time>` markup.
    func when(_ date: Date) -> String {
        let calendar = Calendar.gregorian(in: configuration.timeZone)
        let now = api.clock.now()
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let (hour, minute) = (parts.hour ?? 0, parts.minute ?? 0)
        let short =
            calendar.isDate(date, inSameDayAs: now)
            ? String(format: "%02d:%02d:%02d", hour, minute, parts.second ?? 0)
            : parts.year == calendar.component(.year, from: now)
                ? String(format: "%02d-%02d %02d:%02d", parts.month ?? 0, parts.day ?? 0, hour, minute)
                : String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        let full = time(date)
        return "<time datetime=\"\(date.formatted(.iso8601))\" title=\"\(full)\">\(short)</time>"
    }

    func time(_ date: Date) -> String {
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

    /// A table of `rows` under `headings` (`No <id>.` when there are none).
    static func table(_ id: String, _ headings: [String], _ rows: String) -> String {
        let body = rows.isEmpty ? "<tr><td colspan=\"\(headings.count)\" class=\"muted\">No \(id).</td></tr>" : rows
        return "<table id=\"\(id)\"><thead><tr>\(headings.map { "<th>\($0)</th>" }.joined())</tr></thead><tbody>\(body)</tbody></table>"
    }

    /// A refund's status as the merchant reads it: a success the provider has not confirmed yet says so.
    static func refundStatus(_ refund: StoredRefund) -> String {
        HTMLText.escape(refund.status.rawValue) + (refund.status == .succeeded && refund.confirmedAt == nil ? " (not yet confirmed)" : "")
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
