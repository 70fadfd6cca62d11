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
        let (days, second) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = civil(days: days)
        guard (1...9999).contains(year) else { return formatter(layout.format).string(from: date) }
        let digits = CivilDigits(year: year, month: month, day: day, second: second)
        switch layout {
        case .compact: return digits.text("YMDhms")
        case .dateTime: return digits.text("Y-M-D h:m:s")
        case .day: return digits.text("Y-M-D")
        case .rfc3339: return digits.text("Y-M-DTh:m:s+08:00")
        }
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

/// The fields of one civil date and time, written into a layout without `String` interpolation.
private struct CivilDigits {
    let year: Int
    let month: Int
    let day: Int
    let second: Int

    /// `pattern` with `Y` → four-digit year, `M`, `D`, `h`, `m`, `s` → two digits; other
    /// characters as they are.
    func text(_ pattern: StaticString) -> String {
        let template = UnsafeBufferPointer(start: pattern.utf8Start, count: pattern.utf8CodeUnitCount)
        let length = template.reduce(0) { $0 + ($1 == UInt8(ascii: "Y") ? 4 : $1 >= 0x61 || $1 == 0x4D || $1 == 0x44 ? 2 : 1) }
        return String(unsafeUninitializedCapacity: length) { out in
            var at = 0
            func put(_ value: Int, width: Int) {
                var value = value
                for index in stride(from: at + width - 1, through: at, by: -1) {
                    out[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                at += width
            }
            for byte in template {
                switch byte {
                case UInt8(ascii: "Y"): put(year, width: 4)
                case UInt8(ascii: "M"): put(month, width: 2)
                case UInt8(ascii: "D"): put(day, width: 2)
                case UInt8(ascii: "h"): put(second / 3600, width: 2)
                case UInt8(ascii: "m"): put(second / 60 % 60, width: 2)
                case UInt8(ascii: "s"): put(second % 60, width: 2)
                default:
                    out[at] = byte
                    at += 1
                }
            }
            return at
        }
    }
}

extension Int {
    /// Quotient and remainder rounded toward negative infinity (the remainder is never negative).
    fileprivate func floorDivided(by divisor: Int) -> (quotient: Int, remainder: Int) {
        let remainder = self % divisor
        return remainder < 0 ? (self / divisor - 1, remainder + divisor) : (self / divisor, remainder)
    }
}
