import Cashier
import CashierHTTP
import CashierStore
import CashierWire
import Foundation

/// Subscriptions, newest first, and a subscription's page: its charges (invoices) and the staff's
/// forms — pause, resume, cancel, retry the open charge now (``Dashboard/changeSubscription(_:_:request:)``).
extension Dashboard {
    func subscriptions(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let offset = min(max(Int(request.queryValue("offset") ?? "") ?? 0, 0), 100_000)
        let page = try await ledger.recurring.listSubscriptions(agreement: nil, caller: .platform, limit: 100, offset: offset)
        let rows = page.data.map { subscription in
            """
            <tr class="subscription" data-id="\(HTMLText.escape(subscription.id))">\
            <td><a href="\(Self.subscriptionPage(subscription.id))"><code>\(HTMLText.escape(subscription.id))</code></a></td>\
            <td><a href="\(Self.agreementPage(subscription.agreement))"><code>\(HTMLText.escape(subscription.agreement))</code></a></td>\
            <td>\(HTMLText.escape(subscription.description))</td><td class="amount">\(Self.format(subscription.amount))</td>\
            <td>\(Self.period(subscription.interval))</td><td>\(Self.recurringBadge(subscription.status))</td>\
            <td>\(subscription.next_charge.map { when(Date(timeIntervalSince1970: TimeInterval($0))) } ?? "")</td>\
            <td>\(when(Date(timeIntervalSince1970: TimeInterval(subscription.created))))</td></tr>
            """
        }.joined()
        let more = page.has_more ? "<p><a href=\"/dashboard/subscriptions?offset=\(offset + 100)\">Older</a></p>" : ""
        return self.page(
            "Subscriptions", session,
            """
            <h1 id="subscriptions">Subscriptions</h1>\
            <p class="muted">Amounts charged every period under an agreement, each period's charge retried on the dunning \
            schedule until its attempts run out.</p>\
            \(Self.table("subscription-list", ["Subscription", "Agreement", "Description", "Amount", "Every", "Status", "Next charge", "Created"], rows))\(more)
            """)
    }

    func subscription(_ id: String, _ session: DashboardSessions.Session, request: HTTPServerRequest) async throws -> HTTPServerResponse {
        let subscription: SubscriptionJSON
        do {
            subscription = try await ledger.recurring.viewSubscription(id, caller: .platform)
        } catch is APIError {
            return Self.notice(status: 404, "No such subscription", "There is no subscription \(id).")
        }
        let invoices = subscription.invoices ?? []
        let status = StoredSubscription.Status(rawValue: subscription.status)
        // Only the moves the subscription can make from where it is.
        var actions: [(action: SubscriptionAction, label: String, secondary: Bool)] = []
        if status == .active || status == .pastDue { actions.append((.pause, "Pause", true)) }
        if status == .paused { actions.append((.resume, "Resume", false)) }
        if invoices.contains(where: { $0.status == StoredInvoice.Status.open.rawValue }) && status != .canceled {
            actions.append((.retry, "Retry the open charge now", false))
        }
        if status != .canceled { actions.append((.cancel, "Cancel", true)) }
        let csrf = "<input type=\"hidden\" name=\"csrf\" value=\"\(session.csrf)\">"
        let forms = actions.map { action in
            """
            <form method="post" action="\(Self.subscriptionPage(id))/\(action.action.rawValue)" class="inline" id="\(action.action.rawValue)-form">\(csrf)\
            \(action.action == .cancel ? "<input type=\"text\" name=\"reason\" placeholder=\"Reason (optional)\" maxlength=\"200\">" : "")\
            <button type="submit"\(action.secondary ? " class=\"secondary\"" : "") id="\(action.action.rawValue)">\(action.label)</button></form>
            """
        }.joined()
        let message = request.queryValue("message").map { text in
            "<p class=\"card\(text.hasPrefix("Not done") ? " error" : "")\" id=\"message\">\(HTMLText.escape(text))</p>"
        }
        let details: [(String, String)] = [
            (
                "Agreement",
                "<a href=\"\(Self.agreementPage(subscription.agreement))\"><code>\(HTMLText.escape(subscription.agreement))</code></a>"
            ),
            ("Description", HTMLText.escape(subscription.description)), ("Amount", Self.format(subscription.amount)),
            ("Every", Self.period(subscription.interval)), ("Periods opened", String(subscription.current_period)),
            ("Next charge", subscription.next_charge.map { time(Date(timeIntervalSince1970: TimeInterval($0))) } ?? "—"),
            ("Attempts per charge", String(subscription.max_attempts)),
            ("Created", time(Date(timeIntervalSince1970: TimeInterval(subscription.created)))),
            ("Canceled", subscription.canceled.map { time(Date(timeIntervalSince1970: TimeInterval($0))) } ?? "—"),
            ("Why", HTMLText.escape(subscription.cancel_reason ?? "—")),
        ]
        return self.page(
            "Subscription \(subscription.id)", session,
            """
            <h1>Subscription <code>\(HTMLText.escape(subscription.id))</code> \
            <span id="status">\(Self.recurringBadge(subscription.status))</span></h1>\(message ?? "")\
            <dl class="card" id="subscription">\(details.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined())</dl>\
            <div id="actions">\(forms)</div><h2>Charges</h2>\(invoiceTable(invoices))
            """)
    }

    /// A staff action on a subscription's page: each is a form posting to `…/{id}/<rawValue>`.
    enum SubscriptionAction: String, CaseIterable, Sendable {
        case pause, resume, cancel, retry
    }

    /// What a subscription's form asks — pause, resume, cancel (with the form's `reason`), retry
    /// the open charge now — through the same service the API calls, then back to its page saying
    /// what happened.
    func changeSubscription(_ id: String, _ action: SubscriptionAction, request: HTTPServerRequest) async -> HTTPServerResponse {
        await afterAction(back: Self.subscriptionPage(id)) {
            switch action {
            case .pause:
                _ = try await ledger.recurring.changeSubscription(id, to: .paused, reason: nil, caller: .platform)
                return "Paused: no period is charged until it is resumed."
            case .resume:
                _ = try await ledger.recurring.changeSubscription(id, to: .active, reason: nil, caller: .platform)
                return "Resumed."
            case .cancel:
                let reason = request.formFields["reason"].flatMap { $0.isEmpty ? nil : $0 } ?? "canceled by staff"
                _ = try await ledger.recurring.changeSubscription(id, to: .canceled, reason: reason, caller: .platform)
                return "Canceled; its open charge, if any, was voided."
            case .retry:
                let after = try await ledger.recurring.retry(id, caller: .platform)
                let open = after.invoices?.first
                return "Retried: the charge is \(open?.status ?? "unknown")\(open?.last_error.map { " (\($0))" } ?? "")."
            }
        }
    }
}
