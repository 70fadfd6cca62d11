import Foundation

/// Beijing time as bills write it (`yyyy-MM-dd HH:mm:ss`, or the day alone): UTC+8 all year, so
/// a million lines' times are formatted without a `DateFormatter` each (that took most of the
/// bills' generation).
struct BeijingClock {
    let withTime: Bool

    func string(from date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down)) + 8 * 3600
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let day = String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
        guard withTime else { return day }
        return day + String(format: " %02d:%02d:%02d", Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
