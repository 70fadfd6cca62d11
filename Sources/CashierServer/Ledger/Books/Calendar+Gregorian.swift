import Foundation

extension Calendar {
    /// The Gregorian calendar in `timeZone`: how the dashboard and the exports count days and hours.
    static func gregorian(in timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }
}
