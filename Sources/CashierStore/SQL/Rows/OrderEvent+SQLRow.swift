import Cashier
import Foundation

extension OrderEvent {
    /// The log line in a row selected with ``EventColumn/list``.
    /// - Throws: `StoreError.failed` naming a column that is missing or holds another kind of value.
    init(row: SQLRow) throws {
        let row = row.fields(EventColumn.self)
        self.init(
            sequence: try row.integer(.sequence) ?? 0, orderID: try row.text(.orderID) ?? "",
            kind: EventKind(rawValue: try row.text(.kind) ?? ""), from: try row.text(.fromStatus).flatMap(PaymentStatus.init),
            to: try row.text(.toStatus).flatMap(PaymentStatus.init), detail: try row.text(.detail) ?? "{}",
            bodySHA256: try row.text(.bodySHA256), createdAt: SQLStatements.date(try row.integer(.createdAt) ?? 0))
    }
}
