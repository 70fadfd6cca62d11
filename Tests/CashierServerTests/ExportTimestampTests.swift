import Cashier
import Foundation
import TestSupport
import Testing

@testable import CashierServer

/// The exports' own ISO 8601 writer against Foundation's `Date.ISO8601FormatStyle`, which wrote
/// every export's times before: the same text for every time and zone, daylight saving's
/// transitions, negative offsets, half-hour zones, the offset of zero (`Z`) and times before 1970
/// and 1900 included.
struct ExportTimestampTests {
    static let zones = [
        "Asia/Shanghai", "GMT", "UTC", "Europe/London", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Asia/Kathmandu",
        "America/St_Johns", "Pacific/Kiritimati", "Pacific/Pago_Pago",
    ]

    @Test(arguments: zones)
    func writesWhatFoundationWrites(zone: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let style = Date.ISO8601FormatStyle(timeZone: timeZone)
        var stamp = ExportTimestamp(timeZone: timeZone)
        var (generator, _) = SeededRandom.forTest("ExportTimestampTests \(zone)")
        var times: [Double] = [
            0, -1.5, -0.001, 1_764_547_200, 1_764_547_199.999, -2_208_988_800, -2_208_988_801, -3_000_000_000, 253_402_214_399,
            253_402_300_800, -62_135_596_800,
        ]
        // Every quarter hour across two years of transitions, then times anywhere in 1900…2100 to the millisecond.
        for quarter in stride(from: 1_700_000_000.0, to: 1_763_000_000, by: 900) { times.append(quarter) }
        for _ in 0..<20_000 {
            times.append(Double(Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator)) / 1000)
        }
        for time in times {
            let date = Date(timeIntervalSince1970: time)
            #expect(stamp.string(date) == date.formatted(style), "\(zone) at \(time)")
        }
        #expect(stamp.string(nil) == "")
    }

    @Test func writesTimesOutOfOrder() throws {
        let timeZone = try #require(TimeZone(identifier: "America/New_York"))
        let style = Date.ISO8601FormatStyle(timeZone: timeZone)
        var stamp = ExportTimestamp(timeZone: timeZone)
        // Either side of the spring and autumn transitions of 2025, back and forth.
        for time in [1_741_590_000.0, 1_741_500_000, 1_762_149_600, 1_741_590_000, 1_762_149_599, 1_762_149_601, 1_741_589_999] {
            let date = Date(timeIntervalSince1970: time)
            #expect(stamp.string(date) == date.formatted(style), "\(time)")
        }
    }
}
