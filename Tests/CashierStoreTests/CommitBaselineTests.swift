import Foundation
import TestSupport
import Testing

@testable import CashierStore

/// The benchmarks' baseline: each counted commit is a real, separate, durable transaction, and its
/// time is measured from `BEGIN` to the end of `COMMIT`.
@Suite struct CommitBaselineTests {
    private func check(_ baseline: CommitBaseline, rows: Int, duration: Double) {
        #expect(baseline.commits > 0)
        #expect(rows == baseline.commits, "every counted commit left its row")
        #expect(baseline.p50Milliseconds > 0 && baseline.p50Milliseconds <= baseline.p99Milliseconds)
        // commits ÷ rate is the time measured: at least the duration asked for, and not much more
        // than it plus the slowest commit (the last one may start just before the end).
        let measured = Double(baseline.commits) / baseline.rate
        #expect(measured >= duration * 0.99 && measured < duration + 5, "\(measured) s")
        // No commit took longer than the whole measurement.
        #expect(baseline.p99Milliseconds <= measured * 1000)
    }

    @Test func sqliteCommitsAreCountedTimedAndDurable() throws {
        let folder = Scratch.url("baseline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("baseline.db").path
        let baseline = try SQLiteOrderStore.singleRowCommits(path: path, duration: .milliseconds(300))
        let rows = try SQLiteConnection(path: path).query("SELECT count(*) AS n FROM baseline").first?.integer("n")
        check(baseline, rows: Int(rows ?? -1), duration: 0.3)
    }

    @Test(.enabled(if: TestPostgres.url != nil, "needs the PostgreSQL test cluster"))
    func postgresCommitsAreCountedAndTimedAndTheScratchTableIsDropped() async throws {
        let url = try await TestPostgres.freshDatabase()
        let baseline = try PostgresOrderStore.singleRowCommits(url: url, duration: .milliseconds(300))
        #expect(baseline.commits > 0 && baseline.p50Milliseconds > 0 && baseline.p50Milliseconds <= baseline.p99Milliseconds)
        let measured = Double(baseline.commits) / baseline.rate
        #expect(measured >= 0.3 * 0.99 && measured < 5.3, "\(measured) s")
        let left = try PostgresConnection(url: url).query("SELECT to_regclass('cashier_bench_baseline') IS NULL AS dropped")
        #expect(try left.first?.integer("dropped") == 1, "the scratch table is dropped")
    }

    @Test func twoMeasurementsAreAveragedAndTheirCommitsAdded() {
        let mean = CommitBaseline.mean(
            CommitBaseline(rate: 1000, p50Milliseconds: 1, p99Milliseconds: 4, commits: 3000),
            CommitBaseline(rate: 3000, p50Milliseconds: 0.5, p99Milliseconds: 2, commits: 9000))
        #expect(mean == CommitBaseline(rate: 2000, p50Milliseconds: 0.75, p99Milliseconds: 3, commits: 12000))
    }
}
