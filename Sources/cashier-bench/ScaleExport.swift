import Foundation

/// `scale-export-vs-sqlite3` (`…-vs-psql`): one month of payments exported as the merchant's
/// books get them — `GET /v1/exports/payments.csv?from=…&to=…` from the running server, saved by
/// `curl` — in rows per second, against the database's own CSV export of the same rows and
/// columns (`sqlite3 -csv`, `psql \copy`), and the server process's peak RSS while it exported.
struct ScaleExport {
    /// The server's URL and secret key.
    let base: URL
    let secretKey: String
    /// The database: a SQLite file's path, or a PostgreSQL URL.
    let database: ScaleDatabase
    let folder: URL
    /// The month's days (`YYYY-MM-DD`, in the server's time zone) and its bounds in stored milliseconds.
    let from: String
    let to: String
    let start: Int64
    let end: Int64

    struct Result {
        var rows: Int
        var seconds: Double
        var baselineRows: Int
        var baselineSeconds: Double
        var peakMegabytes: Double
        /// Resident before the export began.
        var startMegabytes: Double
    }

    /// The month `months` before `date`'s, in `timeZone`: its first and last days and where it starts and ends.
    static func month(before date: Date, months: Int, timeZone: TimeZone) -> (from: String, to: String, start: Date, end: Date) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let first = calendar.date(from: calendar.dateComponents([.year, .month], from: date))!
        let start = calendar.date(byAdding: .month, value: -months, to: first)!
        let end = calendar.date(byAdding: .month, value: 1, to: start)!
        let last = calendar.date(byAdding: .day, value: -1, to: end)!
        func day(_ date: Date) -> String {
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        return (day(start), day(last), start, end)
    }

    func measure() throws -> Result {
        let clock = ContinuousClock()
        let exported = folder.appendingPathComponent("export.csv")
        let url = base.absoluteString + "/v1/exports/payments.csv?from=\(from)&to=\(to)"
        PeakMemory.reset()
        let before = PeakMemory.currentMegabytes()
        var started = clock.now
        _ = try Subprocess.run(
            "/usr/bin/env", ["curl", "-sSf", "-o", exported.path, "-H", "Authorization: Bearer \(secretKey)", url])
        let seconds = (clock.now - started) / .seconds(1)
        let peak = PeakMemory.megabytes()
        let rows = try Self.lines(exported) - 1
        try? FileManager.default.removeItem(at: exported)

        let baseline = folder.appendingPathComponent("baseline.csv")
        let select = """
            SELECT id, order_id, created_at, succeeded_at, method, provider, out_trade_no, transaction_id, status, currency, \
            amount_minor, refunded_minor, refund_required FROM payments WHERE created_at >= \(start) AND created_at < \(end) \
            ORDER BY created_at, rowid
            """
        started = clock.now
        switch database {
        case .sqlite(let path):
            _ = try Subprocess.run("/bin/sh", ["-c", "exec sqlite3 -csv \"$1\" \"$2\" > \"$3\"", "sh", path, select, baseline.path])
        case .postgres(let url):
            _ = try Subprocess.run(
                "/usr/bin/env", ["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", "\\copy (\(select)) TO '\(baseline.path)' CSV"])
        }
        let baselineSeconds = (clock.now - started) / .seconds(1)
        let baselineRows = try Self.lines(baseline)
        try? FileManager.default.removeItem(at: baseline)
        return Result(
            rows: rows, seconds: seconds, baselineRows: baselineRows, baselineSeconds: baselineSeconds, peakMegabytes: peak,
            startMegabytes: before)
    }

    /// Lines in a file (counted a block at a time).
    static func lines(_ file: URL) throws -> Int {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var count = 0
        while let block = try handle.read(upToCount: 1 << 20), !block.isEmpty {
            count += block.withUnsafeBytes { bytes in bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
        }
        return count
    }
}
