import Cashier
import CashierServer
import CashierStore
import Foundation

/// `cashier-bench scale --orders N [--db postgres://…]`: a store filled with `N` orders of a
/// two-year history (``ScaleHistory``, written by the store's bulk path), then measured as a big
/// merchant uses it, one line per figure:
///
/// - `scale-notify-vs-empty`: notifications a second on the full store ÷ on an empty one (``ScaleNotify``);
/// - `scale-dashboard-p99`: the worst p99 of the dashboard's pages (``ScaleDashboard``), each page's on a line of its own;
/// - `scale-export-vs-sqlite3` (`scale-export-vs-psql`): a month's CSV export ÷ the database's own (``ScaleExport``);
/// - `scale-reconcile`: a day's reconciliation against bills of up to `billLines` lines each, as a
///   multiple of parsing the bills alone (a cost: lower is better) (``ScaleReconcile``);
/// - `scale-migrate`: the migrations after `020_complaints` applied to the full store.
///
/// SQLite by default, in a fresh file in a temporary folder; `--db` names an empty PostgreSQL
/// database (`scripts/pg start DIR`), beside which an empty one is made for the comparison and dropped.
enum ScaleSuite {
    /// The migration the store is left at before it is filled: the later ones are timed on the full store.
    static let filledAt = "020_complaints"

    struct Options: Sendable {
        var orders: Int
        var database: String?
        var seconds: Int
        var billLines: Int
        var samples: Int
    }

    static func run(_ options: Options, report: (String) -> Void) throws {
        let lines = try ServerSuite.blocking { try await measure(options) }
        lines.forEach(report)
    }

    /// Progress, on standard error: filling ten million orders takes a while.
    static func say(_ text: String) {
        FileHandle.standardError.write(Data("scale: \(text)\n".utf8))
    }

    static func measure(_ options: Options) async throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cashier-bench-scale-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // CASHIER_BENCH_KEEP=1 keeps the run's folder (the SQLite store, the bills) to examine or
        // profile afterwards, e.g. the reconciliation's child on its own.
        let keep = ProcessInfo.processInfo.environment["CASHIER_BENCH_KEEP"] == "1"
        defer {
            if keep { say("kept \(folder.path)") } else { try? FileManager.default.removeItem(at: folder) }
        }
        let stores = try await ScaleStores.open(options.database, folder: folder)
        do {
            let lines = try await measure(options, stores: stores, folder: folder)
            await stores.close()
            return lines
        } catch {
            await stores.close()
            throw error
        }
    }

    static func measure(_ options: Options, stores: ScaleStores, folder: URL) async throws -> [String] {
        let store = stores.full
        var lines: [String] = []
        try await stores.migrateFull(filledAt)
        try await stores.empty.migrate()
        let history = ScaleHistory(count: options.orders, end: Date())
        say("filling the store with \(options.orders) orders")
        let fillSeconds = try await history.fill(store)
        say(String(format: "filled in %.1f s", fillSeconds))
        let clock = ContinuousClock()
        let started = clock.now
        let applied = try await store.migrate()
        let migrateSeconds = (clock.now - started) / .seconds(1)
        try stores.analyze()

        say("notifications, full store against empty")
        let notify = try await ScaleNotify(seconds: options.seconds, folder: folder).compare(full: store, empty: stores.empty)
        lines.append(
            String(
                format:
                    "scale-notify-vs-empty ratio=%.2f notify_ops=%.0f empty_notify_ops=%.0f orders=%d fill_seconds=%.1f fill_orders_ops=%.0f",
                notify.full / max(notify.empty, 1e-9), notify.full, notify.empty, options.orders, fillSeconds,
                Double(options.orders) / max(fillSeconds, 1e-9)))

        say("dashboard pages")
        let pages = try await ScaleDashboard(store: store, history: history, samples: options.samples).measure()
        let worst = pages.max { $0.p99 < $1.p99 }
        lines.append(
            String(
                format: "scale-dashboard-p99 p99=%.2f ms worst=%@ p50=%.2f ms pages=%d samples=%d orders=%d", worst?.p99 ?? 0,
                worst?.name ?? "none", worst?.p50 ?? 0, pages.count, options.samples, options.orders))
        for page in pages {
            lines.append(
                String(format: "scale-dashboard-page-%@ p50=%.2f ms p99=%.2f ms found=%d", page.name, page.p50, page.p99, page.found))
        }

        say("a month's export")
        lines.append(try await export(history: history, stores: stores, folder: folder))

        say("reconciliation")
        let location: String
        switch stores.database {
        case .sqlite(let path): location = path
        case .postgres(let url): location = url
        }
        let reconcile = try await ScaleReconcile(history: history, lines: options.billLines, location: location, folder: folder).measure()
        say("reconciliation: \(reconcile.kinds.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", "))")
        lines.append(
            String(
                format:
                    "scale-reconcile ratio=%.2f seconds=%.2f rss=%.0f MB wechat_lines=%d alipay_lines=%d parse_seconds=%.2f "
                    + "parse_rss=%.0f MB rss_before=%.0f MB matched=%d discrepancies=%d",
                reconcile.seconds / max(reconcile.parseSeconds, 1e-9), reconcile.seconds, reconcile.peakMegabytes, reconcile.wechatLines,
                reconcile.alipayLines, reconcile.parseSeconds, reconcile.parsePeakMegabytes, reconcile.startMegabytes, reconcile.matched,
                reconcile.discrepancies))
        lines.append(
            String(
                format: "scale-migrate seconds=%.2f migrations=%@ orders=%d", migrateSeconds,
                applied.isEmpty ? "none" : applied.joined(separator: ","), options.orders))
        return lines
    }

    /// The export line: a server on the full store, asked for the month a year before the history's end.
    static func export(history: ScaleHistory, stores: ScaleStores, folder: URL) async throws -> String {
        let keys = MerchantConfiguration.generateKeys()
        let configuration = MerchantConfiguration(secretKey: keys.secret, publishableKey: keys.publishable)
        let server = MerchantServer(configuration: configuration, store: stores.full)
        try await server.start()
        let month = ScaleExport.month(before: history.end, months: 12, timeZone: configuration.timeZone)
        let measured: ScaleExport.Result
        do {
            measured = try await OwnThread.run {
                try ScaleExport(
                    base: server.baseURL, secretKey: keys.secret, database: stores.database, folder: folder, from: month.from, to: month.to,
                    start: Int64(month.start.timeIntervalSince1970 * 1000), end: Int64(month.end.timeIntervalSince1970 * 1000)
                ).measure()
            }
            await server.stop()
        } catch {
            await server.stop()
            throw error
        }
        let rate = Double(measured.rows) / max(measured.seconds, 1e-9)
        let baseline = Double(measured.baselineRows) / max(measured.baselineSeconds, 1e-9)
        let name = stores.database.isPostgres ? "psql" : "sqlite3"
        return String(
            format:
                "scale-export-vs-%@ ratio=%.2f rss=%.0f MB rows=%d cashier_rows_ops=%.0f %@_rows_ops=%.0f %@_rows=%d rss_before=%.0f MB month=%@",
            name, rate / max(baseline, 1e-9), measured.peakMegabytes - measured.startMegabytes, measured.rows, rate, name, baseline, name,
            measured.baselineRows,
            measured.startMegabytes, String(month.from.prefix(7)))
    }
}
