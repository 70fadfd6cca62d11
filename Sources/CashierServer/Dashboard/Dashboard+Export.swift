import Cashier
import CashierHTTP
import CashierStore
import Foundation

/// CSV for the books: orders, payments or refunds created on a range of days, the same files as
/// `GET /v1/exports/{kind}.csv`.
extension Dashboard {
    func exportPage(_ request: HTTPServerRequest, _ session: DashboardSessions.Session) async throws -> HTTPServerResponse {
        let today = ReportRange.day(clock.now(), timeZone: configuration.timeZone)
        let from = request.queryValue("from") ?? today
        let to = request.queryValue("to") ?? today
        let buttons = LedgerExport.allCases.map { kind in
            """
            <button type="submit" formaction="/dashboard/export/\(kind.rawValue).csv" id="export-\(kind.rawValue)">\(kind.rawValue.capitalized) (CSV)</button>
            """
        }.joined(separator: " ")
        return page(
            "Export", session,
            """
            <h1>Export</h1><form method="get" action="/dashboard/export/orders.csv" class="card" id="export">\
            <p>What was created from <input type="date" name="from" id="export-from" value="\(HTMLText.escape(from))"> to \
            <input type="date" name="to" id="export-to" value="\(HTMLText.escape(to))"> (both included, \(HTMLText.escape(configuration.timeZone.identifier))).</p>\
            <p>\(buttons)</p></form>\
            <p class="muted">UTF-8 with a byte-order mark, so spreadsheets read Chinese text; amounts are decimal strings in each row's \
            currency. The same files come from <code>GET /v1/exports/{orders|payments|refunds|splits|transfers}.csv?from=…&amp;to=…</code> with the secret key.</p>
            """)
    }

    func download(_ file: String, _ request: HTTPServerRequest) async throws -> HTTPServerResponse {
        guard let kind = LedgerExport(fileName: file) else {
            return Self.notice(status: 404, "No such export", "Exports are \(LedgerExport.fileNames).")
        }
        do {
            let range = try ReportRange(from: request.queryValue("from"), to: request.queryValue("to"), timeZone: configuration.timeZone)
            return try await kind.export(range, store: store, timeZone: configuration.timeZone).response
        } catch let error as RequestProblem {
            return Self.notice(status: 400, "Not exported", error.message)
        }
    }
}
