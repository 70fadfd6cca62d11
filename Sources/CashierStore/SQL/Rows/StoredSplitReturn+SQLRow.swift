import Cashier
import Foundation

extension StoredSplitReturn {
    /// The return in a row selected with ``SplitReturnColumn/list``.
    init(row: SQLRow) throws {
        let row = row.fields(SplitReturnColumn.self)
        let currency = try row.required(.currency, \.text, as: { try? Currency(code: $0) })
        self.init(
            id: try row.required(.id, \.text), splitID: try row.required(.splitID, \.text), orderID: try row.required(.orderID, \.text),
            outReturnNo: try row.required(.outReturnNo, \.text), account: try row.required(.account, \.text),
            amount: Money(minorUnits: try row.required(.amountMinor, \.integer), currency: currency),
            description: try row.text(.description) ?? "", status: try row.required(.status, \.text, as: Status.init(rawValue:)),
            providerReturnID: try row.text(.providerReturnID), providerState: try row.text(.providerState),
            failureReason: try row.text(.failureReason), createdAt: SQLStatements.date(try row.required(.createdAt, \.integer)),
            updatedAt: SQLStatements.date(try row.required(.updatedAt, \.integer)))
    }
}
