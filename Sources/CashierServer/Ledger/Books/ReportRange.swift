import Foundation

/// Whole days in the merchant's time zone, `from` to `to` inclusive (`YYYY-MM-DD` each), as the
/// lists, the exports and the dashboard's filters take them.
struct ReportRange: Sendable, Equatable {
    let from: String
    let to: String
    /// Where the first day starts.
    let start: Date
    /// Where the day after the last one starts.
    let end: Date

    /// The first and last days a range may name; a side left out reaches to it.
    static let (firstDay, lastDay) = ("2000-01-01", "2100-12-31")

    /// Days `from` to `to`, both included; a side left out is open (`from` alone: that day on;
    /// `to` alone: up to that day). Any length: what reads a range reads it a page at a time.
    /// - Throws: ``RequestProblem`` naming the parameter that is wrong (400), or 422 when `to` is
    ///   before `from`.
    init(from given: String?, to last: String?, timeZone: TimeZone) throws {
        let calendar = Calendar.gregorian(in: timeZone)
        func day(_ text: String, _ name: String) throws -> Date {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard text.utf8.count == 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
                (2000...2100).contains(year),
                let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
                calendar.dateComponents([.year, .month, .day], from: date) == DateComponents(year: year, month: month, day: day)
            else { throw RequestProblem("\(name) '\(text)' is not a day as YYYY-MM-DD (2000 to 2100)") }
            return date
        }
        let from = given ?? Self.firstDay
        let to = last ?? Self.lastDay
        start = try day(from, "from")
        let final = try day(to, "to")
        guard final >= start else { throw RequestProblem.unprocessable("to (\(to)) is before from (\(from))") }
        guard let end = calendar.date(byAdding: .day, value: 1, to: final) else { throw RequestProblem("to '\(to)' has no day after it") }
        self.from = from
        self.to = to
        self.end = end
    }

    /// The range a list was asked for, or `nil` when it names no days (neither `from` nor `to`).
    /// - Throws: ``RequestProblem`` when either is wrong.
    static func given(from: String?, to: String?, timeZone: TimeZone) throws -> ReportRange? {
        guard from != nil || to != nil else { return nil }
        return try ReportRange(from: from, to: to, timeZone: timeZone)
    }

    /// `YYYY-MM-DD` of `date` in `timeZone`.
    static func day(_ date: Date, timeZone: TimeZone) -> String {
        Date.ISO8601FormatStyle(timeZone: timeZone).year().month().day().format(date)
    }
}
