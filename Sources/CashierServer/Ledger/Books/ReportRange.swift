import Foundation

/// Whole days in the merchant's time zone, `from` to `to` inclusive (`YYYY-MM-DD` each), as the
/// exports and the dashboard's filters take them.
struct ReportRange: Sendable, Equatable {
    let from: String
    let to: String
    /// Where the first day starts.
    let start: Date
    /// Where the day after the last one starts.
    let end: Date

    /// The most days one range may cover.
    static let maximumDays = 366

    /// - Throws: ``RequestProblem`` naming the parameter that is wrong.
    init(from: String?, to: String?, timeZone: TimeZone) throws {
        guard let from, let to else { throw RequestProblem.unprocessable("give from and to, as YYYY-MM-DD (both included)") }
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
        start = try day(from, "from")
        let last = try day(to, "to")
        guard last >= start else { throw RequestProblem.unprocessable("to (\(to)) is before from (\(from))") }
        guard let end = calendar.date(byAdding: .day, value: 1, to: last) else { throw RequestProblem("to '\(to)' has no day after it") }
        guard let days = calendar.dateComponents([.day], from: start, to: end).day, days <= Self.maximumDays else {
            throw RequestProblem.unprocessable("a range covers at most \(Self.maximumDays) days")
        }
        self.from = from
        self.to = to
        self.end = end
    }

    /// The range a list was asked for, or `nil` when it names no days (neither `from` nor `to`).
    /// - Throws: ``RequestProblem`` when only one is given or either is wrong.
    static func given(from: String?, to: String?, timeZone: TimeZone) throws -> ReportRange? {
        guard from != nil || to != nil else { return nil }
        return try ReportRange(from: from, to: to, timeZone: timeZone)
    }

    /// `YYYY-MM-DD` of `date` in `timeZone`.
    static func day(_ date: Date, timeZone: TimeZone) -> String {
        Date.ISO8601FormatStyle(timeZone: timeZone).year().month().day().format(date)
    }
}
