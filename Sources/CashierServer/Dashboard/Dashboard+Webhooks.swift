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
        let today = ReportRange.day(clock.now(), timeZone: configuration.timeZone)
        let from = request.queryValue("from") ?? ""
        let to = request.queryValue("to") ?? ""
        var problem: String?
        do {
            // One day alone stands for itself.
            let (first, last) = (from.isEmpty ? nil : from, to.isEmpty ? nil : to)
            if let range = try ReportRange.given(from: first ?? last, to: last ?? first, timeZone: configuration.timeZone) {
                (query.from, query.until) = (range.start, range.end)
            }
        } catch let error as RequestProblem {
            problem = error.message
        }
        let found = problem == nil ? try await store.webhooks(matching: query) : []
        let shown = found.prefix(50)
        let csrf = "<input type=\"hidden\" name=\"csrf\" value=\"\(session.csrf)\">"
        let rows = shown.map { message in
            """
            <tr class="webhook \(message.state == .failed ? "flagged" : "")" data-id="\(HTMLText.escape(message.id))">\
            <td class="when">\(message.createdAt.map(when) ?? "")</td><td>\(HTMLText.escape(message.type))<br><code class="muted">\(HTMLText.escape(message.id))</code></td>\
            <td><a href="/dashboard/orders/\(HTMLText.escape(message.orderID))"><code>\(HTMLText.escape(message.orderID))</code></a></td>\
            <td>\(message.attempts)</td><td class="state">\(message.state.rawValue)</td><td>\(message.lastError.map { message.deliveredAt == nil ? HTMLText.escape($0) : "<span class=\"muted\">earlier: \(HTMLText.escape($0))</span>" } ?? "")</td>\
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
            \(Self.table("webhooks", ["Queued", "Event", "Order", "Attempts", "State", "Last error", "When", ""], rows))\
            \(found.count > 50 ? "<p><a id=\"next\" href=\"/dashboard/webhooks?\(state.map { "state=\($0.rawValue)&" } ?? "")after=\(HTMLText.escape(shown.last?.id ?? ""))\">Older →</a></p>" : "")
            """)
    }

    func resend(_ id: String, _ request: HTTPServerRequest, actor: String) async -> HTTPServerResponse {
        await afterAction(back: "/dashboard/webhooks") {
            _ = try await ledger.webhooks.resend(id, by: actor)
            return "Queued \(id) to be sent again."
        }
    }

    func resendFailed(_ request: HTTPServerRequest, actor: String) async -> HTTPServerResponse {
        let form = request.formFields
        return await afterAction(back: "/dashboard/webhooks") {
            try ledger.webhooks.requireEndpoint()
            let range = try ReportRange(from: form["from"] ?? "", to: form["to"] ?? "", timeZone: configuration.timeZone)
            let count = try await ledger.webhooks.resendFailed(in: range, by: actor).count
            return "Queued \(count) failed deliveries to be sent again."
        }
    }
}
