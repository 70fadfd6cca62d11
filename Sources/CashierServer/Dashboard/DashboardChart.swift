import Cashier
import CashierHTTP
import Foundation

/// A bar chart drawn as SVG on the server: one bar per slice of time, the height its volume,
/// each with a `<title>` (its label and amount) a browser shows on hover and a screen reader
/// reads, and text labels under the axis. No script, no style attribute: the page's strict
/// policy holds.
struct DashboardChart {
    struct Bar {
        let label: String
        let amount: Money
        let payments: Int
    }

    let title: String
    let bars: [Bar]
    let format: (Money) -> String

    static let width = 720
    static let height = 220

    var svg: String {
        let tallest = bars.max { $0.amount.minorUnits < $1.amount.minorUnits }
        let top = tallest?.amount.minorUnits ?? 0
        // The scale's labels sit above the axis at the left, so no amount is too wide for them.
        let plot = (x: 12, y: 28, width: Self.width - 24, height: Self.height - 64)
        let slot = bars.isEmpty ? 0 : Double(plot.width) / Double(bars.count)
        let labelEvery = max(1, bars.count / 12)
        var parts: [String] = []
        parts.append(
            """
            <svg id="chart" viewBox="0 0 \(Self.width) \(Self.height)" width="100%" role="img" aria-labelledby="chart-title chart-desc" \
            xmlns="http://www.w3.org/2000/svg"><title id="chart-title">\(HTMLText.escape(title))</title>\
            <desc id="chart-desc">\(HTMLText.escape(bars.filter { $0.payments > 0 }.map { "\($0.label): \(format($0.amount))" }.joined(separator: "; ")))</desc>
            """)
        parts.append(
            """
            <line x1="\(plot.x)" y1="\(plot.y + plot.height)" x2="\(plot.x + plot.width)" y2="\(plot.y + plot.height)" stroke="#c5cad3"/>\
            <line x1="\(plot.x)" y1="\(plot.y)" x2="\(plot.x + plot.width)" y2="\(plot.y)" stroke="#e3e6eb" stroke-dasharray="4 4"/>\
            <text x="\(plot.x)" y="\(plot.y - 6)" font-size="11" fill="#5b6475">\(HTMLText.escape(tallest.map { top > 0 ? format($0.amount) : "0" } ?? "0"))</text>
            """)
        for (index, bar) in bars.enumerated() {
            let height = top > 0 ? Int((Double(bar.amount.minorUnits) / Double(top) * Double(plot.height)).rounded()) : 0
            let x = Double(plot.x) + Double(index) * slot + slot * 0.15
            parts.append(
                """
                <rect class="bar" x="\(String(format: "%.1f", x))" y="\(plot.y + plot.height - height)" width="\(String(format: "%.1f", slot * 0.7))" \
                height="\(height)" fill="#2f6fde" data-amount="\(bar.amount.minorUnits)" data-label="\(HTMLText.escape(bar.label))">\
                <title>\(HTMLText.escape("\(bar.label): \(format(bar.amount)), \(bar.payments) payment\(bar.payments == 1 ? "" : "s")"))</title></rect>
                """)
            if index % labelEvery == 0 {
                parts.append(
                    """
                    <text x="\(String(format: "%.1f", x + slot * 0.35))" y="\(plot.y + plot.height + 16)" font-size="10" text-anchor="middle" \
                    fill="#5b6475">\(HTMLText.escape(bar.label))</text>
                    """)
            }
        }
        parts.append("</svg>")
        return parts.joined()
    }
}
