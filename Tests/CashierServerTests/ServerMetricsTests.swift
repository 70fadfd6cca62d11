import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// `/metrics` shows every series the server counts. A counter missing from the descriptions was
/// once left out of the text altogether (refunds and duplicate payments were counted and never
/// shown).
@Suite struct ServerMetricsTests {
    /// The names the server's sources count, read from their `metrics.increment("…"` calls.
    static func countedNames() throws -> Set<String> {
        let folder = packageRoot.appendingPathComponent("Sources/CashierServer")
        let pattern = try NSRegularExpression(pattern: #"metrics\.increment\(\s*"([a-z_]+)""#)
        var names = Set<String>()
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            guard file.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
            }
        }
        return names
    }

    @Test func everySeriesTheServerCountsIsDescribedAndShown() async throws {
        let names = try Self.countedNames()
        #expect(names.isSuperset(of: ["cashier_refunds_total", "cashier_duplicate_payments_total", "cashier_reports_not_applied_total"]))
        let metrics = ServerMetrics()
        for name in names {
            #expect(ServerMetrics.help[name] != nil, "\(name) is counted but not described")
            metrics.increment(name, ["provider": "wechat.v2"])
        }
        let text = await metrics.render()
        for name in names {
            #expect(text.contains("# HELP \(name) "), "\(name)")
            #expect(text.contains("\(name){provider=\"wechat.v2\"} 1\n"), "\(name)")
        }
    }

    @Test func aSeriesWithoutADescriptionIsStillShown() async {
        let metrics = ServerMetrics()
        metrics.increment("cashier_undescribed_total")
        metrics.increment("cashier_undescribed_total", ["kind": "a"])
        let text = await metrics.render()
        #expect(
            text.contains(
                "# TYPE cashier_undescribed_total counter\ncashier_undescribed_total 1\ncashier_undescribed_total{kind=\"a\"} 1\n"),
            "\(text)")
        #expect(!text.contains("# HELP cashier_undescribed_total"))
    }
}
