public import Cashier
import CashierStore
public import Foundation
import WeChatPay

extension MerchantServer {
    /// What ``reload(_:)`` did.
    public struct Reload: Sendable, Equatable {
        /// Settings that differ from the running ones but are read at start only (the listening
        /// limits, the jobs' intervals, the webhook endpoint, `metrics.listen`, the breaker): they
        /// take effect at the next restart. Everything else — credentials, keys, certificates,
        /// URLs, the catalog, coupons, checkout settings, API keys — answers the next request.
        public let needsRestart: [String]
    }

    /// Answers every request from now on with `configuration`: a new app (router, adapters,
    /// ledger, API keys) is built over the same store, jobs, metrics and order streams, and
    /// swapped in at once. Requests already being answered finish with the configuration they
    /// started with; nothing is drained, nothing waits, nothing is refused meanwhile.
    ///
    /// WeChat Pay v3's platform certificates downloaded so far are kept when the merchant is the
    /// same, so notifications verify at once under the new configuration; when there are none
    /// (another merchant), they are downloaded before the swap.
    ///
    /// ```swift
    /// let file = try ConfigurationFile(contentsOf: url)  // refused whole when anything is wrong
    /// let reload = await server.reload(file.configuration)
    /// ```
    /// - Parameter configuration: the new configuration, checked already (``ConfigurationFile``
    ///   refuses a file with anything wrong in it, and the running one then stays).
    /// - Returns: what needs a restart to change.
    @discardableResult
    public func reload(_ configuration: MerchantConfiguration) async -> Reload {
        let old = app.configuration
        Self.keepPlatformCertificates(from: old, in: configuration)
        let fresh = MerchantApp(configuration: configuration, shared: shared)
        // A merchant whose platform certificates the running app did not have (another merchant,
        // or none downloaded yet): downloaded before the swap, so its first answers verify.
        let lacking = [configuration.wechatV3, configuration.serviceProvider?.wechatV3].contains { v3 in
            v3.map { $0.downloadsPlatformCertificates && $0.platformKeys.serials.isEmpty } ?? false
        }
        if lacking {
            for adapter in fresh.ledger.adapters.keyMaintaining { await adapter.maintainKeys() }
        }
        slot.replace(with: fresh)
        shared.metrics.increment("cashier_config_reloads_total", ["result": "applied"])
        return Reload(needsRestart: Self.startOnlyChanges(from: old, to: configuration))
    }

    /// Counts a reload refused before it reached ``reload(_:)`` (the file did not check out: the
    /// running configuration stays), for `/metrics`.
    public func reloadRefused() {
        shared.metrics.increment("cashier_config_reloads_total", ["result": "refused"])
    }

    /// The new configuration's v3 platform keys take the running ones' (same merchant only).
    static func keepPlatformCertificates(from old: MerchantConfiguration, in new: MerchantConfiguration) {
        let pairs = [(old.wechatV3, new.wechatV3), (old.serviceProvider?.wechatV3, new.serviceProvider?.wechatV3)]
        for case (let before?, let after?) in pairs
        where before.merchant.mchID == after.merchant.mchID && after.downloadsPlatformCertificates {
            after.platformKeys.adopt(before.platformKeys)
        }
    }

    /// The settings read at start only that differ between `old` and `new`, by their file names.
    static func startOnlyChanges(from old: MerchantConfiguration, to new: MerchantConfiguration) -> [String] {
        var changed: [String] = []
        func compare<T: Equatable>(_ name: String, _ path: KeyPath<MerchantConfiguration, T>) {
            if old[keyPath: path] != new[keyPath: path] { changed.append(name) }
        }
        compare("http.per_ip_connection_limit", \.perIPConnectionLimit)
        compare("http.request_deadline_seconds", \.requestDeadlineSeconds)
        compare("jobs.query_interval_seconds", \.queryInterval)
        compare("jobs.expiry_interval_seconds", \.expiryInterval)
        compare("jobs.refund_interval_seconds", \.refundInterval)
        compare("jobs.webhook_interval_seconds", \.webhookInterval)
        compare("jobs.lease_seconds", \.jobLease)
        compare("breaker", \.breakerThreshold)
        if old.metricsListen?.host != new.metricsListen?.host || old.metricsListen?.port != new.metricsListen?.port {
            changed.append("metrics.listen")
        }
        if old.webhook?.url != new.webhook?.url || old.webhook?.secret != new.webhook?.secret
            || old.webhook?.concurrency != new.webhook?.concurrency
        {
            changed.append("webhook")
        }
        if (old.wechatV3?.downloadsPlatformCertificates ?? false) != (new.wechatV3?.downloadsPlatformCertificates ?? false) {
            changed.append("wechat_v3.platform_public_key_file")
        }
        return changed
    }

    /// The gauges of `/metrics`, measured now: each configured certificate's days left (and
    /// WeChat Pay v3's downloaded platform certificates'), and the webhook outbox's backlog.
    static func gauges(_ app: MerchantApp, clock: any WallClock) async -> [ServerMetrics.Gauge] {
        let now = clock.now()
        let configuration = app.configuration
        var gauges = configuration.certificates.map { certificate in
            ServerMetrics.Gauge(
                name: "cashier_certificate_expiry_days", labels: ["certificate": certificate.name],
                value: (certificate.daysLeft(at: now) * 1000).rounded(.down) / 1000)
        }
        for (name, v3) in [("wechat_v3", configuration.wechatV3), ("service_provider.wechat_v3", configuration.serviceProvider?.wechatV3)] {
            guard let v3 else { continue }
            for (serial, end) in v3.platformKeys.certificateExpiries {
                gauges.append(
                    ServerMetrics.Gauge(
                        name: "cashier_certificate_expiry_days", labels: ["certificate": "\(name).platform.\(serial)"],
                        value: (MonitoredCertificate(name: "", notValidAfter: end).daysLeft(at: now) * 1000).rounded(.down) / 1000))
            }
        }
        if configuration.webhook != nil, let due = try? await app.ledger.store.dueOutbox(now: now, limit: 1000) {
            let oldest = due.map { $0.createdAt ?? $0.nextAttemptAt }.min()
            gauges.append(ServerMetrics.Gauge(name: "cashier_webhook_outbox_due", labels: [:], value: Double(due.count)))
            gauges.append(
                ServerMetrics.Gauge(
                    name: "cashier_webhook_outbox_oldest_due_seconds", labels: [:],
                    value: oldest.map { max(0, now.timeIntervalSince($0).rounded()) } ?? 0))
        }
        return gauges
    }
}
