import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// The dashboard's home: how today, the last 7 or the last 30 days went — gross volume, net of
/// refunds, refunds, orders, the payment success rate and the payments waiting to be refunded,
/// per currency; volume over time as an SVG chart; a breakdown by method. Every figure comes
/// from the store's indexed aggregates (``OrderStore/overview(from:until:bucket:)``).
extension Dashboard {
    func overview(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let period = request.queryValue("period").flatMap(DashboardPeriod.init(rawValue:)) ?? .today
        let now = clock.now()
        let (start, end) = period.range(now: now, timeZone: configuration.timeZone)
        let figures = try await store.overview(from: start, until: now, bucket: period.bucket)
        let tabs = DashboardPeriod.allCases.map { choice in
            """
            <a id="period-\(choice.rawValue)" href="/dashboard?period=\(choice.rawValue)"\(choice == period ? " aria-current=\"page\"" : "")>\
            \(choice.title)</a>
            """
        }.joined()
        func tile(_ id: String, _ label: String, _ value: String, _ note: String = "") -> String {
            """
            <div class="card tile"><div class="muted">\(HTMLText.escape(label))</div><div class="big" id="\(id)">\(HTMLText.escape(value))</div>\
            <div class="muted">\(HTMLText.escape(note))</div></div>
            """
        }
        var tiles = figures.totals.map { totals in
            let code = totals.currency.code
            return tile("gross-\(code)", "Gross volume (\(code))", Self.format(totals.gross), "\(totals.payments) payments")
                + tile("net-\(code)", "Net of refunds (\(code))", Self.format(totals.net))
                + tile("refunds-\(code)", "Refunds (\(code))", Self.format(totals.refunded), "\(totals.refunds) refunds")
        }
        if figures.totals.isEmpty { tiles.append(tile("gross-none", "Gross volume", "—", "no payments yet")) }
        tiles.append(tile("orders-count", "Orders", "\(figures.orders)", "created"))
        tiles.append(
            tile(
                "success-rate", "Payment success rate", figures.successRate.map { String(format: "%.0f%%", $0 * 100) } ?? "—",
                "\(figures.paymentsSucceeded) of \(figures.paymentsStarted) payments started"))
        tiles.append(
            """
            <div class="card tile\(figures.refundRequired > 0 ? " flagged" : "")"><div class="muted">Waiting to be refunded</div>\
            <div class="big" id="refund-required">\(figures.refundRequired)</div>\
            <div><a href="/dashboard/payments?refund_required=1">payments paid twice or after closing</a></div></div>
            """)
        // Complaints: open ones, and those past a deadline flagged.
        let complaints = try await store.complaintCounts(merchant: nil, now: now)
        tiles.append(
            """
            <div class="card tile\(complaints.overdue > 0 ? " flagged" : "")" id="complaints-tile"><div class="muted">Complaints open</div>\
            <div class="big" id="complaints-open">\(complaints.open)</div>\
            <div><a href="/dashboard/complaints" id="complaints-overdue">\(complaints.overdue) past a deadline</a></div></div>
            """)
        // The chart: the currency with the most volume, one bar per hour (today) or per day.
        let chart: String
        if let main = figures.totals.max(by: { $0.gross.minorUnits < $1.gross.minorUnits })?.currency {
            var bars: [DashboardChart.Bar] = []
            var slot = start
            let byStart = Dictionary(
                figures.buckets.filter { $0.gross.currency == main }.map { ($0.start, $0) }, uniquingKeysWith: { first, _ in first })
            let calendar = Calendar.gregorian(in: configuration.timeZone)
            while slot < end {
                let found = byStart[slot]
                // 24-hour clock or month-day, whatever the server's locale.
                let parts = calendar.dateComponents([.month, .day, .hour], from: slot)
                let text =
                    period == .today
                    ? String(format: "%02d:00", parts.hour ?? 0) : String(format: "%02d-%02d", parts.month ?? 0, parts.day ?? 0)
                bars.append(
                    .init(label: text, amount: found?.gross ?? Money(minorUnits: 0, currency: main), payments: found?.payments ?? 0))
                slot = slot.addingTimeInterval(period.bucket)
            }
            chart = DashboardChart(title: "Volume (\(main.code)), \(period.title.lowercased())", bars: bars, format: Self.format).svg
        } else {
            chart = "<p class=\"muted\" id=\"chart-empty\">No payments in this period.</p>"
        }
        let methods = figures.byMethod.map { row in
            """
            <tr><td>\(HTMLText.escape(row.method.rawValue))</td><td>\(HTMLText.escape(row.provider.rawValue))</td><td>\(row.payments)</td>\
            <td class="amount">\(Self.format(row.gross))</td></tr>
            """
        }.joined()
        return page(
            "Overview", session,
            """
            <h1 id="overview">Overview</h1><p class="filters">\(tabs)</p>\
            <p class="muted">\(HTMLText.escape(period.title)) in \(HTMLText.escape(configuration.timeZone.identifier)), until \(time(now)).</p>\
            <div class="tiles">\(tiles.joined())</div><div class="card">\(chart)</div>\
            <h2>By method</h2><table id="methods"><thead><tr><th>Method</th><th>Provider</th><th>Payments</th><th>Volume</th></tr></thead>\
            <tbody>\(methods.isEmpty ? "<tr><td colspan=\"4\" class=\"muted\">No payments in this period.</td></tr>" : methods)</tbody></table>
            """)
    }
}
