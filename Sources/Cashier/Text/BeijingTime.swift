public import Foundation

/// China Standard Time (UTC+8, `Asia/Shanghai`), in which WeChat Pay and Alipay write every
/// timestamp, bill date and `time_end`.
///
/// The layouts the providers use on every request are written by ``string(from:_:)`` with
/// arithmetic: China has kept UTC+8 all year since 1992, so no time-zone database is needed,
/// and a `DateFormatter` (ICU builds a calendar, symbols and a number formatter for each one)
/// cost more than signing the request it stamped. ``formatter(_:)`` remains for other layouts.
public enum BeijingTime {
    /// A layout the providers write.
    public enum Layout: Sendable {
        /// `yyyyMMddHHmmss` (WeChat Pay v2 `time_end`, `time_expire`).
        case compact
        /// `yyyy-MM-dd HH:mm:ss` (Alipay's `timestamp`, `gmt_payment`; WeChat Pay v2 refund times).
        case dateTime
        /// `yyyy-MM-dd` (bill dates).
        case day
        /// `yyyy-MM-ddTHH:mm:ss+08:00` (WeChat Pay v3's RFC 3339 times).
        case rfc3339

        /// The layout as a `DateFormatter` format.
        public var format: String {
            switch self {
            case .compact: "yyyyMMddHHmmss"
            case .dateTime: "yyyy-MM-dd HH:mm:ss"
            case .day: "yyyy-MM-dd"
            case .rfc3339: "yyyy-MM-dd'T'HH:mm:ssXXXXX"
            }
        }
    }

    /// Seconds east of UTC.
    public static let secondsFromGMT = 8 * 3600

    /// `date` in Beijing time, in `layout`. As with a `DateFormatter` (ICU counts whole
    /// milliseconds), the instant is rounded to the millisecond and the fraction of a second dropped.
    public static func string(from date: Date, _ layout: Layout) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = Int((milliseconds / 1000).rounded(.down)) + secondsFromGMT
        let days = (seconds >= 0 ? seconds : seconds - 86_399) / 86_400  // rounded down, before 1970 too
        let second = seconds - days * 86_400
        let (year, month, day) = civil(days: days)
        guard (1...9999).contains(year) else { return formatter(layout.format).string(from: date) }
        var out: [UInt8] = []
        out.reserveCapacity(25)
        func put(_ value: Int, width: Int) {
            var divisor = width == 4 ? 1000 : 10
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        func putDate(_ separator: String) {
            put(year, width: 4)
            out += separator.utf8
            put(month, width: 2)
            out += separator.utf8
            put(day, width: 2)
        }
        func putTime(_ separator: String) {
            put(second / 3600, width: 2)
            out += separator.utf8
            put(second / 60 % 60, width: 2)
            out += separator.utf8
            put(second % 60, width: 2)
        }
        switch layout {
        case .compact:
            putDate("")
            putTime("")
        case .dateTime:
            putDate("-")
            out.append(UInt8(ascii: " "))
            putTime(":")
        case .day:
            putDate("-")
        case .rfc3339:
            putDate("-")
            out.append(UInt8(ascii: "T"))
            putTime(":")
            out += "+08:00".utf8
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A formatter for `format` (e.g. `yyyy年MM月dd日`) in Beijing time with fixed,
    /// locale-independent digits. Prefer ``string(from:_:)`` for the layouts it knows.
    public static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.dateFormat = format
        formatter.timeZone = TimeZone(identifier: "Asia/Shanghai")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468  // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
