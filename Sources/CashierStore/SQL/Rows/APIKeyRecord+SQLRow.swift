import Foundation

extension APIKeyRecord {
    /// The key in a row selected with ``APIKeyColumn/list``.
    /// - Throws: `StoreError.failed` naming a column that is missing or holds another kind of value.
    init(row: SQLRow) throws {
        let row = row.fields(APIKeyColumn.self)
        self.init(
            id: try row.text(.id) ?? "", hash: try row.text(.hash) ?? "", prefix: try row.text(.prefix) ?? "",
            label: try row.text(.label) ?? "", createdAt: SQLStatements.date(try row.integer(.createdAt) ?? 0),
            revokedAt: try row.integer(.revokedAt).map(SQLStatements.date),
            lastUsedAt: try row.integer(.lastUsedAt).map(SQLStatements.date),
            merchant: try row.text(.merchant))
    }
}
