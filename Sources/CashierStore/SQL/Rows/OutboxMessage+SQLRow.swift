import Foundation

extension OutboxMessage {
    /// The webhook message in a row selected with ``OutboxColumn/list``.
    /// - Throws: `StoreError.failed` naming a column that is missing or holds another kind of value.
    init(row: SQLRow) throws {
        let row = row.fields(OutboxColumn.self)
        self.init(
            id: try row.text(.id) ?? "", orderID: try row.text(.orderID) ?? "", type: try row.text(.type) ?? "",
            payload: try row.text(.payload) ?? "", attempts: Int(try row.integer(.attempts) ?? 0),
            nextAttemptAt: SQLStatements.date(try row.integer(.nextAttemptAt) ?? 0),
            deliveredAt: try row.integer(.deliveredAt).map(SQLStatements.date),
            createdAt: try row.integer(.createdAt).map(SQLStatements.date),
            lastError: try row.text(.lastError))
    }
}
