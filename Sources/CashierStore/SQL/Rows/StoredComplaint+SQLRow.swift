import Foundation

extension StoredComplaint {
    /// The complaint in a row selected with ``ComplaintColumn/list``.
    /// - Throws: `StoreError.failed` naming the column that is missing or holds what a complaint cannot.
    init(row: SQLRow) throws {
        let row = row.fields(ComplaintColumn.self)
        let text = try row.required(.snapshot, \.text)
        let snapshot: ComplaintSnapshot
        do {
            snapshot = try JSONDecoder().decode(ComplaintSnapshot.self, from: Data(text.utf8))
        } catch {
            throw StoreError(.failed, "complaints.snapshot holds what this version does not read as a complaint")
        }
        self.init(
            id: try row.required(.id, \.text), snapshot: snapshot, merchant: try row.text(.merchant), orderID: try row.text(.orderID),
            paymentID: try row.text(.paymentID), refundDecision: try row.text(.refundDecision), refundID: try row.text(.refundID),
            respondOverdueAt: try row.integer(.respondOverdueAt).map(SQLStatements.date),
            settleOverdueAt: try row.integer(.settleOverdueAt).map(SQLStatements.date), version: try row.required(.version, \.integer),
            createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)))
    }
}
