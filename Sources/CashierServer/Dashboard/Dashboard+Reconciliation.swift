import Cashier
import CashierCrypto
import CashierHTTP
import CashierStore
import Foundation

/// Reconciliation for a day, and the live view of notifications as they arrive.
extension Dashboard {
    func reconciliation(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let day = BeijingTime.formatter("yyyy-MM-dd")
        let date = request.queryValue("date") ?? day.string(from: clock.now())
        var result = ""
        if request.queryValue("date") != nil {
            do {
                let report = try await Reconciler(ledger: ledger).run(date: date, progress: { _ in })
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

    func live(_ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
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
}
