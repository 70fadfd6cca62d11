import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// The orders list (status filters, search, cursor pages) and an order's page with its refund
/// and close forms.
extension Dashboard {
    func orders(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
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
                "<a href=\"/dashboard/orders\(value.map { "?status=\($0.rawValue)" } ?? "")\"\(current ? " aria-current=\"page\"" : "")>\(name)</a>"
        }.joined()
        let rows = orders.map { order in
            """
            <tr class="\(order.refundRequired ? "flagged" : "")" data-id="\(HTMLText.escape(order.id))"><td class="when">\(when(order.createdAt))</td>\
            <td><a href="/dashboard/orders/\(HTMLText.escape(order.id))"><code>\(HTMLText.escape(order.outTradeNo))</code></a></td>\
            <td>\(HTMLText.escape(order.description))</td><td class="amount">\(Self.format(order.total))</td>\
            <td>\(Self.badge(order.status))\(order.refundRequired ? " <span class=\"badge failed\">refund required</span>" : "")</td></tr>
            """
        }.joined()
        let next =
            hasMore
            ? "<p><a id=\"next\" href=\"/dashboard/orders?\(status.map { "status=\($0.rawValue)&" } ?? "")after=\(HTMLText.escape(orders.last?.id ?? ""))\">Older orders →</a></p>"
            : ""
        return page(
            "Orders", session,
            """
            <h1>Orders</h1><form method="get" action="/dashboard/orders" class="card"><input name="q" id="search" placeholder="out_trade_no or order id" \
            value="\(HTMLText.escape(search))" size="34"> <button type="submit">Find</button></form>\
            <p class="filters">\(filters)</p>\
            <table id="orders"><thead><tr><th>Created (\(HTMLText.escape(configuration.timeZone.identifier)))</th><th>out_trade_no</th>\
            <th>Description</th><th>Amount</th><th>Status</th></tr></thead><tbody>\(rows.isEmpty ? "<tr><td colspan=\"5\" class=\"muted\">No orders.</td></tr>" : rows)</tbody></table>\(next)
            """)
    }

    func order(_ id: String, _ session: DashboardSessions.Session, request: HTTPServerRequest) async throws -> HTTPServerResponse {
        guard let order = try await store.order(id: id) else {
            return Self.notice(status: 404, "No such order", "There is no order \(id).")
        }
        let events = try await store.events(orderID: id)
        let outbox = try await store.outbox(orderID: id)
        let items = order.lineItems
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
            \(payment.capture == .failed ? " <span class=\"badge failed\">capture failed</span>" : "")\
            \(payment.refundRequired ? " <span class=\"badge failed\">refund required</span>" : "")</td>\
            <td class="amount">\(Self.format(payment.refunded))</td><td>\(payment.refundRequired ? """
                <form method="post" action="/dashboard/payments/\(HTMLText.escape(payment.id))/refund" class="inline">\
                <input type="hidden" name="csrf" value="\(session.csrf)"><button type="submit" class="refund-payment">\
                Refund \(Self.format(payment.refundable))</button></form>
                """ : "")</td></tr>
            """
        }.joined()
        let refundRows = refunds.map { refund in
            """
            <tr class="refund \(refund.status == .failed ? "flagged" : "")"><td>\(time(refund.createdAt))</td><td><code>\(HTMLText.escape(refund.outRefundNo))</code></td>\
            <td><code>\(HTMLText.escape(refund.paymentID))</code></td><td class="amount">\(Self.format(refund.amount))</td>\
            <td>\(Self.refundStatus(refund))</td><td>\(HTMLText.escape(refund.reason ?? ""))\
            \(refund.failureReason.map { " — " + HTMLText.escape($0) } ?? "")</td><td>\(HTMLText.escape(refund.requestedBy ?? ""))</td></tr>
            """
        }.joined()
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
        // A held card payment (Apple Pay with manual capture): capture all or part, or void it.
        if let held = payments.first(where: { $0.id == order.settledPaymentID && $0.capture == .uncaptured }) {
            actions += """
                <form method="post" action="/dashboard/orders/\(HTMLText.escape(id))/capture" class="card" id="capture-form">\(csrf)\
                <strong>Authorised, not captured</strong> <input name="amount" id="capture-amount" size="8" placeholder="\(held.amount.decimalString)"> \
                \(order.total.currency.code) <button type="submit" id="capture">Capture</button> (empty: all; the rest is released)</form>\
                <form method="post" action="/dashboard/orders/\(HTMLText.escape(id))/void" class="card">\(csrf)\
                <button type="submit" class="secondary" id="void">Void the authorisation</button></form>
                """
        }
        if [.created, .pending, .failed].contains(order.status) {
            actions += """
                <form method="post" action="/dashboard/orders/\(HTMLText.escape(id))/close" class="card">\(csrf)\
                <button type="submit" class="secondary" id="close">Close this unpaid order</button></form>\
                <p class="card">Send the payer its <a id="checkout-link" href="\(HTMLText.escape(CheckoutLink.path(order: order)))">checkout page</a> \
                (it carries the order's client secret).</p>
                """
        }
        let sharing = try await splitSection(order, payments: payments)
        let message = request.queryValue("message").map { "<p class=\"card\" id=\"message\">\(HTMLText.escape($0))</p>" } ?? ""
        return page(
            "Order \(order.outTradeNo)", session,
            """
            <h1>Order <code>\(HTMLText.escape(order.outTradeNo))</code> \(Self.badge(order.status))</h1>\(message)\
            \(flagged.isEmpty ? "" : "<p class=\"card flagged\" id=\"refund-required\"><strong>Refund required:</strong> " + flagged.map { "\(Self.format($0.amount)) by \(HTMLText.escape($0.method.rawValue)) (<code>\(HTMLText.escape($0.id))</code>) " + ($0.id == order.settledPaymentID ? "arrived after the order was closed" : "paid the order a second time") }.joined(separator: "; ") + ". Refund the payer (POST /v1/orders/{id}/refunds with its payment id).</p>")\
            <div class="card"><p id="description">\(HTMLText.escape(order.description))</p><p>Total <span class="amount" id="total">\(Self.format(order.total))</span>, \
            refunded <span class="amount" id="refunded">\(Self.format(order.refunded))</span> · id <code>\(HTMLText.escape(order.id))</code> · created \(time(order.createdAt))</p></div>\
            \(actions)<h2>Items</h2><table><thead><tr><th>Item</th><th>Qty</th><th>Unit</th><th>Amount</th></tr></thead><tbody>\(itemRows)</tbody></table>\
            <h2>Payments</h2>\(Self.table("payments", ["Started", "Method", "Provider", "out_trade_no", "Amount", "Status", "Refunded", ""], paymentRows))\
            <h2>Refunds</h2>\(Self.table("refunds", ["Requested", "out_refund_no", "Payment", "Amount", "Status", "Reason", "By"], refundRows))\
            \(sharing)\
            <h2>Webhooks</h2><table><thead><tr><th>Event</th><th>Id</th><th>Attempts</th><th>State</th></tr></thead><tbody>\(webhooks)</tbody></table>\
            <h2>Timeline</h2><table id="timeline"><thead><tr><th>Time</th><th>Event</th><th>Status</th><th>Detail</th></tr></thead><tbody>\(timeline)</tbody></table>
            """)
    }

    func refund(_ id: String, _ request: HTTPServerRequest, actor: String) async -> HTTPServerResponse {
        let form = request.formFields
        let reason = form["reason"].flatMap { $0.isEmpty ? nil : $0 }
        return await afterAction(id, done: "Refunded \(form["amount"] ?? "").") {
            let body = RefundBody(amount: form["amount"] ?? "", amount_minor: nil, reason: reason, payment: nil)
            _ = try await ledger.refunds.refund(orderID: id, body, idempotencyKey: nil, actor: actor)
        }
    }

    func capture(_ id: String, _ request: HTTPServerRequest, actor: String) async -> HTTPServerResponse {
        let amount = request.formFields["amount"] ?? ""
        return await afterAction(id, done: amount.isEmpty ? "Captured." : "Captured \(amount); the rest was released.") {
            _ = try await ledger.captures.capture(
                id, CaptureBody(amount: amount.isEmpty ? nil : amount, amount_minor: nil, payment: nil), by: actor)
        }
    }

    func void(_ id: String, actor: String) async -> HTTPServerResponse {
        await afterAction(id, done: "Voided.") { _ = try await ledger.captures.void(id, payment: nil, by: actor) }
    }

    func close(_ id: String, actor: String) async -> HTTPServerResponse {
        await afterAction(id, done: "Closed.") { _ = try await ledger.closing.close(id, by: actor) }
    }
}
