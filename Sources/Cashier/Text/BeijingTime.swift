public import Foundation

/// China Standard Time (UTC+8, `Asia/Shanghai`), in which WeChat Pay and Alipay write every
/// timestamp, bill date and `time_end`.
public enum BeijingTime {
    /// A formatter for `format` (e.g. `yyyy-MM-dd HH:mm:ss`) in Beijing time with fixed,
    /// locale-independent digits.
    public static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.dateFormat = format
        formatter.timeZone = TimeZone(identifier: "Asia/Shanghai")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter
    }
}
