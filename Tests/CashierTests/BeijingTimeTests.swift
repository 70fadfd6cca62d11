import Foundation
import TestSupport
import Testing

@testable import Cashier

@Suite struct BeijingTimeTests {
    @Test func knownAnswers() {
        let instant = Date(timeIntervalSince1970: 1_796_083_199.999)  // 2026-11-30 23:59:59.999 UTC
        #expect(BeijingTime.string(from: instant, .compact) == "20261201075959")
        #expect(BeijingTime.string(from: instant, .dateTime) == "2026-12-01 07:59:59")
        #expect(BeijingTime.string(from: instant, .day) == "2026-12-01")
        #expect(BeijingTime.string(from: instant, .rfc3339) == "2026-12-01T07:59:59+08:00")
        // 2024-02-29 16:00:00 UTC is midnight on 1 March in Beijing (a leap day behind it).
        #expect(BeijingTime.string(from: Date(timeIntervalSince1970: 1_709_222_400), .dateTime) == "2024-03-01 00:00:00")
        #expect(BeijingTime.string(from: Date(timeIntervalSince1970: 0), .compact) == "19700101080000")
        // Within half a millisecond of the next second is the next second, as ICU counts.
        #expect(BeijingTime.string(from: Date(timeIntervalSince1970: 1_796_083_199.9996), .compact) == "20261201080000")
    }

    /// The arithmetic agrees with ICU's `Asia/Shanghai` formatter on every layout, at random
    /// instants from 1992 (China's last daylight-saving time ended in 1991) to 2199, fractions
    /// of a second included, and on the turns of days, months and (leap) years. On a thread of its
    /// own: thousands of ICU calls would hold one of the two cooperative threads every other test's
    /// server runs on.
    @Test func agreesWithDateFormatter() async throws {
        let mismatches = try await onOwnThread { () -> [String] in
            var generator = SystemRandomNumberGenerator()
            var instants = (0..<5000).map { _ in
                Date(timeIntervalSince1970: Double.random(in: 694_224_000...7_258_118_400, using: &generator))
            }
            for year in [1992, 2000, 2024, 2026, 2100] {
                for month in [1, 2, 3, 12] {
                    let turn = DateComponents(
                        calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "Asia/Shanghai"), year: year,
                        month: month, day: 1)
                    guard let date = turn.date else { continue }
                    instants += [date, date.addingTimeInterval(-0.5), date.addingTimeInterval(-1), date.addingTimeInterval(86_399.75)]
                }
            }
            var mismatches: [String] = []
            for layout in [BeijingTime.Layout.compact, .dateTime, .day, .rfc3339] {
                let formatter = BeijingTime.formatter(layout.format)
                for instant in instants where BeijingTime.string(from: instant, layout) != formatter.string(from: instant) {
                    mismatches.append("\(layout) \(instant.timeIntervalSince1970)")
                }
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
    }
}
