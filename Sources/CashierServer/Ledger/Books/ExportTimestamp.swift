import Foundation

/// An export's times as `Date.ISO8601FormatStyle(timeZone:)` writes them (`2025-12-01T08:00:00+0800`,
/// `…Z` at a zero offset, the seconds dropped toward the past), written as UTF-8 bytes without
/// Foundation for each: an export writes two a row, and formatting them was a fifth of its time.
///
/// The zone's offset is asked of Foundation once for a stretch of time (until the zone's next
/// transition), not once a time; the calendar fields are worked out from the day number. Times
/// before 1900 or from 10000 on, and offsets with seconds (a zone's local mean time before its
/// first standard offset), are formatted by Foundation, as before.
///
/// ```swift
/// var stamp = ExportTimestamp(timeZone: TimeZone(identifier: "Asia/Shanghai")!)
/// var bytes: [UInt8] = []
/// stamp.append(Date(timeIntervalSince1970: 1_764_547_200), to: &bytes)  // 2025-12-01T08:00:00+0800
/// ```
struct ExportTimestamp {
    let timeZone: TimeZone
    private let style: Date.ISO8601FormatStyle
    /// Where the cached offset holds, in seconds since 1970: from `start` until before `end`.
    private var start: Int64 = 1
    private var end: Int64 = 0
    private var offset = 0
    /// The offset as written: `Z`, `+0800`.
    private var suffix: [UInt8] = []

    init(timeZone: TimeZone) {
        self.timeZone = timeZone
        style = Date.ISO8601FormatStyle(timeZone: timeZone)
    }

    /// The first second Foundation's Gregorian calendar and this one agree on a four-digit year: 1900-01-01 (UTC).
    private static let earliest: Int64 = -2_208_988_800
    /// 9999-12-31, the last day with a four-digit year, ends before this (UTC, less a day for any offset).
    private static let latest: Int64 = 253_402_300_800 - 86_400

    /// `date` written as ``ExportTimestamp`` describes.
    mutating func append(_ date: Date, to bytes: inout [UInt8]) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds >= Double(Self.earliest), seconds < Double(Self.latest) else {
            bytes.append(contentsOf: date.formatted(style).utf8)
            return
        }
        append(seconds: Int64(seconds), date: date, to: &bytes)
    }

    /// `date` as a string, for the fields still written as strings.
    mutating func string(_ date: Date?) -> String {
        guard let date else { return "" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func append(seconds: Int64, date: Date, to bytes: inout [UInt8]) {
        if seconds < start || seconds >= end { locate(seconds, date) }
        guard offset % 60 == 0 else {
            bytes.append(contentsOf: date.formatted(style).utf8)
            return
        }
        let local = seconds + Int64(offset)
        let (days, time) = Self.floorDivision(local, 86_400)
        let (year, month, day) = Self.civil(days)
        Self.digits(year, 4, &bytes)
        bytes.append(0x2D)
        Self.digits(month, 2, &bytes)
        bytes.append(0x2D)
        Self.digits(day, 2, &bytes)
        bytes.append(0x54)
        Self.digits(Int(time / 3600), 2, &bytes)
        bytes.append(0x3A)
        Self.digits(Int(time / 60 % 60), 2, &bytes)
        bytes.append(0x3A)
        Self.digits(Int(time % 60), 2, &bytes)
        bytes.append(contentsOf: suffix)
    }

    /// The zone's offset at `seconds`, and how long it holds: until its next transition.
    private mutating func locate(_ seconds: Int64, _ date: Date) {
        offset = timeZone.secondsFromGMT(for: date)
        start = seconds
        end = timeZone.nextDaylightSavingTimeTransition(after: date).map { Int64($0.timeIntervalSince1970.rounded(.down)) } ?? .max
        if end <= start { end = start + 1 }
        suffix = []
        if offset == 0 {
            suffix = [0x5A]
        } else {
            suffix = [offset < 0 ? 0x2D : 0x2B]
            let minutes = abs(offset) / 60
            Self.digits(minutes / 60, 2, &suffix)
            Self.digits(minutes % 60, 2, &suffix)
        }
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// The proleptic Gregorian year, month and day of a day counted from 1970-01-01 (Howard
    /// Hinnant's `civil_from_days`).
    private static func civil(_ days: Int64) -> (Int, Int, Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0)), Int(month), Int(day))
    }

    /// `value` in `count` decimal digits, zeros first.
    private static func digits(_ value: Int, _ count: Int, _ bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
