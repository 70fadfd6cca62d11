import Synchronization

/// Counters for `GET /metrics`, in the Prometheus text format: requests by status class,
/// notifications by provider and outcome, order transitions, refunds, duplicate payments, job
/// runs, webhook deliveries, reports of money gone back that the books could not take, and the
/// store's report lines left out of full logs.
final class ServerMetrics: Sendable {
    private let counters = Mutex<[String: Int]>([:])
    /// The store's count of report lines not logged (``OrderStore/unloggedReportLines``).
    private let unloggedReportLines: @Sendable () -> Int

    init(unloggedReportLines: @escaping @Sendable () -> Int = { 0 }) {
        self.unloggedReportLines = unloggedReportLines
    }
    /// `cashier_http_requests_total` by status class (1xx…5xx): counted on every request, so
    /// each is an atomic rather than an entry behind the lock.
    private let requestsByClass: [Counter] = (1...5).map { _ in Counter() }

    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Counts one answered request under its status class.
    func countRequest(status: Int) {
        let index = min(max(status / 100, 1), 5) - 1
        requestsByClass[index].value.add(1, ordering: .relaxed)
    }

    /// Adds one to the series `name{labels}`.
    func increment(_ name: String, _ labels: [String: String] = [:]) {
        let key =
            name
            + (labels.isEmpty
                ? "" : "{" + labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",") + "}")
        counters.withLock { $0[key, default: 0] += 1 }
    }

    static let help: [String: String] = [
        "cashier_coupon_codes_refused_total": "Coupon codes the payment sheet sent that are not the merchant's (a guess or a typo).",
        "cashier_duplicate_payments_total": "Payments of an order that another payment had paid already (refund them), by provider.",
        "cashier_http_requests_total": "HTTP requests answered, by status class.",
        "cashier_job_runs_total": "Background job runs, by job (expiry, query_fallback, webhooks).",
        "cashier_notifications_total": "Provider notifications, by provider and outcome.",
        "cashier_rate_limited_total":
            "Payer requests (the publishable key's, the hosted checkout's) refused with 429: their address had used its requests a minute.",
        "cashier_refunds_total": "Refunds finished, by the status they reached.",
        "cashier_reports_not_applied_total":
            "Verified reports of money gone back that the books could not take (more than is left, no amount in the payment's currency), by provider and reason: settle them with the provider.",
        "cashier_report_lines_unlogged_total":
            "Reports (notifications, webhooks, Apple Pay tokens) that changed nothing, answered but not logged: their order's log was full.",
        "cashier_transitions_total": "Order status changes, by the status reached.",
        "cashier_webhook_deliveries_total": "Webhook delivery attempts, by result.",
    ]

    /// The exposition text.
    func render() -> String {
        var snapshot = counters.withLock { $0 }
        for (index, counter) in requestsByClass.enumerated() {
            let count = counter.value.load(ordering: .relaxed)
            if count > 0 { snapshot["cashier_http_requests_total{code=\"\(index + 1)xx\"}"] = count }
        }
        snapshot["cashier_report_lines_unlogged_total"] = unloggedReportLines()
        var lines: [String] = []
        // Every series counted is shown, described or not: a counter missing from `help` once hid
        // the refunds and the duplicate payments.
        let counted = snapshot.keys.map { String($0.prefix { $0 != "{" }) }
        let series = snapshot.sorted { $0.key < $1.key }
        for name in Set(Self.help.keys).union(counted).sorted() {
            if let help = Self.help[name] { lines.append("# HELP \(name) \(help)") }
            lines.append("# TYPE \(name) counter")
            for (key, value) in series where key == name || key.hasPrefix(name + "{") {
                lines.append("\(key) \(value)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
