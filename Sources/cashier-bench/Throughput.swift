import Foundation

/// Measures how many times a second an operation runs, by the wall clock.
///
/// The operation runs in batches until `seconds` have passed, after a short warm-up. Figures
/// from one machine are only compared with figures taken in the same run.
enum Throughput {
    static func operationsPerSecond(seconds: Double, _ operation: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        for _ in 0..<10 { try operation() }
        var batch = 1
        var count = 0
        let start = clock.now
        let deadline = start.advanced(by: .milliseconds(Int(seconds * 1000)))
        var now = start
        while now < deadline {
            for _ in 0..<batch { try operation() }
            count += batch
            now = clock.now
            if batch < 4096 { batch *= 2 }
        }
        let elapsed = (now - start) / .nanoseconds(1)
        return Double(count) / (elapsed / 1e9)
    }

    /// Measures the baseline and Cashier alternately `rounds` times and keeps the best of each:
    /// on a noisy machine the best run is the one least disturbed.
    static func bestOfAlternating(
        rounds: Int = 3,
        baseline: () throws -> Double,
        cashier: () throws -> Double
    ) rethrows -> (cashier: Double, baseline: Double) {
        var best = (cashier: 0.0, baseline: 0.0)
        for _ in 0..<rounds {
            best.baseline = max(best.baseline, try baseline())
            best.cashier = max(best.cashier, try cashier())
        }
        return best
    }

    /// `<name> ratio=<a ÷ b> <label>_ops=<a> <baseline>_ops=<b>`, rounded for reading.
    static func line(_ name: String, cashier: Double, baseline: Double, baselineName: String = "openssl") -> String {
        let ratio = baseline > 0 ? cashier / baseline : 0
        return
            "\(name) ratio=\(String(format: "%.2f", ratio)) cashier_ops=\(Int(cashier.rounded())) \(baselineName)_ops=\(Int(baseline.rounded()))"
    }
}
