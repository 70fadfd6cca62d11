import Cashier
import CashierServer
import CashierStore
import Foundation

/// `cashier reconcile --date YYYY-MM-DD`: each provider's bill for the day against the orders,
/// either through a running server (`--api-url`, the secret key from `CASHIER_SECRET_KEY`; the
/// way to reconcile `cashier serve --sandbox`) or directly with the merchant's config and database.
enum ReconcileCommand {
    static let command = Command(
        name: "reconcile",
        summary: "Compare the providers' bills for a day with the orders, and list every trade that differs.",
        discussion: """
            With --api-url, asks that running server (GET /v1/reconciliations/{date}); the secret key comes from the
            CASHIER_SECRET_KEY environment variable, never the command line. With --config, reads the bills with that
            configuration's credentials and compares them with --db (default: the config's database).
            Exit status: 0 when everything matches, 1 when there are discrepancies, 2 for a usage or configuration error,
            3 when a bill or the server cannot be fetched.
            """,
        options: [
            .value("date", "YYYY-MM-DD", "The bill day (Beijing time).", required: true),
            .value("api-url", "URL", "A running cashier serve, e.g. http://127.0.0.1:8080."),
            .value("config", "FILE", "Reconcile locally with these credentials."),
            .value("db", "PATH", "With --config: the SQLite database."),
            .flag("json", "Print the report as JSON."),
        ]
    ) { arguments, io in
        let date = arguments.value("date") ?? ""
        let day = BeijingTime.formatter("yyyy-MM-dd")
        guard let parsed = day.date(from: date), day.string(from: parsed) == date else {
            throw CommandFailure("--date must be a day as YYYY-MM-DD, not '\(date)'", status: 2)
        }
        let interactive = isatty(2) == 1
        let progress: @Sendable (String) -> Void = { line in
            if interactive {
                io.writeError("\r\u{1B}[K" + line)
            } else if !line.hasPrefix("checking") {
                io.writeError(line + "\n")
            }
        }
        let report: ReconciliationReport
        do {
            switch (arguments.value("api-url"), arguments.value("config")) {
            case (let url?, nil): report = try await remote(url: url, date: date, progress: progress)
            case (nil, let file?): report = try await local(file: file, database: arguments.value("db"), date: date, progress: progress)
            default:
                throw CommandFailure(
                    "give --api-url URL (a running cashier serve, e.g. in sandbox mode) or --config FILE (reconcile here), not both",
                    status: 2)
            }
        } catch let error as PaymentError {
            throw CommandFailure("cannot reconcile \(date): \(error.message)", status: 3)
        }
        if interactive { io.writeError("\r\u{1B}[K") }
        if arguments.flag("json") {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            io.write(String(decoding: try encoder.encode(report), as: UTF8.self) + "\n")
        } else {
            io.write(report.text)
        }
        return report.discrepancies.isEmpty ? 0 : 1
    }

    static func remote(url: String, date: String, progress: @Sendable (String) -> Void) async throws -> ReconciliationReport {
        guard let base = URL(string: url), base.scheme == "http" || base.scheme == "https" else {
            throw CommandFailure("--api-url must be an http(s) URL, not '\(url)'", status: 2)
        }
        guard let key = ProcessInfo.processInfo.environment["CASHIER_SECRET_KEY"], key.hasPrefix("sk_") else {
            throw CommandFailure("set CASHIER_SECRET_KEY to the server's secret key (sk_…)", status: 2)
        }
        progress("asking \(base.absoluteString) to reconcile \(date)")
        let response = try await URLSessionTransport().send(
            HTTPRequest(
                method: "GET", url: base.appendingPathComponent("v1/reconciliations/\(date)"), headers: ["Authorization": "Bearer \(key)"],
                timeout: .seconds(300)))
        guard response.status == 200 else {
            let message = ((try? JSONSerialization.jsonObject(with: response.body)) as? [String: [String: String]])?["error"]?["message"]
            throw CommandFailure("the server answered HTTP \(response.status): \(message ?? "no error message")", status: 3)
        }
        do {
            return try JSONDecoder().decode(ReconciliationReport.self, from: response.body)
        } catch {
            throw CommandFailure("the server's answer is not a reconciliation report", status: 3)
        }
    }

    static func local(file: String, database: String?, date: String, progress: @Sendable (String) -> Void) async throws
        -> ReconciliationReport
    {
        let parsed: ConfigurationFile
        do {
            parsed = try ConfigurationFile(contentsOf: URL(fileURLWithPath: file))
        } catch let problem as ConfigurationFile.Problem {
            throw CommandFailure(problem.description, status: 2)
        }
        let path = database ?? parsed.database
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("database: \(path) does not exist", status: 2) }
        let store: SQLiteOrderStore
        do {
            store = try SQLiteOrderStore(path: path)
        } catch let error as StoreError {
            throw CommandFailure("database: \(error.message)", status: 2)
        }
        return try await MerchantServer(configuration: parsed.configuration, store: store).reconcile(date: date, progress: progress)
    }
}
