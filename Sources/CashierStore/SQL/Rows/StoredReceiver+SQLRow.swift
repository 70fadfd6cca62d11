import Foundation

extension StoredReceiver {
    /// The receiver in a row selected with ``ReceiverColumn/list``.
    init(row: SQLRow) throws {
        let row = row.fields(ReceiverColumn.self)
        self.init(
            id: try row.required(.id, \.text), merchant: try row.text(.merchant), provider: try row.required(.provider, \.text),
            type: try row.required(.type, \.text), account: try row.required(.account, \.text),
            relationType: try row.required(.relationType, \.text), customRelation: try row.text(.customRelation),
            status: try row.required(.status, \.text, as: Status.init(rawValue:)),
            createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)))
    }
}
