import Cashier
import ChildProcesses
import Foundation
import TestSupport
import Testing

/// `cashier-bench scale` as `make bench` runs it, on a small store: every line it promises, each
/// with numbers that make sense. Speeds are never asserted (the machine is shared); the counts are.
@Suite struct ScaleBenchTests {
    static let binary = packageRoot.appendingPathComponent(".build/debug/cashier-bench")

    /// `name key=value …` lines by name, each a dictionary of its numbers (`p99=1.2 ms` reads as `p99` 1.2).
    static func figures(_ output: String) -> [String: [String: Double]] {
        var lines: [String: [String: Double]] = [:]
        for line in output.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let name = words.first else { continue }
            var values: [String: Double] = [:]
            for word in words.dropFirst() {
                let pair = word.split(separator: "=", maxSplits: 1)
                if pair.count == 2, let value = Double(pair[1]) { values[String(pair[0])] = value }
            }
            lines[String(name)] = values
        }
        return lines
    }

    @Test(.timeLimit(.minutes(2)))
    func printsEveryLineWithSaneNumbers() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.binary.path), "build the executables first (swift build)")
        let orders = 2000
        let output = Pipe()
        let process = try ChildProcess(
            Self.binary.path, ["scale", "--orders", "\(orders)", "--seconds", "1", "--bill-lines", "500", "--samples", "5"],
            stdout: .pipe(output), stderr: .null)
        let text = String(decoding: try output.fileHandleForReading.readToEndRetrying(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        let lines = Self.figures(text)

        let notify = try #require(lines["scale-notify-vs-empty"], "\(text)")
        #expect(notify["ratio"].map { $0 > 0 } == true && notify["notify_ops"].map { $0 > 0 } == true, "\(text)")
        #expect(notify["orders"] == Double(orders))

        let dashboard = try #require(lines["scale-dashboard-p99"], "\(text)")
        #expect(dashboard["p99"].map { $0 > 0 && $0.isFinite } == true && dashboard["pages"] == 22, "\(text)")
        // Every page found records, but a week's (two years of 2,000 orders hold about 20 orders
        // and one refund a week).
        let pages = lines.filter { $0.key.hasPrefix("scale-dashboard-page-") }
        #expect(pages.count == 22, "\(text)")
        for (name, page) in pages where !name.hasSuffix("-week") {
            #expect(page["found"].map { $0 >= 1 } == true, "\(name): \(text)")
        }

        let export = try #require(lines["scale-export-vs-sqlite3"], "\(text)")
        // The month's payments, the same count both ways.
        #expect(export["rows"].map { $0 > 0 } == true && export["rows"] == export["sqlite3_rows"], "\(text)")
        // The peak is its growth over what the process held before: zero or more.
        #expect(export["ratio"].map { $0 > 0 } == true && export["rss"].map { $0 >= 0 } == true, "\(text)")

        let reconcile = try #require(lines["scale-reconcile"], "\(text)")
        // Every bill line is a payment here, so every payment line is matched.
        let billed = (reconcile["wechat_lines"] ?? 0) + (reconcile["alipay_lines"] ?? 0)
        #expect(billed > 0 && (reconcile["matched"] ?? 0) >= billed * 0.9, "\(text)")
        #expect(reconcile["seconds"].map { $0 > 0 } == true && reconcile["ratio"].map { $0 > 0 } == true, "\(text)")

        let migrate = try #require(lines["scale-migrate"], "\(text)")
        #expect(migrate["seconds"].map { $0 >= 0 } == true && text.contains("migrations=021_scale_indexes"), "\(text)")
    }
}
