import Cashier
import Foundation

extension StoredRefund {
    /// The refund in a row selected with ``RefundColumn/list`` (or read from `r.` in a join).
    /// - Throws: `StoreError.failed` naming the column that is missing, `NULL` where a refund
    ///   must have a value, or holding what a refund cannot (an unknown status or currency).
    init(row: SQLRow) throws {
        let row = row.fields(RefundColumn.self)
        let currency = try row.required(.currency, \.text, as: { try? Currency(code: $0) })
        self.init(
            id: try row.required(.id, \.text), orderID: try row.required(.orderID, \.text),
            paymentID: try row.required(.paymentID, \.text), outRefundNo: try row.required(.outRefundNo, \.text),
            amount: Money(minorUnits: try row.required(.amountMinor, \.integer), currency: currency),
            status: try row.required(.status, \.text, as: RefundStatus.init(rawValue:)),
            providerRefundID: try row.text(.providerRefundID), reason: try row.text(.reason), failureReason: try row.text(.failureReason),
            createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)),
            finishedAt: try row.integer(.finishedAt).map(SQLStatements.date),
            confirmedAt: try row.integer(.confirmedAt).map(SQLStatements.date), requestedBy: try row.text(.requestedBy))
    }
}
