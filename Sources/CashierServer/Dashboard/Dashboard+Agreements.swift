import Cashier
import CashierHTTP
import CashierStore
import CashierWire
import Foundation

/// Recurring payments' agreements, newest first — how each payer signed, for what, how often and
/// up to how much — and an agreement's page with its subscriptions and their charges. Read only:
/// agreements are made and ended through the API (``RecurringService``).
extension Dashboard {
    func agreements(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let offset = min(max(Int(request.queryValue("offset") ?? "") ?? 0, 0), 100_000)
        let page = try await ledger.recurring.list(caller: .platform, limit: 100, offset: offset)
        let rows = page.data.map { agreement in
            """
            <tr class="agreement" data-id="\(HTMLText.escape(agreement.id))">\
            <td><a href="\(Self.agreementPage(agreement.id))"><code>\(HTMLText.escape(agreement.id))</code></a></td>\
            <td>\(HTMLText.escape(agreement.method))</td><td>\(HTMLText.escape(agreement.description))</td>\
            <td>\(Self.recurringBadge(agreement.status))</td><td>\(Self.period(agreement.period))</td>\
            <td class="amount">\(Self.format(agreement.single_limit))</td>\
            <td>\(when(Date(timeIntervalSince1970: TimeInterval(agreement.created))))</td></tr>
            """
        }.joined()
        let more = page.has_more ? "<p><a href=\"/dashboard/agreements?offset=\(offset + 100)\">Older</a></p>" : ""
        return self.page(
            "Agreements", session,
            """
            <h1 id="agreements">Agreements</h1>\
            <p class="muted">Payers' standing permissions to be charged (WeChat Pay 委托代扣, Alipay 周期扣款, Apple Pay's stored \
            card). Made and ended through the API; each subscription charges under one.</p>\
            \(Self.table("agreement-list", ["Agreement", "Method", "Description", "Status", "Period", "Single limit", "Created"], rows))\(more)
            """)
    }

    func agreement(_ id: String, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let agreement: AgreementJSON
        do {
            // As recorded: the page does not ask the provider (the API's read and the job do).
            agreement = AgreementJSON(try await ledger.recurring.require(id, caller: .platform))
        } catch is APIError {
            return Self.notice(status: 404, "No such agreement", "There is no agreement \(id).")
        }
        let subscriptions = try await ledger.recurring.listSubscriptions(agreement: id, caller: .platform, limit: 100, offset: 0).data
        var sections = ""
        for subscription in subscriptions {
            let invoices = try await store.invoices(subscriptionID: subscription.id).map { InvoiceJSON($0) }
            sections += """
                <h3><a href="\(Self.subscriptionPage(subscription.id))"><code>\(HTMLText.escape(subscription.id))</code></a> \
                \(Self.recurringBadge(subscription.status)) \(Self.format(subscription.amount)) every \(Self.period(subscription.interval)) \
                <span class="muted">\(HTMLText.escape(subscription.description))</span></h3>\(invoiceTable(invoices))
                """
        }
        let details: [(String, String)] = [
            ("Provider", HTMLText.escape(agreement.provider)), ("Method", HTMLText.escape(agreement.method)),
            ("Description", HTMLText.escape(agreement.description)), ("Period", Self.period(agreement.period)),
            ("Single limit", Self.format(agreement.single_limit)),
            ("external_no", "<code>\(HTMLText.escape(agreement.external_no))</code>"),
            ("Provider's id", agreement.provider_agreement_id.map { "<code>\(HTMLText.escape($0))</code>" } ?? "—"),
            ("Provider's state", HTMLText.escape(agreement.provider_state ?? "—")),
            ("Created", time(Date(timeIntervalSince1970: TimeInterval(agreement.created)))),
            ("Signed", agreement.activated.map { time(Date(timeIntervalSince1970: TimeInterval($0))) } ?? "—"),
            ("Ended", agreement.ended.map { time(Date(timeIntervalSince1970: TimeInterval($0))) } ?? "—"),
            ("Why it ended", HTMLText.escape(agreement.end_reason ?? "—")),
        ]
        return self.page(
            "Agreement \(agreement.id)", session,
            """
            <h1>Agreement <code>\(HTMLText.escape(agreement.id))</code> <span id="status">\(Self.recurringBadge(agreement.status))</span></h1>\
            <dl class="card" id="agreement">\(details.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined())</dl>\
            <h2 id="subscriptions">Subscriptions</h2>\
            \(subscriptions.isEmpty ? "<p class=\"muted\">No subscriptions under it.</p>" : sections)
            """)
    }

    // MARK: Shared by the agreement and subscription pages

    /// A subscription's charges, newest first: the period, its order, the amount, where it
    /// stands, how many attempts, the last error and when the next attempt is due.
    func invoiceTable(_ invoices: [InvoiceJSON]) -> String {
        let rows = invoices.map { invoice in
            """
            <tr class="invoice" data-id="\(HTMLText.escape(invoice.id))"><td>\(invoice.period) \
            <span class="muted">from \(time(Date(timeIntervalSince1970: TimeInterval(invoice.period_start))))</span></td>\
            <td><a href="/dashboard/orders/\(Self.pathPart(invoice.order))"><code>\(HTMLText.escape(invoice.order))</code></a></td>\
            <td class="amount">\(Self.format(invoice.amount))</td><td>\(Self.recurringBadge(invoice.status))</td>\
            <td>\(invoice.attempts)</td><td>\(HTMLText.escape(invoice.last_error ?? ""))</td>\
            <td>\(invoice.next_attempt.map { when(Date(timeIntervalSince1970: TimeInterval($0))) } ?? "")</td></tr>
            """
        }.joined()
        return Self.table("invoices", ["Period", "Order", "Amount", "Status", "Attempts", "Last error", "Next attempt"], rows)
    }

    /// `1 month`, `2 weeks`.
    static func period(_ period: AgreementJSON.Period) -> String {
        HTMLText.escape("\(period.count) \(period.unit)\(period.count == 1 ? "" : "s")")
    }

    /// A wire amount as ``format(_:)-(Money)`` writes it, escaped.
    static func format(_ amount: Amount) -> String {
        guard let currency = try? Currency(code: amount.currency) else { return HTMLText.escape("\(amount.amount) \(amount.currency)") }
        return HTMLText.escape(format(Money(minorUnits: amount.amount_minor, currency: currency)))
    }

    /// A recurring status (`active`, `past_due`, `open`, …) as a badge.
    static func recurringBadge(_ status: String) -> String {
        "<span class=\"badge \(HTMLText.escape(status))\">\(HTMLText.escape(status.replacingOccurrences(of: "_", with: " ")))</span>"
    }

    /// An id as a path segment (ids are letters, digits and `_`; anything else escaped).
    static func pathPart(_ id: String) -> String {
        id.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "_-"))) ?? ""
    }
    static func agreementPage(_ id: String) -> String { "/dashboard/agreements/\(pathPart(id))" }
    static func subscriptionPage(_ id: String) -> String { "/dashboard/subscriptions/\(pathPart(id))" }
}
