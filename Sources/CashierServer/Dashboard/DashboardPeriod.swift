import Foundation

/// The overview's periods: today by the hour, the last 7 and 30 days by the day, in the
/// merchant's time zone.
enum DashboardPeriod: String, CaseIterable, Sendable {
    case today
    case week = "7d"
    case month = "30d"

    var days: Int {
        switch self {
        case .today: 1
        case .week: 7
        case .month: 30
        }
    }

    var title: String {
        switch self {
        case .today: "Today"
        case .week: "Last 7 days"
        case .month: "Last 30 days"
        }
    }

    /// One bar of the chart: an hour today, a day otherwise.
    var bucket: TimeInterval { self == .today ? 3600 : 86_400 }

    /// From the start of the first day to the end of today, in `timeZone`.
    func range(now: Date, timeZone: TimeZone) -> (start: Date, end: Date) {
        let calendar = Calendar.gregorian(in: timeZone)
        let today = calendar.startOfDay(for: now)
        let start = calendar.date(byAdding: .day, value: 1 - days, to: today) ?? today
        return (start, calendar.date(byAdding: .day, value: 1, to: today) ?? now)
    }
}
