import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// Webhook deliveries: what was sent to the merchant's endpoint, how often, and why it failed;
/// re-send one, or every failed one of some days, once the endpoint is back.
extension Dashboard {
    func webhooks(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let state = request.queryValue("state").flatMap(WebhookQuery.State.init(rawValue:))
        var query = WebhookQuery(state: state, after: request.queryValue("after"), limit: 51)
        let today = Date.ISO8601FormatStyle(timeZone: configuration.timeZone).year().month().day().format(api.clock.now())
        let from = request.queryValue("from") ?? ""
        let to = request.queryValue("to") ?? ""
        var problem: String?
        if !from.isEmpty || !to.isEmpty {
            do {
                let range = try ReportRange(from: from.isEmpty ? to : from, to: to.isEmpty ? from : to, timeZone: configuration.timeZone)
                (query.from, query.until) = (range.start, range.end)
            } catch let error as RequestProblem {
                problem = error.message
            }
        }
        let found = problem == nil ? try await store.webhooks(matching: query) : []
        let shown = found.prefix(50)
        let csrf = "<input type=\"hidden\" name=\"csrf\" value=\"\(session.csrf)\">"
        let rows = shown.map { message in
            let json = MerchantAPI.WebhookJSON(message)
            return """
                <tr class="webhook \(json.state == "failed" ? "flagged" : "")" data-id="\(HTMLText.escape(message.id))">\
                <td class="when">\(message.createdAt.map(when) ?? "")</td><td>\(HTMLText.escape(message.type))<br><code class="muted">\(HTMLText.escape(message.id))</code></td>\
                <td><a href="/dashboard/orders/\(HTMLText.escape(message.orderID))"><code>\(HTMLText.escape(message.orderID))</code></a></td>\
                <td>\(message.attempts)</td><td class="state">\(json.state)</td><td>\(message.lastError.map { message.deliveredAt == nil ? HTMLText.escape($0) : "<span class=\"muted\">earlier: \(HTMLText.escape($0))</span>" } ?? "")</td>\
                <td class="when">\(message.deliveredAt.map { "delivered " + when($0) } ?? "next " + when(message.nextAttemptAt))</td>\
                <td><form method="post" action="/dashboard/webhooks/\(HTMLText.escape(message.id))/resend" class="inline">\(csrf)\
                <button type="submit" class="secondary resend">Re-send</button></form></td></tr>
                """
        }.joined()
        let states = ([("all", nil)] + WebhookQuery.State.allCases.map { ($0.rawValue, $0) }).map { name, value in
            "<a href=\"/dashboard/webhooks\(value.map { "?state=\($0.rawValue)" } ?? "")\"\(value == state ? " aria-current=\"page\"" : "")>\(name)</a>"
        }.joined()
        let endpoint =
            configuration.webhook.map { "to <code>\(HTMLText.escape($0.url.absoluteString))</code>" } ?? "(no webhook URL is configured)"
        return page(
            "Webhooks", session,
            """
            <h1>Webhook deliveries</h1>\(message(request))<p class="muted">Events sent \(endpoint), each signed when it is sent.</p>\
            <p class="filters">\(states)</p>\
            <form method="post" action="/dashboard/webhooks/resend" class="card" id="resend-failed">\(csrf)\
            <strong>Re-send every failed delivery</strong> queued from <input type="date" name="from" id="resend-from" value="\(HTMLText.escape(from.isEmpty ? today : from))"> \
            to <input type="date" name="to" id="resend-to" value="\(HTMLText.escape(to.isEmpty ? today : to))"> \
            <button type="submit" id="resend-all">Re-send failed</button></form>\
            \(problem.map { "<p class=\"error\" id=\"error\">\(HTMLText.escape($0))</p>" } ?? "")\
            <table id="webhooks"><thead><tr><th>Queued</th><th>Event</th><th>Order</th><th>Attempts</th><th>State</th>\
            <th>Last error</th><th>When</th><th></th></tr></thead>\
            <tbody>\(rows.isEmpty ? "<tr><td colspan=\"8\" class=\"muted\">No deliveries.</td></tr>" : rows)</tbody></table>\
            \(found.count > 50 ? "<p><a id=\"next\" href=\"/dashboard/webhooks?\(state.map { "state=\($0.rawValue)&" } ?? "")after=\(HTMLText.escape(shown.last?.id ?? ""))\">Older →</a></p>" : "")
            """)
    }

    func resend(_ id: String, _ request: HTTPServerRequest, actor: String) async throws -> HTTPServerResponse {
        let response = await api.resendWebhook(asAPI("/v1/webhooks/\(id)/resend", [:]), id: id, actor: actor)
        return afterAction(response, back: "/dashboard/webhooks", done: "Queued \(id) to be sent again.")
    }

    func resendFailed(_ request: HTTPServerRequest, actor: String) async throws -> HTTPServerResponse {
        let form = request.formFields
        let response = await api.resendFailedWebhooks(
            asAPI("/v1/webhooks/resend", ["from": form["from"] ?? "", "to": form["to"] ?? ""]), actor: actor)
        let count = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])?["resent"] as? Int ?? 0
        return afterAction(response, back: "/dashboard/webhooks", done: "Queued \(count) failed deliveries to be sent again.")
    }
}
