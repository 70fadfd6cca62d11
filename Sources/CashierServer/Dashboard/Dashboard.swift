import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import CashierWeb
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
    let ledger: Ledger
    let keys: KeyRing
    let clock: any WallClock
    var sessions: DashboardSessions {
        DashboardSessions(store: ledger.store, configuredKey: DashboardSessions.configuredKeyMark(ledger.configuration.secretKey))
    }

    var configuration: MerchantConfiguration { ledger.configuration }
    var store: any OrderStore { ledger.store }

    func register(_ builder: RouterBuilder) {
        let routes = RouteGroup<DashboardContext>(builder) { _ in
            Self.notice(status: 500, "Something went wrong", "The page could not be shown.")
        }
        routes.get("/dashboard/login", name: "dashboard_login_page") { _, _ in loginPage(error: nil) }
        routes.post("/dashboard/login", name: "dashboard_login") { request, _ in await login(request) }
        let pages = routes.add(DashboardSession(sessions: sessions, clock: clock))
        pages.get("/dashboard", name: "dashboard") { request, context in try await overview(request, context.signedIn.record) }
        pages.get("/dashboard/orders", name: "dashboard_orders") { request, context in try await orders(request, context.signedIn.record) }
        pages.get("/dashboard/orders/{id}", name: "dashboard_order") { request, context in
            try await order(context.parameters["id"], context.signedIn.record, request: request)
        }
        pages.get("/dashboard/payments", name: "dashboard_payments") { request, context in
            try await payments(request, context.signedIn.record)
        }
        pages.get("/dashboard/refunds", name: "dashboard_refunds") { request, context in try await refunds(request, context.signedIn.record)
        }
        pages.get("/dashboard/webhooks", name: "dashboard_webhooks") { request, context in
            try await webhooks(request, context.signedIn.record)
        }
        pages.get("/dashboard/export", name: "dashboard_export") { request, context in
            try await exportPage(request, context.signedIn.record)
        }
        pages.get("/dashboard/export/{file}", name: "dashboard_download") { request, context in
            try await download(context.parameters["file"], request)
        }
        pages.get("/dashboard/reconciliation", name: "dashboard_reconciliation") { request, context in
            try await reconciliation(request, context.signedIn.record)
        }
        pages.get("/dashboard/live", name: "dashboard_live") { _, context in try await live(context.signedIn.record) }
        pages.get("/dashboard/transfers", name: "dashboard_transfers") { request, context in
            try await transfers(request, context.signedIn.record)
        }
        pages.get("/dashboard/splits", name: "dashboard_splits") { request, context in
            try await splits(request, context.signedIn.record)
        }
        pages.get("/dashboard/complaints", name: "dashboard_complaints") { request, context in
            try await complaints(request, context.signedIn.record)
        }
        pages.get("/dashboard/complaints/{id}", name: "dashboard_complaint") { request, context in
            try await complaint(context.parameters["id"], context.signedIn.record, request: request)
        }
        pages.get("/dashboard/complaints/{id}/images/{index}", name: "dashboard_complaint_image") { _, context in
            await complaintImage(context.parameters["id"], context.parameters["index"])
        }
        pages.get("/dashboard/agreements", name: "dashboard_agreements") { request, context in
            try await agreements(request, context.signedIn.record)
        }
        pages.get("/dashboard/agreements/{id}", name: "dashboard_agreement") { _, context in
            try await agreement(context.parameters["id"], context.signedIn.record)
        }
        pages.get("/dashboard/subscriptions", name: "dashboard_subscriptions") { request, context in
            try await subscriptions(request, context.signedIn.record)
        }
        pages.get("/dashboard/subscriptions/{id}", name: "dashboard_subscription") { request, context in
            try await subscription(context.parameters["id"], context.signedIn.record, request: request)
        }
        let forms = routes.add(DashboardSession(sessions: sessions, clock: clock, form: true))
        forms.post("/dashboard/logout", name: "dashboard_logout") { _, context in
            await sessions.end(context.signedIn.id)
            return Self.redirect("/dashboard/login", cookie: DashboardSessions.cookie("", secure: secure, maxAge: 0))
        }
        forms.post("/dashboard/orders/{id}/refund", name: "dashboard_refund") { request, context in
            await refund(context.parameters["id"], request, actor: context.actor)
        }
        forms.post("/dashboard/orders/{id}/close", name: "dashboard_close") { _, context in
            await close(context.parameters["id"], actor: context.actor)
        }
        forms.post("/dashboard/orders/{id}/capture", name: "dashboard_capture") { request, context in
            await capture(context.parameters["id"], request, actor: context.actor)
        }
        forms.post("/dashboard/orders/{id}/void", name: "dashboard_void") { _, context in
            await void(context.parameters["id"], actor: context.actor)
        }
        forms.post("/dashboard/payments/{id}/refund", name: "dashboard_refund_payment") { request, context in
            try await refundPayment(context.parameters["id"], request, actor: context.actor)
        }
        forms.post("/dashboard/webhooks/{id}/resend", name: "dashboard_resend") { request, context in
            await resend(context.parameters["id"], request, actor: context.actor)
        }
        forms.post("/dashboard/webhooks/resend", name: "dashboard_resend_failed") { request, context in
            await resendFailed(request, actor: context.actor)
        }
        forms.post("/dashboard/complaints/{id}/reply", name: "dashboard_complaint_reply") { request, context in
            await replyToComplaint(context.parameters["id"], request)
        }
        forms.post("/dashboard/complaints/{id}/complete", name: "dashboard_complaint_complete") { _, context in
            await completeComplaint(context.parameters["id"])
        }
        forms.post("/dashboard/complaints/{id}/refund", name: "dashboard_complaint_refund") { request, context in
            await decideComplaintRefund(context.parameters["id"], request, actor: context.actor)
        }
        for action in SubscriptionAction.allCases {
            forms.post("/dashboard/subscriptions/{id}/\(action.rawValue)", name: "dashboard_subscription_\(action.rawValue)") {
                request, context in
                await changeSubscription(context.parameters["id"], action, request: request)
            }
        }
    }

    private var secure: Bool { configuration.publicBaseURL?.hasPrefix("https://") ?? false }

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
        let now = clock.now()
        // The browser's address, through the trusted proxies as the payer's is found.
        let source = configuration.trustedProxies.clientAddress(of: request) ?? "unknown"
        // Counted before the key is read: attempts at once are counted one by one (across
        // instances), and one past the limit is refused without its key being checked, so no
        // answer says whether a guess was right. The right key forgets the address's count.
        let admitted: Bool
        do {
            admitted = try await sessions.takeAttempt(source: source, now: now)
        } catch {
            return Self.notice(status: 503, "Not signed in", "The sign-in could not be counted; try again.")
        }
        guard admitted else {
            var refused = loginPage(
                error: "Too many wrong keys from your address: try again in \(Int(DashboardSessions.failureWindow / 60)) minutes.",
                status: 429)
            refused.headers.set("Retry-After", String(Int(DashboardSessions.failureWindow)))
            return refused
        }
        guard let key = request.formFields["secret_key"], let identity = await keys.identify(key: key), identity.caller == .secret,
            identity.merchant == nil
        else {
            return loginPage(error: "That is not this server's secret key (a key made for one merchant does not sign in here).")
        }
        do {
            await sessions.forgetAttempts(source: source)
            // A session lasts only while the key it signed in with does (a revoked key ends it).
            let (id, _) = try await sessions.create(now: now, keyID: identity.keyID)
            return Self.redirect("/dashboard", cookie: DashboardSessions.cookie(id, secure: secure))
        } catch {
            return Self.notice(status: 503, "Not signed in", "The session could not be stored; try again.")
        }
    }

    // MARK: Pages

    /// Does what a form asks, through the same service the API calls (same checks), then goes back
    /// to the order's page saying what happened: `done`, or what refused it.
    func afterAction(_ id: String, done: String, _ action: () async throws -> Void) async -> HTTPServerResponse {
        await afterAction(back: "/dashboard/orders/\(id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")") {
            try await action()
            return done
        }
    }

    /// Back to `back`, saying what happened: what `action` says it did, or the API's error message.
    func afterAction(back: String, _ action: () async throws -> String) async -> HTTPServerResponse {
        let message: String
        do {
            message = try await action()
        } catch {
            message = "Not done: \(ErrorMapping<DashboardContext>.refusal(for: error).message)"
        }
        return Self.redirect(back + "?message=" + (message.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
    }

    // MARK: Rendering

    func page(_ title: String, _ session: DashboardSessions.Session, _ content: String, script: String? = nil) -> HTTPServerResponse {
        HTMLPage(
            title: "\(title) — Cashier",
            body: """
                <header><strong>Cashier</strong><a href="/dashboard">Overview</a><a href="/dashboard/orders">Orders</a>\
                <a href="/dashboard/payments">Payments</a><a href="/dashboard/refunds">Refunds</a><a href="/dashboard/complaints">Complaints</a>\
                <a href="/dashboard/transfers">Transfers</a><a href="/dashboard/splits">Splits</a>\
                <a href="/dashboard/agreements">Agreements</a><a href="/dashboard/subscriptions">Subscriptions</a>\
                <a href="/dashboard/webhooks">Webhooks</a>\
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
        let now = clock.now()
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
