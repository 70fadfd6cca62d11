import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// Payments and refunds as what they are, across orders: filters by provider, method, status and
/// days, search by id, out_trade_no, transaction id or out_refund_no, and a one-click refund of a
/// payment that must go back.
extension Dashboard {
    /// The list filters a page was asked for, as a ``RecordQuery`` and as the form that shows them.
    struct RecordFilters {
        var query: RecordQuery
        let fields: [String: String]
        let problem: String?

        init(_ request: HTTPServerRequest, statuses: [String], timeZone: TimeZone) {
            var fields: [String: String] = [:]
            for name in ["provider", "method", "status", "from", "to", "q", "refund_required"] {
                if let value = request.queryValue(name)?.trimmingCharacters(in: .whitespaces), !value.isEmpty { fields[name] = value }
            }
            self.fields = fields
            var query = RecordQuery(search: fields["q"], after: request.queryValue("after"), limit: 51)
            var problem: String?
            query.provider = fields["provider"].flatMap(PaymentProvider.init)
            query.method = fields["method"].flatMap(PaymentMethod.init)
            query.status = fields["status"].flatMap { statuses.contains($0) ? $0 : nil }
            query.refundRequired = fields["refund_required"] == "1"
            do {
                // One day alone stands for itself.
                if let range = try ReportRange.given(
                    from: fields["from"] ?? fields["to"], to: fields["to"] ?? fields["from"], timeZone: timeZone)
                {
                    (query.from, query.until) = (range.start, range.end)
                }
            } catch let error as RequestProblem {
                problem = error.message
            } catch {
                problem = "the dates are not valid"
            }
            self.query = query
            self.problem = problem
        }

        /// A `<select>` of `options` named `name`, the current one selected.
        func select(_ name: String, _ label: String, _ options: [String]) -> String {
            let choices = ([""] + options).map { option in
                "<option value=\"\(HTMLText.escape(option))\"\(fields[name] == option ? " selected" : "")>\(option.isEmpty ? label : HTMLText.escape(option))</option>"
            }.joined()
            return "<select name=\"\(name)\" id=\"filter-\(name)\">\(choices)</select>"
        }

        func input(_ name: String, _ type: String, placeholder: String = "") -> String {
            "<input type=\"\(type)\" name=\"\(name)\" id=\"filter-\(name)\" value=\"\(HTMLText.escape(fields[name] ?? ""))\" placeholder=\"\(HTMLText.escape(placeholder))\">"
        }

        /// The filter form of `/dashboard/{page}`, and what was wrong with the last one.
        func form(_ page: String, statuses: [String], placeholder: String) -> String {
            """
            <form method="get" action="/dashboard/\(page)" class="card" id="filters">\
            \(select("provider", "any provider", PaymentProvider.allCases.map(\.rawValue)))\
            \(select("method", "any method", PaymentMethod.allCases.map(\.rawValue)))\(select("status", "any status", statuses))\
            \(input("from", "date")) \(input("to", "date")) \(input("q", "search", placeholder: placeholder))\
            <button type="submit" id="apply">Show</button></form>\
            \(problem.map { "<p class=\"error\" id=\"error\">\(HTMLText.escape($0))</p>" } ?? "")
            """
        }

        /// The list (`id` is also its page's name) and, when there is more, the link to it.
        func table(_ id: String, _ headings: [String], _ rows: String, more last: String?) -> String {
            Dashboard.table(id, headings, rows) + (last.map { next("/dashboard/\(id)", after: $0) } ?? "")
        }

        /// The link to the page after `last`, keeping the filters.
        func next(_ path: String, after last: String) -> String {
            var items = fields.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            items.append(URLQueryItem(name: "after", value: last))
            var components = URLComponents()
            components.queryItems = items
            return "<p><a id=\"next\" href=\"\(path)?\(HTMLText.escape(components.percentEncodedQuery ?? ""))\">Older →</a></p>"
        }
    }

    func payments(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let filters = RecordFilters(request, statuses: PaymentAttemptStatus.allCases.map(\.rawValue), timeZone: configuration.timeZone)
        let found = filters.problem == nil ? try await store.payments(matching: filters.query) : []
        let shown = found.prefix(50)
        let csrf = "<input type=\"hidden\" name=\"csrf\" value=\"\(session.csrf)\">"
        let rows = shown.map { payment in
            let refund =
                payment.refundRequired
                ? """
                <form method="post" action="/dashboard/payments/\(HTMLText.escape(payment.id))/refund" class="inline">\(csrf)\
                <button type="submit" class="refund-payment" id="refund-\(HTMLText.escape(payment.id))">Refund \(Self.format(payment.refundable))</button></form>
                """ : ""
            return """
                <tr class="\(payment.refundRequired ? "flagged" : "")" data-id="\(HTMLText.escape(payment.id))"><td class="when">\(when(payment.createdAt))</td>\
                <td>\(HTMLText.escape(payment.method.rawValue))</td><td>\(HTMLText.escape(payment.provider.rawValue))</td>\
                <td><code>\(HTMLText.escape(payment.outTradeNo))</code></td><td><code>\(HTMLText.escape(payment.transactionID ?? ""))</code></td>\
                <td class="amount">\(Self.format(payment.amount))</td><td>\(HTMLText.escape(payment.status.rawValue))\
                \(payment.refundRequired ? " <span class=\"badge failed\">refund required</span>" : "")</td>\
                <td class="amount">\(Self.format(payment.refunded))</td>\
                <td><a href="/dashboard/orders/\(HTMLText.escape(payment.orderID))">order</a> \(refund)</td></tr>
                """
        }.joined()
        return page(
            "Payments", session,
            """
            <h1>Payments</h1>\(message(request))\
            \(filters.form("payments", statuses: PaymentAttemptStatus.allCases.map(\.rawValue), placeholder: "out_trade_no, transaction id, pay_… or ord_…"))\
            \(filters.table(
                "payments", ["Started", "Method", "Provider", "out_trade_no", "Transaction", "Amount", "Status", "Refunded", ""], rows,
                more: found.count > 50 ? shown.last?.id : nil))
            """)
    }

    func refunds(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let filters = RecordFilters(request, statuses: RefundStatus.allCases.map(\.rawValue), timeZone: configuration.timeZone)
        let found = filters.problem == nil ? try await store.refunds(matching: filters.query) : []
        let shown = found.prefix(50)
        let rows = shown.map { refund in
            """
            <tr class="\(refund.status == .failed ? "flagged" : "")" data-id="\(HTMLText.escape(refund.id))"><td class="when">\(when(refund.createdAt))</td>\
            <td><code>\(HTMLText.escape(refund.outRefundNo))</code></td><td><code>\(HTMLText.escape(refund.paymentID))</code></td>\
            <td class="amount">\(Self.format(refund.amount))</td><td>\(Self.refundStatus(refund))</td>\
            <td>\(HTMLText.escape(refund.reason ?? ""))\(refund.failureReason.map { " — " + HTMLText.escape($0) } ?? "")</td>\
            <td>\(HTMLText.escape(refund.requestedBy ?? ""))</td><td><a href="/dashboard/orders/\(HTMLText.escape(refund.orderID))">order</a></td></tr>
            """
        }.joined()
        return page(
            "Refunds", session,
            """
            <h1>Refunds</h1>\
            \(filters.form("refunds", statuses: RefundStatus.allCases.map(\.rawValue), placeholder: "out_refund_no, out_trade_no, re_… or ord_…"))\
            \(filters.table(
                "refunds", ["Requested", "out_refund_no", "Payment", "Amount", "Status", "Reason", "By", ""], rows,
                more: found.count > 50 ? shown.last?.id : nil))
            """)
    }

    /// One click: everything still refundable of that payment goes back to the payer.
    func refundPayment(_ id: String, _ request: HTTPServerRequest, actor: String) async throws -> HTTPServerResponse {
        guard let payment = try await store.payment(id: id) else {
            return Self.notice(status: 404, "No such payment", "There is no payment \(id).")
        }
        return await afterAction(back: "/dashboard/payments") {
            let body = RefundBody(amount: nil, amount_minor: nil, reason: "refunded from the dashboard", payment: id)
            _ = try await ledger.refunds.refund(orderID: payment.orderID, body, idempotencyKey: nil, actor: actor)
            return "Refunded \(Self.format(payment.refundable)) of \(id)."
        }
    }

    /// The `message` a redirect after an action carries, shown once.
    func message(_ request: HTTPServerRequest) -> String {
        request.queryValue("message").map { "<p class=\"card\" id=\"message\">\(HTMLText.escape($0))</p>" } ?? ""
    }
}
