import Foundation
import Synchronization

/// Counters for `GET /metrics`, in the Prometheus text format: requests by status class,
/// notifications by provider and outcome, order transitions, refunds, duplicate payments, job
/// runs, webhook deliveries, reports of money gone back that the books could not take, and the
/// store's report lines left out of full logs; and gauges measured at each scrape (``measure(_:)``).
final class ServerMetrics: Sendable {
    private let counters = Mutex<[String: Int]>([:])
    /// The store's count of report lines not logged (``OrderStore/unloggedReportLines``).
    private let unloggedReportLines: @Sendable () -> Int

    init(unloggedReportLines: @escaping @Sendable () -> Int = { 0 }) {
        self.unloggedReportLines = unloggedReportLines
    }

    /// One value of a gauge: `name{labels} value`.
    struct Gauge: Sendable, Equatable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    /// What reads the gauges at each scrape (certificates' days left, the webhook backlog):
    /// values that are measured when asked, not counted.
    private let gauges = Mutex<(@Sendable () async -> [Gauge])?>(nil)

    /// Sets what reads the gauges at each scrape.
    func measure(_ read: @escaping @Sendable () async -> [Gauge]) {
        gauges.withLock { $0 = read }
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

    /// The gauges' descriptions (each measured at scrape time).
    static let gaugeHelp: [String: String] = [
        "cashier_certificate_expiry_days":
            "Days until a configured certificate ends (negative once it has), by certificate; WeChat Pay v3's downloaded platform certificates as wechat_v3.platform.<serial>.",
        "cashier_webhook_outbox_due": "Webhook messages due to be sent now (counted up to 1000).",
        "cashier_webhook_outbox_oldest_due_seconds": "How long the oldest webhook message due now has been waiting, in seconds (0: none).",
    ]

    static let help: [String: String] = [
        "cashier_complaints_total":
            "Payers' complaints recorded from the providers, by event: created, updated (a notification or the reconciling poll).",
        "cashier_transfers_total":
            "Transfers out (WeChat Pay 商家转账), by status: reserved, then succeeded, failed or cancelled as each ends.",
        "cashier_splits_total":
            "Profit-sharing splits, by status: reserved, then finished or failed as each ends.",
        "cashier_agreements_total": "Recurring-payment agreements reserved for payers to sign (by status: reserved).",
        "cashier_invoices_total":
            "Subscription periods, by status: open when the job opens one, retrying or failed when an attempt fails.",
        "cashier_coupon_codes_refused_total": "Coupon codes the payment sheet sent that are not the merchant's (a guess or a typo).",
        "cashier_config_reloads_total":
            "Configuration reloads (SIGHUP), by result: applied, or refused (the old configuration kept serving).",
        "cashier_query_fallback_total":
            "Pending payments the query-fallback job asked their provider about, by result: paid (the notification had not come), unpaid, error.",
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

    /// The exposition text: the counters, then the gauges measured now.
    func render() async -> String {
        let counters = renderCounters()
        guard let read = gauges.withLock({ $0 }) else { return counters }
        let samples = await read()
        var lines: [String] = []
        for name in Set(samples.map(\.name)).sorted() {
            if let help = Self.gaugeHelp[name] { lines.append("# HELP \(name) \(help)") }
            lines.append("# TYPE \(name) gauge")
            for sample in samples where sample.name == name {
                let labels = sample.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\"\(Self.escaped($0.value))\"" }
                let value = sample.value.rounded() == sample.value ? String(Int(sample.value)) : String(format: "%.3f", sample.value)
                lines.append(name + (labels.isEmpty ? "" : "{" + labels.joined(separator: ",") + "}") + " " + value)
            }
        }
        return counters + (lines.isEmpty ? "" : lines.joined(separator: "\n") + "\n")
    }

    /// A label value as the text format writes it (backslash, quote and newline escaped).
    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// The counters' exposition text.
    func renderCounters() -> String {
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
