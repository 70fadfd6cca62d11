import Cashier
import CashierCrypto
import CashierStore
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// `deploy/alerts.yml`, run by Prometheus's own `promtool` (Debian's `prometheus` package,
/// scripts/install-deps): the rules parse, name only series the server exports, and fire — the
/// certificate alerts on the values a server printed on /metrics for generated certificates
/// that end in 3 and 20 days (and not for one that ends in 400), the others on series shaped as
/// the server's counters move when webhooks back up, notifications fail or payments are found
/// by query.
@Suite struct AlertRulesTests {
    static let rules = packageRoot.appendingPathComponent("deploy/alerts.yml")
    static let promtool = "/usr/bin/promtool"

    @Test func theRulesParseAndNameOnlySeriesTheServerExports() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.promtool), "promtool is missing: run scripts/install-deps")
        let checked = try await runSubprocess(Self.promtool, ["check", "rules", Self.rules.path])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        let text = try String(contentsOf: Self.rules, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"cashier_[a-z_]+"#)
        let named = Set(
            pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
                Range($0.range, in: text).map { String(text[$0]) }
            })
        let exported = Set(ServerMetrics.help.keys).union(ServerMetrics.gaugeHelp.keys)
        #expect(named.count >= 6)
        #expect(named.isSubset(of: exported), "not exported: \(named.subtracting(exported).sorted())")
    }

    /// A server configured with certificates ending in 3, 20 and 400 days: its /metrics lines,
    /// held for two hours as Prometheus would scrape them, fire CashierCertificateExpiresVerySoon
    /// for the first, CashierCertificateExpiresSoon for the first two, nothing for the third.
    @Test(.timeLimit(.minutes(2)))
    func certificateAlertsFireOnCertificatesThatEndSoon() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.promtool), "promtool is missing: run scripts/install-deps")
        let folder = try Scratch.newFolder("alerts")
        defer { try? FileManager.default.removeItem(at: folder) }
        func write(_ name: String, _ text: String) throws {
            try Data(text.utf8).write(to: folder.appendingPathComponent(name))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: folder.appendingPathComponent(name).path)
        }
        func certificate(_ name: String, days: Double, key: RSAPrivateKey) throws {
            let issued = try CertificateBuilder(
                subject: [("CN", name)], serialNumber: 9, notValidAfter: Date(timeIntervalSinceNow: days * 86_400)
            ).issue(publicKey: .rsa(key.publicKey), signedBy: .rsa(key))
            try write(name, issued.pemRepresentation)
        }
        let key = try RSAPrivateKey(generatingKeySizeInBits: 2048)
        try write("key.pem", key.pemRepresentation)
        try write("secret", "sk_alerts_0123456789abcdefghij")
        try write("wechat_api_key", String(repeating: "k", count: 32))
        try certificate("v2.pem", days: 3.5, key: key)
        try certificate("v3.pem", days: 20.5, key: key)
        try certificate("sp.pem", days: 400.5, key: key)
        let config: [String: Any] = [
            "public_base_url": "https://pay.example.com", "publishable_key": "pk_alerts", "secret_key_file": "secret",
            "wechat": [
                "appid": "wx1", "mch_id": "1230000109", "api_key_file": "wechat_api_key", "api_certificate_file": "v2.pem",
                "api_certificate_key_file": "key.pem",
            ],
            "wechat_v3": [
                "appid": "wx1", "mch_id": "1230000109", "certificate_serial": "09", "private_key_file": "key.pem",
                "api_v3_key_file": "wechat_api_key", "certificate_file": "v3.pem", "platform_public_key_file": "public.pem",
                "platform_public_key_id": "PUB_KEY_ID_0000",
            ],
            "service_provider": [
                "wechat": [
                    "appid": "wx2", "mch_id": "1900000100", "api_key_file": "wechat_api_key", "api_certificate_file": "sp.pem",
                    "api_certificate_key_file": "key.pem",
                ]
            ],
        ]
        try write("public.pem", key.publicKey.pemRepresentation)
        try JSONSerialization.data(withJSONObject: config).write(to: folder.appendingPathComponent("cashier.json"))
        let parsed = try ConfigurationFile(contentsOf: folder.appendingPathComponent("cashier.json"), environment: [:])
        let store = try SQLiteOrderStore(path: ":memory:")
        let server = MerchantServer(configuration: parsed.configuration, store: store)
        try await server.start()
        let scraped = await server.app.metrics.render()
        await server.stop()
        await store.close()

        // The gauge lines as printed: `cashier_certificate_expiry_days{certificate="…"} 3.499`.
        var days: [String: Double] = [:]
        for line in scraped.split(separator: "\n") where line.hasPrefix("cashier_certificate_expiry_days{") {
            let name = line.split(separator: "\"")[1]
            days[String(name)] = Double(line.split(separator: " ").last ?? "")
        }
        #expect(
            Set(days.keys) == ["wechat.api_certificate", "wechat_v3.certificate", "service_provider.wechat.api_certificate"], "\(scraped)")
        #expect((3.4...3.5).contains(days["wechat.api_certificate"] ?? 0))

        let series = days.sorted { $0.key < $1.key }.map { name, value in
            "      - series: 'cashier_certificate_expiry_days{certificate=\"\(name)\",instance=\"pay-1\",job=\"cashier\"}'\n        values: '\(value)x150'"
        }
        func expected(_ name: String, severity: String, summary: String, description: String) -> String {
            """
                      - exp_labels: {certificate: "\(name)", instance: pay-1, job: cashier, severity: \(severity)}
                        exp_annotations:
                          summary: "\(summary)"
                          description: "\(description)"
            """
        }
        let soon = "Renew it, replace the file and send the server SIGHUP (cashier reload); run cashier doctor to see how."
        let now = "Renew it now (cashier doctor says how), replace the file and send SIGHUP."
        let v2 = days["wechat.api_certificate"] ?? 0
        let v3 = days["wechat_v3.certificate"] ?? 0
        let test = """
            rule_files: ["\(Self.rules.path)"]
            evaluation_interval: 1m
            tests:
              - interval: 1m
                input_series:
            \(series.joined(separator: "\n"))
                alert_rule_test:
                  - eval_time: 2h
                    alertname: CashierCertificateExpiresSoon
                    exp_alerts:
            \(expected("wechat.api_certificate", severity: "warning", summary: "wechat.api_certificate ends in \(String(format: "%.0f", v2)) days", description: soon))
            \(expected("wechat_v3.certificate", severity: "warning", summary: "wechat_v3.certificate ends in \(String(format: "%.0f", v3)) days", description: soon))
                  - eval_time: 2h
                    alertname: CashierCertificateExpiresVerySoon
                    exp_alerts:
            \(expected("wechat.api_certificate", severity: "critical", summary: "wechat.api_certificate ends in \(String(format: "%.1f", v2)) days: payments that need it will fail", description: now))
                  - eval_time: 30m
                    alertname: CashierCertificateExpiresSoon
                    exp_alerts: []

            """
        let file = folder.appendingPathComponent("certificates.test.yml")
        try Data(test.utf8).write(to: file)
        let ran = try await runSubprocess(Self.promtool, ["test", "rules", file.path])
        #expect(ran.status == 0, "\(ran.stdout)\(ran.stderr)\n\(test)")
        #expect(ran.stdout.contains("SUCCESS"))
    }

    /// The other alerts on series shaped as the server's counters and gauges move: they fire when
    /// things go wrong and stay quiet when all is well.
    @Test func theOtherAlertsFireWhenThingsGoWrong() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.promtool), "promtool is missing: run scripts/install-deps")
        let folder = try Scratch.newFolder("alerts-others")
        defer { try? FileManager.default.removeItem(at: folder) }
        let test = """
            rule_files: ["\(Self.rules.path)"]
            evaluation_interval: 1m
            tests:
              - interval: 1m
                input_series:
                  # pay-1: the webhook endpoint is down; pay-2: all is well.
                  - series: 'cashier_webhook_outbox_due{instance="pay-1",job="cashier"}'
                    values: '0 50 150x40'
                  - series: 'cashier_webhook_outbox_oldest_due_seconds{instance="pay-1",job="cashier"}'
                    values: '0 60 120+60x40'
                  - series: 'cashier_webhook_outbox_due{instance="pay-2",job="cashier"}'
                    values: '0x42'
                  - series: 'cashier_webhook_outbox_oldest_due_seconds{instance="pay-2",job="cashier"}'
                    values: '0x42'
                  - series: 'cashier_webhook_deliveries_total{instance="pay-1",job="cashier",result="failed"}'
                    values: '0+10x42'
                  - series: 'cashier_webhook_deliveries_total{instance="pay-1",job="cashier",result="delivered"}'
                    values: '0+1x42'
                  - series: 'cashier_webhook_deliveries_total{instance="pay-2",job="cashier",result="delivered"}'
                    values: '0+10x42'
                  # pay-1: WeChat Pay v3 notifications that do not verify (a key rotated at WeChat, not here).
                  - series: 'cashier_notifications_total{instance="pay-1",job="cashier",outcome="unverified",provider="wechat.v3"}'
                    values: '0+1x42'
                  - series: 'cashier_notifications_total{instance="pay-2",job="cashier",outcome="acknowledged",provider="wechat.v3"}'
                    values: '0+5x42'
                  # pay-1: most payments found by the query-fallback job, not notified.
                  - series: 'cashier_query_fallback_total{instance="pay-1",job="cashier",result="paid"}'
                    values: '0+1x100'
                  - series: 'cashier_transitions_total{instance="pay-1",job="cashier",to="paid"}'
                    values: '0+1x100'
                  - series: 'cashier_query_fallback_total{instance="pay-2",job="cashier",result="paid"}'
                    values: '0x100'
                  - series: 'cashier_transitions_total{instance="pay-2",job="cashier",to="paid"}'
                    values: '0+2x100'
                alert_rule_test:
                  - eval_time: 40m
                    alertname: CashierWebhookBacklog
                    exp_alerts:
                      # Both conditions hold on pay-1: one alert (the first's value), none for pay-2.
                      - exp_labels: {instance: pay-1, job: cashier, severity: warning}
                        exp_annotations:
                          summary: "150 webhook messages (or seconds) waiting on pay-1"
                          description: "The webhook endpoint is not taking order events; see the dashboard's webhooks page for the errors."
                  - eval_time: 40m
                    alertname: CashierWebhookDeliveriesFailing
                    exp_alerts:
                      - exp_labels: {instance: pay-1, severity: warning}
                        exp_annotations:
                          summary: "more than half of the webhook deliveries fail on pay-1"
                  - eval_time: 30m
                    alertname: CashierNotificationsFailing
                    exp_alerts:
                      - exp_labels: {instance: pay-1, provider: wechat.v3, severity: critical}
                        exp_annotations:
                          summary: "15 wechat.v3 notifications failed in 15 minutes"
                          description: "unverified: check the provider keys (cashier doctor --online); retry: the database refused writes."
                  - eval_time: 95m
                    alertname: CashierQueryFallbackHigh
                    exp_alerts:
                      - exp_labels: {instance: pay-1, severity: warning}
                        exp_annotations:
                          summary: "100% of payments were found by query, not notified"
                          description: "The providers' notifications are not arriving: run cashier doctor --online (public_base_url.reachable)."

            """
        let file = folder.appendingPathComponent("others.test.yml")
        try Data(test.utf8).write(to: file)
        let ran = try await runSubprocess(Self.promtool, ["test", "rules", file.path])
        #expect(ran.status == 0, "\(ran.stdout)\(ran.stderr)")
    }
}
