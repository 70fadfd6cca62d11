import CashierHTTP

extension ExportFile {
    /// The file as a CSV download.
    var response: HTTPServerResponse {
        .file(
            path,
            headers: [
                "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": "attachment; filename=\"\(name)\"",
                "Cache-Control": "no-store",
            ])
    }
}
